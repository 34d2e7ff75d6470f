/* foreign_step: one thread of a held process run to its next system call
 * (see foreign_step.h). */
#include "supervisor/inspect/foreign_step.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <sched.h>
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

/* The flags of a clone or clone3 call (clone3's are the first word of
 * its struct clone_args); 0 when unreadable. */
static uint64_t clone_flags(const struct foreign_process *p, long nr, const uint64_t args[6])
{
    uint64_t flags = 0;
    if (nr == SYS_clone)
        return args[0];
    if (p->mem_fd < 0 || !tracee_read(p->mem_fd, args[0], &flags, sizeof flags))
        return 0;
    return flags;
}

/* Calls whose new process or program would run outside mdat's hold. A
 * new thread does not escape: PTRACE_O_TRACECLONE seizes it (unless it
 * is made with CLONE_VFORK or CLONE_UNTRACED, which the option does not
 * follow). */
bool foreign_step_escapes(const struct foreign_process *p, long nr, const uint64_t args[6])
{
    if (nr == SYS_clone || nr == SYS_clone3) {
        uint64_t flags = clone_flags(p, nr, args);
        return !(flags & CLONE_THREAD) || (flags & (CLONE_VFORK | CLONE_UNTRACED));
    }
    return nr == SYS_fork || nr == SYS_vfork || nr == SYS_execve || nr == SYS_execveat;
}

/* The options a step needs: the kernel tells a system call's stops apart
 * (and reads their number and arguments) only with TRACESYSGOOD, and
 * TRACECLONE seizes the threads the stepped thread makes. */
static bool set_step_options(pid_t tid, char *err, size_t errlen)
{
    long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE;
    if (ptrace(PTRACE_SETOPTIONS, tid, 0, (void *)options) == 0)
        return true;
    snprintf(err, errlen, "cannot follow thread %d's system calls: %s", (int)tid, strerror(errno));
    return false;
}

void foreign_step_refuse_escape(long nr, struct foreign_step *out)
{
    char name[64];
    foreign_syscall_name(nr, name, sizeof name);
    out->end = FSTEP_REFUSED;
    out->nr = nr;
    snprintf(out->why, sizeof out->why,
             "it is about to call %s: mdat does not follow a new process or program of an attached process "
             "(quit to let it run)", name);
}

/* The thread index made: seized by the kernel, adopted into p. */
void foreign_step_adopt(struct foreign_process *p, size_t index, struct foreign_step *out)
{
    unsigned long new_tid = 0;
    ptrace(PTRACE_GETEVENTMSG, p->threads[index].tid, 0, &new_tid);
    out->end = FSTEP_NEW_THREAD;
    out->new_tid = (pid_t)new_tid;
    char err[200];
    if (new_tid && !foreign_adopt_thread(p, (pid_t)new_tid, err, sizeof err))
        snprintf(out->why, sizeof out->why, "%s", err);
}

/* A clone event stop of a step to the next call: the call was clone's. */
static void made_thread(struct foreign_process *p, size_t index, long entered, struct foreign_step *out)
{
    struct foreign_thread *t = &p->threads[index];
    t->have_regs = ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) == 0;
    out->nr = entered;
    foreign_step_adopt(p, index, out);   /* may move p->threads: t is not used after it */
}

bool foreign_syscall_info(pid_t tid, struct __ptrace_syscall_info *info)
{
    memset(info, 0, sizeof *info);
    return ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof *info, info) > 0;
}

/* What the stop reported in status is, once the thread stopped. */
static void read_stop(struct foreign_thread *t, int status, long entered, struct foreign_step *out)
{
    struct __ptrace_syscall_info info;
    bool known = foreign_syscall_info(t->tid, &info);
    t->have_regs = ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) == 0;
    /* Stopped inside clone (a new thread's event) before, the call's
     * number is in orig_rax. */
    if (entered < 0 && t->have_regs)
        entered = (long)t->regs.orig_rax;
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
}

bool foreign_step_status_ended(int status)
{
    return WIFEXITED(status) || WIFSIGNALED(status);
}

void foreign_step_thread_ended(struct foreign_thread *t, struct foreign_step *out)
{
    out->end = FSTEP_ENDED;
    t->seized = false;
    t->stopped = false;
    t->proc_state = 'X';
}

/* The thread's status by the deadline, looked for every nap_ns; 0 when
 * it has not stopped. */
pid_t foreign_step_wait_until(pid_t tid, uint64_t deadline, long nap_ns, int *status)
{
    for (;;) {
        pid_t r = waitpid(tid, status, __WALL | WNOHANG);
        if (r != 0 || monotonic_ns() >= deadline)
            return r;
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
    }
}

/* Within wait_ms, looked for every millisecond: a call's stop. */
static pid_t wait_stop(pid_t tid, int wait_ms, int *status)
{
    return foreign_step_wait_until(tid, monotonic_ns() + (uint64_t)wait_ms * 1000000u, 1000000, status);
}

/* A thread that outran its wait, interrupted and waited for again. */
enum interrupted foreign_step_interrupt(struct foreign_thread *t, int *status, struct foreign_step *out,
                                           char *err, size_t errlen)
{
    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
    pid_t r = wait_stop(t->tid, 2000, status);
    if (r < 0 || (r == t->tid && foreign_step_status_ended(*status))) {
        foreign_step_thread_ended(t, out);
        return INTERRUPT_ENDED;
    }
    if (r == 0) {
        t->stopped = false;     /* left to the kernel's detach when mdat ends */
        snprintf(err, errlen, "thread %d did not stop again", (int)t->tid);
        return INTERRUPT_FAILED;
    }
    return INTERRUPT_STOPPED;
}

/* Stopped to be given a SIGTRAP (a single step's, an int3's): not a
 * system call's stop, nor an event's (their si_code holds the event). */
static bool in_sigtrap_stop(pid_t tid)
{
    struct __ptrace_syscall_info info;
    if (foreign_syscall_info(tid, &info) && info.op != PTRACE_SYSCALL_INFO_NONE)
        return false;
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) != 0)
        return false;   /* a group stop */
    return si.si_signo == SIGTRAP && (si.si_code >> 8) == 0;
}

bool foreign_step_settle(struct foreign_thread *t)
{
    if (!t->seized || !t->stopped || !in_sigtrap_stop(t->tid))
        return true;
    /* Resumed with no signal, the interrupt stops it before it runs an
     * instruction of its own. */
    int status = 0;
    if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) != 0 || ptrace(PTRACE_CONT, t->tid, 0, 0) != 0)
        return false;
    uint64_t deadline = monotonic_ns() + 2000000000u;
    for (;;) {
        pid_t r = foreign_step_wait_until(t->tid, deadline, 20000, &status);
        if (r <= 0 || foreign_step_status_ended(status))
            return false;
        if ((status >> 16) == PTRACE_EVENT_STOP)
            return true;
        /* A signal that came meanwhile: kept for the thread, as a step keeps one. */
        if ((status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != (SIGTRAP | 0x80))
            t->resend_signal = WSTOPSIG(status);
        if (ptrace(PTRACE_CONT, t->tid, 0, 0) != 0)
            return false;
    }
}

/* The start of either step (foreign_step.h). */
int foreign_step_begin(struct foreign_process *p, size_t index, struct foreign_step *out, long *entered,
                       bool (*before_options)(const struct foreign_thread *t, const void *ctx, struct foreign_step *out),
                       const void *ctx, char *err, size_t errlen)
{
    struct foreign_thread *t = &p->threads[index];
    memset(out, 0, sizeof *out);
    out->nr = -1;
    *entered = -1;
    if (!t->seized || !t->stopped) {
        out->end = FSTEP_REFUSED;
        snprintf(out->why, sizeof out->why, "it is not held by mdat (it ended, or never stopped)");
        return 0;
    }
    if (before_options && !before_options(t, ctx, out))
        return 0;
    if (!set_step_options(t->tid, err, errlen))
        return -1;
    struct __ptrace_syscall_info info;
    if (foreign_syscall_info(t->tid, &info) && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        *entered = (long)info.entry.nr;
        if (foreign_step_escapes(p, *entered, (const uint64_t *)info.entry.args)) {
            foreign_step_refuse_escape(*entered, out);
            return 0;
        }
    }
    return 1;
}

bool foreign_step_thread(struct foreign_process *p, size_t index, int wait_ms, struct foreign_step *out, char *err,
                         size_t errlen)
{
    long entered;
    int begun = foreign_step_begin(p, index, out, &entered, NULL, NULL, err, errlen);
    if (begun <= 0)
        return begun == 0;
    struct foreign_thread *t = &p->threads[index];
    /* A signal held for it is taken now, as it would have been. */
    int sig = t->resend_signal;
    if (ptrace(PTRACE_SYSCALL, t->tid, 0, (void *)(long)sig) != 0) {
        snprintf(err, errlen, "cannot resume thread %d: %s", (int)t->tid, strerror(errno));
        return false;
    }
    t->resend_signal = 0;
    int status = 0;
    pid_t r = wait_stop(t->tid, wait_ms, &status);
    if (r < 0 || (r == t->tid && foreign_step_status_ended(status))) {
        foreign_step_thread_ended(t, out);
        return true;
    }
    if (r == 0) {
        /* Waiting in the kernel: held again where it waits. */
        enum interrupted again = foreign_step_interrupt(t, &status, out, err, errlen);
        if (again != INTERRUPT_STOPPED)
            return again == INTERRUPT_ENDED;
        if ((status >> 16) == PTRACE_EVENT_CLONE) {
            made_thread(p, index, entered, out);   /* just as the wait ran out */
            return true;
        }
        read_stop(t, status, entered, out);
        if (out->end != FSTEP_SIGNAL)
            out->end = FSTEP_BLOCKED;
        out->nr = entered >= 0 ? entered : out->nr;
        return true;
    }
    if ((status >> 16) == PTRACE_EVENT_CLONE) {
        made_thread(p, index, entered, out);
        return true;
    }
    read_stop(t, status, entered, out);
    return true;
}

/* ---- back to the user's code ---- */

/* The thread's status within the deadline; 0 when it has not stopped.
 * Polled finely: a single step's trap comes within microseconds. */
static pid_t wait_trap(pid_t tid, uint64_t deadline, int *status)
{
    return foreign_step_wait_until(tid, deadline, 20000, status);
}

/* The next instruction is a syscall that would escape the hold. */
static bool at_escaping_syscall(const struct foreign_process *p, const struct foreign_thread *t)
{
    unsigned char insn[2];
    if (p->mem_fd < 0 || !tracee_read(p->mem_fd, t->regs.rip, insn, sizeof insn) || insn[0] != 0x0f ||
        insn[1] != 0x05)
        return false;
    const struct user_regs_struct *r = &t->regs;
    uint64_t args[6] = {r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9};
    return foreign_step_escapes(p, (long)r->rax, args);
}

/* A stop of the thread while it single-steps; true when it goes on. */
static bool single_step_stop(struct foreign_process *p, size_t index, int status, struct foreign_step *out)
{
    struct foreign_thread *t = &p->threads[index];
    int event = status >> 16, sig = WSTOPSIG(status);
    t->have_regs = ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) == 0;
    if (event == PTRACE_EVENT_CLONE) {
        foreign_step_adopt(p, index, out);
        return false;
    }
    if (event == 0 && (sig == SIGTRAP || sig == (SIGTRAP | 0x80)))
        return true;    /* the step's trap (or a system call's stop on the way) */
    if (event == 0) {
        out->end = FSTEP_SIGNAL;
        out->signal = sig;
        t->resend_signal = sig;
        return false;
    }
    out->end = FSTEP_BLOCKED;   /* a group stop or an interrupt */
    return false;
}

/* Outran the deadline: interrupted, stopped again where it is. */
static bool stop_again(struct foreign_process *p, size_t index, struct foreign_step *out, char *err, size_t errlen)
{
    struct foreign_thread *t = &p->threads[index];
    int status = 0;
    enum interrupted again = foreign_step_interrupt(t, &status, out, err, errlen);
    if (again != INTERRUPT_STOPPED)
        return again == INTERRUPT_ENDED;
    bool goes_on = single_step_stop(p, index, status, out);
    t = &p->threads[index];     /* a thread adopted meanwhile may have moved the array */
    if (goes_on || out->end == FSTEP_BLOCKED) {
        out->end = FSTEP_BLOCKED;
        /* Inside a call (a kernel restart code in rax): that call. */
        int64_t rax = (int64_t)t->regs.rax;
        out->nr = (int64_t)t->regs.orig_rax >= 0 && rax <= -512 && rax >= -516 ? (long)t->regs.orig_rax : -1;
    }
    return true;
}

/* u from the user's code has nowhere to go. */
static bool not_in_user_code(const struct foreign_thread *t, const void *fc, struct foreign_step *out)
{
    if (!t->have_regs || !foreign_is_user_code(fc, t->regs.rip))
        return true;
    out->end = FSTEP_REFUSED;
    snprintf(out->why, sizeof out->why, "it is in the user's code already (s steps it to its next visible operation, c to its next system call)");
    return false;
}

static bool step_to_user(struct foreign_process *p, size_t index, const struct foreign_code *fc, int wait_ms,
                         struct foreign_step *out, char *err, size_t errlen)
{
    long entered;
    int begun = foreign_step_begin(p, index, out, &entered, not_in_user_code, fc, err, errlen);
    if (begun <= 0)
        return begun == 0;
    struct foreign_thread *t = &p->threads[index];
    uint64_t deadline = monotonic_ns() + (uint64_t)wait_ms * 1000000u;
    for (;;) {
        if (entered < 0 && at_escaping_syscall(p, t)) {
            foreign_step_refuse_escape((long)t->regs.rax, out);
            return true;
        }
        if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(long)t->resend_signal) != 0) {
            snprintf(err, errlen, "cannot resume thread %d: %s", (int)t->tid, strerror(errno));
            return false;
        }
        t->resend_signal = 0;
        int status = 0;
        pid_t r = wait_trap(t->tid, deadline, &status);
        if (r == 0)
            return stop_again(p, index, out, err, errlen);
        if (r < 0 || foreign_step_status_ended(status)) {
            foreign_step_thread_ended(t, out);
            return true;
        }
        out->instructions++;
        bool goes_on = single_step_stop(p, index, status, out);
        t = &p->threads[index];     /* a thread adopted meanwhile may have moved the array */
        if (entered >= 0) {
            /* A single step from a call's entry runs the call: its result
             * is in rax now. */
            out->ran_call = true;
            out->ran_nr = entered;
            out->ran_result = (int64_t)t->regs.rax;
            entered = -1;
        }
        if (!goes_on)
            return true;
        if (t->have_regs && foreign_is_user_code(fc, t->regs.rip)) {
            out->end = FSTEP_USER_CODE;
            return true;
        }
    }
}

bool foreign_step_to_user(struct foreign_process *p, size_t index, const struct foreign_code *fc, int wait_ms,
                          struct foreign_step *out, char *err, size_t errlen)
{
    bool ok = step_to_user(p, index, fc, wait_ms, out, err, errlen);
    if (index < p->n_threads)
        foreign_step_settle(&p->threads[index]);
    return ok;
}
