/* ptrace_floor: the cheapest ptrace stop there is, measured: a child hits
 * int3 in a loop and the tracer resumes it each time (PTRACE_CONT +
 * waitpid), both pinned to one CPU, as mdat pins itself and its program.
 * The floor mdat's cost per visible step is compared with (scripts/bench).
 *
 * usage: ptrace_floor [ROUNDS]   prints "floor_us <microseconds per stop>" */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    cpu_set_t one;
    CPU_ZERO(&one);
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &one);
            break;
        }
    sched_setaffinity(0, sizeof one, &one);
    pid_t child = fork();
    if (child == 0) {
        raise(SIGSTOP);
        for (long i = 0; i <= rounds; i++)
            __asm__ volatile("int3");
        _exit(0);
    }
    if (ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_EXITKILL) != 0) {
        perror("ptrace_floor: PTRACE_SEIZE");
        return 1;
    }
    int status;
    waitpid(child, &status, 0);             /* the SIGSTOP */
    ptrace(PTRACE_CONT, child, 0, 0);
    waitpid(child, &status, 0);             /* the first int3: warm */
    double t0 = now_us();
    for (long i = 0; i < rounds; i++) {
        ptrace(PTRACE_CONT, child, 0, 0);
        waitpid(child, &status, 0);
    }
    double t1 = now_us();
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    printf("floor_us %.3f\n", (t1 - t0) / (double)rounds);
    return 0;
}
