/* forked_killer.c - a forked child (not the traced process itself) that
 * sends SIGSTOP and SIGKILL to mdat, which is its grandparent; then the
 * child execs /bin/sh, which tries `kill -KILL $PPID`'s equivalent on
 * mdat again.  The parent waits for the child and prints its exit status.
 *
 * HOSTILE.  Expected mdat verdict: sandbox-violation naming "a child
 * process"; mdat finishes and nothing is left running. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    pid_t mdat = getppid();
    pid_t child = fork();
    if (child == 0) {
        int refused = (kill(mdat, SIGSTOP) == -1 && errno == EPERM) + (kill(mdat, SIGKILL) == -1 && errno == EPERM);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "kill -KILL %d || exit %d; exit 9", (int)mdat, refused);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    return 0;
}
