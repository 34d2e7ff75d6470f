/* mdat_reacher.c - a program that reaches its parent (mdat) without a
 * 64-bit signal call. Run as `mdat_reacher i386` (kill, SIGSTOP and
 * PTRACE_ATTACH through int $0x80, after a getpid and a write to stdout
 * through it, which must work), `mdat_reacher owner` (fcntl F_SETOWN and
 * F_SETOWN_EX, ioctl FIOSETOWN and SIOCSPGRP naming mdat, then F_SETSIG
 * SIGKILL and O_ASYNC on the pipe and a write), `mdat_reacher process`
 * (prlimit, setpriority, sched_setaffinity, process_vm_writev, kcmp,
 * pidfd_open of mdat, and ioprio_set of mdat's process group), or the
 * same calls on itself and its own child (`mdat_reacher own`, which must
 * all run).
 *
 * HOSTILE.  Each call on mdat must fail with EPERM and the program goes on:
 * it prints "refused N of N" and exits 0.  Expected mdat verdict:
 * sandbox-violation; with `own`, no failure and "ran N of N". */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int tried, refused;

static void expect_refused(long r, const char *what)
{
    tried++;
    if (r == -1 && errno == EPERM)
        refused++;
    else
        printf("not refused: %s (%ld, %s)\n", what, r, r == -1 ? strerror(errno) : "ran");
}

/* The i386 calls return -errno in eax. */
static long int80(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    if (ret < 0 && ret > -4096) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}

static void i386_calls(pid_t mdat)
{
    enum { I386_WRITE = 4, I386_GETPID = 20, I386_PTRACE = 26, I386_KILL = 37 };
    char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low != MAP_FAILED) {
        strcpy(low, "written through int $0x80\n");
        int80(I386_WRITE, 1, (long)low, (long)strlen(low));
    }
    printf("int $0x80 getpid: %s\n", int80(I386_GETPID, 0, 0, 0) == getpid() ? "right" : "wrong");
    expect_refused(int80(I386_KILL, mdat, SIGKILL, 0), "i386 kill SIGKILL");
    expect_refused(int80(I386_KILL, mdat, SIGSTOP, 0), "i386 kill SIGSTOP");
    expect_refused(int80(I386_PTRACE, 16 /* PTRACE_ATTACH */, mdat, 0), "i386 ptrace attach");
}

static void owner_calls(pid_t mdat)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    expect_refused(fcntl(p[0], F_SETOWN, mdat), "F_SETOWN");
    struct f_owner_ex owner = {F_OWNER_PID, mdat};
    expect_refused(fcntl(p[0], F_SETOWN_EX, &owner), "F_SETOWN_EX");
    int who = mdat;
    expect_refused(ioctl(p[0], FIOSETOWN, &who), "FIOSETOWN");
    who = -getpgid(mdat);
    expect_refused(ioctl(p[0], FIOSETOWN, &who), "FIOSETOWN of mdat's group");
    fcntl(p[0], F_SETSIG, SIGKILL);
    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
    if (write(p[1], "x", 1) != 1)
        printf("write failed\n");
}

static void process_calls(pid_t mdat, bool own)
{
    pid_t target = mdat;
    struct rlimit none = {0, 0};
    long r = syscall(SYS_prlimit64, target, RLIMIT_CORE, &none, NULL);
    own ? (void)(tried++, refused += r == 0) : expect_refused(r, "prlimit");
    r = setpriority(PRIO_PROCESS, (id_t)target, 19);
    own ? (void)(tried++, refused += r == 0) : expect_refused(r, "setpriority");
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);     /* (the CPUs it may use: mdat pins it) */
    r = sched_setaffinity(target, sizeof set, &set);
    own ? (void)(tried++, refused += r == 0) : expect_refused(r, "sched_setaffinity");
    static char word[8];
    struct iovec local = {word, sizeof word}, remote = {word, sizeof word};
    r = process_vm_writev(target, &local, 1, &remote, 1, 0);
    own ? (void)(tried++, refused += r == (long)sizeof word) : expect_refused(r, "process_vm_writev");
    r = syscall(SYS_kcmp, getpid(), target, KCMP_VM, 0, 0);
    own ? (void)(tried++, refused += r >= 0) : expect_refused(r, "kcmp");
    r = syscall(SYS_pidfd_open, target, 0);
    own ? (void)(tried++, refused += r >= 0) : expect_refused(r, "pidfd_open");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "process";
    pid_t mdat = getppid();
    setvbuf(stdout, NULL, _IONBF, 0);
    if (strcmp(what, "i386") == 0) {
        i386_calls(mdat);
    } else if (strcmp(what, "owner") == 0) {
        owner_calls(mdat);
    } else if (strcmp(what, "own") == 0) {
        /* On itself: all of them run. */
        process_calls(getpid(), true);
        if (refused < tried)
            printf("not run: %s\n", strerror(errno));
        printf("ran %d of %d\n", refused, tried);
        return 0;
    } else {
        process_calls(mdat, false);
    }
    printf("refused %d of %d\n", refused, tried);
    return 0;
}
