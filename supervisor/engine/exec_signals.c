/* exec_signals: signals as the program would see them without mdat.
 *
 * Owns deciding whether a signal kills the program (its default action is
 * fatal and the program neither catches nor ignores it, read from /proc),
 * ending the emulated waits of threads a signal was sent to (the kernel
 * would interrupt their futex wait with EINTR and run the handler), and
 * telling a signal the program brought on itself from one sent from
 * outside (another shell's kill): every signal the program's processes
 * send stops at seccomp and is noted, so one it never sent, from a sender
 * that is none of its processes, came from outside and is no verdict.
 * Also whether a signal handled came at a time a choice decided (a fault,
 * a raise to oneself) or not, which voids a search's grounds; and keeps a
 * SIGTRAP handler of the program's own from being blocked while it runs,
 * where mdat's traps would reset it (exec_keep_handler_traps). */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_grounds.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* The hexadecimal signal masks of /proc/.../status lines, by prefix. */
struct status_mask {
    const char *prefix;
    uint64_t *value;
};

static bool read_status_masks(const char *path, struct status_mask *masks, int n)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    for (int i = 0; i < n; i++)
        *masks[i].value = 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        for (int i = 0; i < n; i++)
            if (strncmp(line, masks[i].prefix, 7) == 0)
                *masks[i].value = strtoull(line + 7, NULL, 16);
    fclose(f);
    return true;
}

bool exec_signal_is_fatal(struct execution *ex, pid_t tid, int sig)
{
    switch (sig) {
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return false;
    default:
        break;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    uint64_t caught, ignored;
    struct status_mask masks[] = {{"SigCgt:", &caught}, {"SigIgn:", &ignored}};
    if (!read_status_masks(path, masks, 2))
        return true;
    uint64_t bit = 1ull << (sig - 1);
    return !((caught | ignored) & bit);
}

bool exec_signal_pending(struct execution *ex, const struct mthread *t)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)ex->pid, (int)t->tid);
    uint64_t own, shared, blocked;
    struct status_mask masks[] = {{"SigPnd:", &own}, {"ShdPnd:", &shared}, {"SigBlk:", &blocked}};
    return read_status_masks(path, masks, 3) && ((own | shared) & ~blocked);
}

/* A signal sent to a thread blocked in mdat's model interrupts its wait, as
 * the kernel would: the futex call returns EINTR and the signal is
 * delivered when the thread next runs. A signal for the whole process does
 * so only when no thread can run to take it. */
void exec_interrupt_signalled_waits(struct execution *ex)
{
    ex->signal_sent = false;
    bool any_runnable = false;
    for (int i = 0; i < ex->n_threads; i++)
        any_runnable |= ex->threads[i].state == TS_RUNNABLE;
    for (int i = 0; i < ex->n_threads; i++) {
        struct mthread *t = &ex->threads[i];
        if (t->state != TS_BLOCKED)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)ex->pid, (int)t->tid);
        uint64_t own, shared, blocked;
        struct status_mask masks[] = {{"SigPnd:", &own}, {"ShdPnd:", &shared}, {"SigBlk:", &blocked}};
        if (!read_status_masks(path, masks, 3))
            continue;
        if (!(own & ~blocked) && (any_runnable || !(shared & ~blocked)))
            continue;
        if (t->io_wait) {
            exec_syscall_abandon(ex, t, -EINTR);
            t->op = OP_INTERRUPTED;
        } else {
            exec_wake_thread(ex, t);
            t->op = OP_INTERRUPTED;
            t->regs.rax = (uint64_t)-EINTR;
            tracee_set_regs(t->tid, &t->regs);
            t->regs_dirty = false;
        }
        any_runnable = true;
    }
}

static uint64_t signal_bit(int sig)
{
    return sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

void exec_note_signal_sent(struct execution *ex, const struct mthread *t, int sig)
{
    if (sig == SIGKILL && !(ex->signals_sent & signal_bit(SIGKILL))) {
        ex->sigkill_by = t ? t->id : 0;
        ex->sigkill_loc[0] = '\0';
        uint64_t pc = t ? exec_syscall_caller(ex, t) : 0;
        if (pc)
            exec_format_line(ex, pc, ex->sigkill_loc, sizeof ex->sigkill_loc);
    }
    ex->signals_sent |= signal_bit(sig);
}

bool exec_killed_from_outside(struct execution *ex, pid_t tid, int sig)
{
    if (ex->signals_sent & signal_bit(sig))
        return false;
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) != 0)
        return false;
    /* Only kill, sigqueue and tgkill name a sending process; the kernel's
     * own signals (faults, timers, SIGPIPE: sent "by" the program) do not
     * come from outside. */
    if (si.si_code != SI_USER && si.si_code != SI_QUEUE && si.si_code != SI_TKILL)
        return false;
    if (si.si_pid == ex->pid || (si.si_pid > 0 && exec_is_passive(ex, si.si_pid)))
        return false;
    exec_report_outside_kill(ex, sig, si.si_pid);   /* (si_pid 0: outside its PID namespace) */
    return true;
}

bool exec_sigkill_from_outside(struct execution *ex)
{
    int st = ex->leader_status;
    if (!ex->leader_gone || ex->killed || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
        return false;
    return !(ex->signals_sent & signal_bit(SIGKILL)) && !ex->cpu_limit_hit;
}

void exec_report_outside_kill(struct execution *ex, int sig, pid_t sender)
{
    const char *name = sigabbrev_np(sig);
    char by[64] = "";
    if (sender > 0)
        snprintf(by, sizeof by, "sent by process %d, ", (int)sender);
    exec_set_error(ex, "the program (pid %d) was killed from outside by SIG%s (%snot by the program or mdat)",
                   (int)ex->pid, name ? name : "?", by);
    ex->res->interrupted = true;
}

void exec_note_self_raise(struct execution *ex, const struct mthread *t)
{
    long nr = (long)t->regs.orig_rax;
    uint64_t target = nr == SYS_tgkill ? t->regs.rsi : t->regs.rdi;
    int sig = (int)(nr == SYS_tgkill ? t->regs.rdx : t->regs.rsi);
    if ((nr == SYS_tgkill || nr == SYS_tkill) && (pid_t)target == t->tid && sig > 0) {
        ex->raised_by = t->tid;
        ex->raised_sig = sig;
    }
}

/* sig comes from t's own instruction: a fault (the kernel names its cause
 * in si_code > 0) or a raise to itself, delivered as its call returns. */
static bool synchronous(struct execution *ex, const struct mthread *t, int sig, const siginfo_t *si)
{
    switch (sig) {
    case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP: case SIGSYS:
        if (si->si_code > 0)
            return true;
        break;
    default:
        break;
    }
    if (si->si_code == SI_TKILL && si->si_pid == ex->pid && ex->raised_by == t->tid && ex->raised_sig == sig) {
        ex->raised_by = 0;
        return true;
    }
    return false;
}

void exec_judge_signal_grounds(struct execution *ex, const struct mthread *t, int sig)
{
    siginfo_t si;
    if (ex->res->grounds_lost || (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 && synchronous(ex, t, sig, &si)))
        return;
    const char *name = sigabbrev_np(sig);
    exec_grounds_lost(ex, GROUNDS_SIGNAL, "SIG%s reached T%d at a time no choice decided (sent by another thread, a timer or "
                      "a child)", name ? name : "?", t->id);
}

/* The kernel's struct sigaction, as rt_sigaction takes it. */
struct kernel_sigaction {
    uint64_t handler, flags, restorer, mask;
};

/* A trap (an int3, a single step) that comes while its signal is blocked is
 * forced on the thread: the kernel resets the handler to the default and
 * unblocks it. mdat's breakpoints and steps trap, so in a SIGTRAP handler of
 * the program's own, where the kernel blocks SIGTRAP, the first of them
 * would undo the handler, and the program's next trap would kill it. With
 * page ownership the same goes for SIGSEGV: a handler starts with the
 * kernel's default rights, and its first touch of the thread's stack is a
 * protection-key fault (mdat gives the rights back, exec_pages.c), which
 * in a SIGSEGV handler, or one that blocks SIGSEGV, would undo the
 * program's SIGSEGV handler. Such handlers are installed with SA_NODEFER
 * (for their own signal) and without those signals in their mask instead:
 * they run unblocked, as they do natively unless they trap or fault. */
void exec_keep_handler_traps(struct execution *ex, struct mthread *t)
{
    int sig = (int)t->regs.rdi;
    bool pages = ex->pages != NULL;
    uint64_t at = t->regs.rsi;
    struct kernel_sigaction act;
    if ((sig != SIGTRAP && !pages) || !at || !tracee_read(ex->mem_fd, at, &act, sizeof act))
        return;
    if (act.handler == (uint64_t)(uintptr_t)SIG_DFL || act.handler == (uint64_t)(uintptr_t)SIG_IGN)
        return;
    uint64_t unblocked = sig == SIGTRAP ? 1ull << (SIGTRAP - 1) : 0;
    if (pages)
        unblocked |= 1ull << (SIGSEGV - 1);
    if (sig == SIGTRAP || (pages && sig == SIGSEGV))
        act.flags |= SA_NODEFER;
    act.mask &= ~unblocked;
    tracee_write(ex->mem_fd, at, &act, sizeof act);
}

/* ---------- timers of the kernel's ---------- */

static uint64_t ns_of(int64_t sec, int64_t sub, int64_t sub_per_sec)
{
    if (sec < 0 || sub < 0)
        return 0;
    return (uint64_t)sec * 1000000000u + (uint64_t)sub * (uint64_t)(1000000000 / sub_per_sec);
}

void exec_note_timer(struct execution *ex, struct mthread *t)
{
    ex->signals_seen = true;
    ex->timers_armed = true;
    const struct user_regs_struct *r = &t->regs;
    uint64_t value = 0, period = 0;
    bool known = true;
    if (r->orig_rax == SYS_alarm) {
        value = r->rdi * 1000000000u;
    } else if (r->orig_rax == SYS_setitimer) {
        int64_t tv[4];     /* it_interval, it_value: struct timeval each */
        if (r->rdi != 0)
            return;        /* CPU-time timers: they stand still while every thread waits */
        if (!r->rsi || !tracee_read(ex->mem_fd, r->rsi, tv, sizeof tv))
            return;
        period = ns_of(tv[0], tv[1], 1000000);
        value = ns_of(tv[2], tv[3], 1000000);
    } else {            /* timer_settime: its clock and an absolute time are not looked into */
        known = false;
    }
    uint64_t now = monotonic_ns();
    ex->timer_due_ns = !known ? 0 : value ? now + value : ex->timer_due_ns;
    ex->timer_period_ns = known ? period : 0;
    ex->timer_due_unknown = !known;
}

/* Whether some blocked thread has had its wait ended by a signal. */
static bool someone_woke(struct execution *ex)
{
    exec_interrupt_signalled_waits(ex);
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].state == TS_RUNNABLE)
            return true;
    return false;
}

bool exec_await_timer(struct execution *ex, uint64_t limit_ns)
{
    if (!ex->timers_armed)
        return false;
    uint64_t now = monotonic_ns(), due = ex->timer_due_ns;
    if (ex->timer_period_ns && due && due < now)
        due += ((now - due) / ex->timer_period_ns + 1) * ex->timer_period_ns;
    /* A signal takes a moment to be seen pending after its time. */
    uint64_t until = ex->timer_due_unknown ? now + limit_ns : due ? due + 100000000u : now;
    if (until > now + limit_ns)
        until = now + limit_ns;
    for (;;) {
        if (someone_woke(ex))
            return true;
        if (monotonic_ns() >= until)
            return false;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}
