/* ancestor_killer.c - a program that tries to kill or stop the processes
 * above it: its parent with SIGSTOP and SIGKILL, every ancestor up to init
 * with SIGKILL (kill, tgkill, pidfd_send_signal), its own process group
 * (kill(0, ...)) and every process (kill(-1, ...)). Run as
 * `ancestor_killer [parent|ancestors|group|all]` (default: all of them).
 *
 * HOSTILE.  Each call must fail with EPERM and the program goes on: it
 * prints "refused N of N" and exits 0.  Expected mdat verdict:
 * sandbox-violation ("... SIGSTOP to mdat (pid ...) was refused (EPERM)"),
 * and mdat itself finishes with no process left behind. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int tried, refused;

static void expect_refused(long r, const char *what)
{
    tried++;
    if (r == -1 && errno == EPERM)
        refused++;
    else
        printf("not refused: %s (%ld, %s)\n", what, r, strerror(errno));
}

static pid_t parent_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *close = strrchr(buf, ')');
    int ppid = 0;
    char state;
    if (!close || sscanf(close + 1, " %c %d", &state, &ppid) != 2)
        return 0;
    return ppid;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    bool all = strcmp(what, "all") == 0;
    if (all || strcmp(what, "parent") == 0) {
        expect_refused(kill(getppid(), SIGSTOP), "kill(parent, SIGSTOP)");
        expect_refused(kill(getppid(), SIGKILL), "kill(parent, SIGKILL)");
    }
    if (all || strcmp(what, "ancestors") == 0) {
        for (pid_t p = getppid(); p > 1; p = parent_of(p)) {
            expect_refused(kill(p, SIGKILL), "kill(ancestor, SIGKILL)");
            expect_refused(syscall(SYS_tgkill, p, p, SIGTERM), "tgkill(ancestor, SIGTERM)");
            int fd = (int)syscall(SYS_pidfd_open, p, 0);
            if (fd >= 0) {
                expect_refused(syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0), "pidfd_send_signal");
                close(fd);
            }
        }
    }
    if (all || strcmp(what, "group") == 0) {
        /* In mdat's group only when the program shares it (a terminal). */
        pid_t group = getpgid(0);
        if (group == getpgid(getppid()))
            expect_refused(kill(0, SIGKILL), "kill(0, SIGKILL)");
        expect_refused(kill(-getpgid(getppid()), SIGKILL), "kill(-parent's group, SIGKILL)");
    }
    if (all || strcmp(what, "all") == 0 || strcmp(what, "everyone") == 0)
        expect_refused(kill(-1, SIGKILL), "kill(-1, SIGKILL)");
    /* Signals to itself still work. */
    signal(SIGUSR1, SIG_IGN);
    if (kill(getpid(), SIGUSR1) != 0)
        printf("kill(self) failed: %s\n", strerror(errno));
    printf("refused %d of %d\n", refused, tried);
    return refused == tried ? 0 : 1;
}
