/* foreign_step: one thread of a held process run to its next system call
 * (see foreign_step.h). */
#include "supervisor/inspect/foreign_step.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void foreign_syscall_name(long nr, char *buf, size_t len)
{
    char *name = nr >= 0 ? seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)nr) : NULL;
    if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "syscall %ld", nr);
    free(name);
}

/* Calls whose new threads or program would run outside mdat's hold. */
static bool escapes(long nr)
{
    return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork || nr == SYS_execve ||
           nr == SYS_execveat;
}

static bool syscall_info(pid_t tid, struct __ptrace_syscall_info *info)
{
    memset(info, 0, sizeof *info);
    return ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof *info, info) > 0;
}

/* What the stop reported in status is, once the thread stopped. */
static void read_stop(struct foreign_thread *t, int status, long entered, struct foreign_step *out)
{
    struct __ptrace_syscall_info info;
    bool known = syscall_info(t->tid, &info);
    if (known && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        out->end = FSTEP_ENTERED;
        out->nr = (long)info.entry.nr;
        memcpy(out->args, info.entry.args, sizeof out->args);
    } else if (known && info.op == PTRACE_SYSCALL_INFO_EXIT) {
        out->end = FSTEP_RETURNED;
        out->nr = entered;
        out->result = info.exit.rval;
    } else if ((status >> 16) == 0 && WSTOPSIG(status) != (SIGTRAP | 0x80)) {
        /* A signal-delivery stop: the signal is the thread's to take. */
        out->end = FSTEP_SIGNAL;
        out->signal = WSTOPSIG(status);
        t->resend_signal = out->signal;
    } else {
        out->end = FSTEP_BLOCKED;   /* stopped by the interrupt where it waited */
    }
    t->have_regs = ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) == 0;
}

static bool ended(int status)
{
    return WIFEXITED(status) || WIFSIGNALED(status);
}

static void thread_ended(struct foreign_thread *t, struct foreign_step *out)
{
    out->end = FSTEP_ENDED;
    t->seized = false;
    t->stopped = false;
    t->proc_state = 'X';
}

/* The thread's status within wait_ms; 0 when it has not stopped. */
static pid_t wait_stop(pid_t tid, int wait_ms, int *status)
{
    uint64_t deadline = monotonic_ns() + (uint64_t)wait_ms * 1000000u;
    for (;;) {
        pid_t r = waitpid(tid, status, __WALL | WNOHANG);
        if (r != 0 || monotonic_ns() >= deadline)
            return r;
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
}

bool foreign_step_thread(struct foreign_process *p, size_t index, int wait_ms, struct foreign_step *out, char *err,
                         size_t errlen)
{
    struct foreign_thread *t = &p->threads[index];
    memset(out, 0, sizeof *out);
    out->nr = -1;
    if (!t->seized || !t->stopped) {
        out->end = FSTEP_REFUSED;
        snprintf(out->why, sizeof out->why, "it is not held by mdat (it ended, or never stopped)");
        return true;
    }
    /* The kernel tells a system call's stops apart (and reads their
     * number and arguments) only with TRACESYSGOOD. */
    if (ptrace(PTRACE_SETOPTIONS, t->tid, 0, (void *)(long)PTRACE_O_TRACESYSGOOD) != 0) {
        snprintf(err, errlen, "cannot follow thread %d's system calls: %s", (int)t->tid, strerror(errno));
        return false;
    }
    struct __ptrace_syscall_info info;
    long entered = -1;
    if (syscall_info(t->tid, &info) && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        entered = (long)info.entry.nr;
        if (escapes(entered)) {
            char name[64];
            foreign_syscall_name(entered, name, sizeof name);
            out->end = FSTEP_REFUSED;
            out->nr = entered;
            snprintf(out->why, sizeof out->why,
                     "it is about to call %s: mdat does not follow a new thread, process or program of an attached "
                     "process (quit to let it run)", name);
            return true;
        }
    }
    /* A signal held for it is taken now, as it would have been. */
    int sig = t->resend_signal;
    if (ptrace(PTRACE_SYSCALL, t->tid, 0, (void *)(long)sig) != 0) {
        snprintf(err, errlen, "cannot resume thread %d: %s", (int)t->tid, strerror(errno));
        return false;
    }
    t->resend_signal = 0;
    int status = 0;
    pid_t r = wait_stop(t->tid, wait_ms, &status);
    if (r < 0 || (r == t->tid && ended(status))) {
        thread_ended(t, out);
        return true;
    }
    if (r == 0) {
        /* Waiting in the kernel: held again where it waits. */
        ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
        r = wait_stop(t->tid, 2000, &status);
        if (r < 0 || (r == t->tid && ended(status))) {
            thread_ended(t, out);
            return true;
        }
        if (r == 0) {
            t->stopped = false;     /* left to the kernel's detach when mdat ends */
            snprintf(err, errlen, "thread %d did not stop again", (int)t->tid);
            return false;
        }
        read_stop(t, status, entered, out);
        if (out->end != FSTEP_SIGNAL)
            out->end = FSTEP_BLOCKED;
        out->nr = entered >= 0 ? entered : out->nr;
        return true;
    }
    read_stop(t, status, entered, out);
    return true;
}
