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
 * a raise to oneself) or not, which voids a search's grounds. */
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
