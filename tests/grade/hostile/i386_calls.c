/* Hostile submission: reaches mdat through the 32-bit system-call ABI
 * (int $0x80 from 64-bit code), which a filter of x86-64 numbers alone
 * does not see. One attack per build (ATTACK): kill its parent (the
 * explorer) and every process with SIGKILL (hostile_i386_killer), stop it
 * with SIGSTOP (hostile_i386_stopper), or PTRACE_ATTACH its tracer
 * (hostile_i386_tracer). Harmless calls through the same ABI (getpid, a
 * write to stdout) must keep working: it prints what they returned. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { I386_WRITE = 4, I386_GETPID = 20, I386_PTRACE = 26, I386_KILL = 37, I386_GETPPID = 64 };

static long int80(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return ret;
}

static pid_t tracer(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    pid_t pid = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "TracerPid:", 10) == 0)
            pid = atoi(line + 10);
    if (f)
        fclose(f);
    return pid;
}

int main(void)
{
    /* int $0x80 takes 32-bit pointers: the text goes below 2 GiB. */
    static const char hello[] = "hello through int $0x80\n";
    char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low != MAP_FAILED) {
        memcpy(low, hello, sizeof hello);
        int80(I386_WRITE, 1, (long)low, sizeof hello - 1);
    }
    printf("getpid: %s\n", int80(I386_GETPID, 0, 0, 0) == getpid() ? "same" : "different");
    fflush(stdout);
    long parent = int80(I386_GETPPID, 0, 0, 0);
#if ATTACK == 1
    long r1 = int80(I386_KILL, parent, SIGKILL, 0);
    long r2 = int80(I386_KILL, -1, SIGKILL, 0);
    printf("kill: %ld %ld\n", r1, r2);
#elif ATTACK == 2
    printf("stop: %ld\n", int80(I386_KILL, parent, SIGSTOP, 0));
#else
    printf("attach: %ld %ld\n", int80(I386_PTRACE, 16 /* PTRACE_ATTACH */, tracer(), 0),
           int80(I386_PTRACE, 16, parent, 0));
#endif
    return 0;
}
