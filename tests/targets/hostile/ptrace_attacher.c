/* ptrace_attacher.c - a program that tries to ptrace-attach to its parent
 * (PTRACE_ATTACH, then PTRACE_SEIZE), which would stop mdat for good.
 *
 * HOSTILE.  Both calls must fail with EPERM; the program prints
 * "refused 2 of 2" and exits 0.  Expected mdat verdict: sandbox-violation
 * ("ptrace(PTRACE_ATTACH) pid N, mdat ... was refused (EPERM)"). */
#include <errno.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(void)
{
    int refused = 0;
    pid_t parent = getppid();
    if (ptrace(PTRACE_ATTACH, parent, 0, 0) == -1 && errno == EPERM)
        refused++;
    if (ptrace(PTRACE_SEIZE, parent, 0, 0) == -1 && errno == EPERM)
        refused++;
    printf("refused %d of 2\n", refused);
    return refused == 2 ? 0 : 1;
}
