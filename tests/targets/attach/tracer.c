/* tracer: a helper for the tests of mdat attach -p, not a program under
 * test. Forks a child that waits for a signal, traces it (PTRACE_SEIZE),
 * prints the child's pid and then waits itself: mdat attach -p CHILD must
 * then say the child is already traced by this process. Ends (and so lets
 * the child go, which it kills first) on SIGTERM or after 60 s. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* ends with the tracer, however it ends */
        pause();
        _exit(0);
    }
    if (child < 0 || ptrace(PTRACE_SEIZE, child, 0, 0) != 0) {
        perror("tracer");
        return 2;
    }
    printf("%d\n", (int)child);
    fflush(stdout);
    sleep(60);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return 0;
}
