/* exec_refuse: what the program may not do to mdat.
 *
 * Owns deciding, at the seccomp stop of a call that names another process
 * (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
 * pidfd_send_signal, ptrace, and syscall_filter.c's list of calls that
 * set a signal's owner, limits, scheduling or memory of another process:
 * fcntl F_SETOWN, prlimit64, process_vm_writev, kcmp, pidfd_open...),
 * whether it would reach mdat: the supervising process, the processes
 * below mdat's first one that are not the program's (fork servers, other
 * workers, checkers), the ancestors of mdat (the shell, a grading run), or
 * a process group holding one of them (kill(0, ...) and kill(-pgid, ...),
 * kill(-1, ...) always); any PTRACE_ATTACH or PTRACE_SEIZE (the program's
 * own processes are mdat's to trace already); and every stopped call made
 * through another ABI than x86-64's (int $0x80, x32), which mdat does not
 * model. Such a call is not run: it fails with EPERM, the program goes
 * on, and the first one is kept for the report (a sandbox-violation when
 * nothing else failed). Calls on the program's own processes are
 * untouched; its signals are noted (exec_signals.c tells them from
 * signals sent from outside). */
#include "supervisor/engine/code_names.h"
#include "supervisor/process/proc_stat.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/execution.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/launch/syscall_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
enum { IOPRIO_WHO_PROCESS = 1, IOPRIO_WHO_PGRP = 2, IOPRIO_WHO_USER = 3, MAX_HOPS = 64 };

/* mdat's first process: 0 until set, then this process is taken. */
static pid_t mdat_root;

void execution_set_mdat_root(pid_t root)
{
    mdat_root = root;
}

static pid_t root_of_mdat(void)
{
    return mdat_root > 0 ? mdat_root : getpid();
}

/* The parent of pid and its command name, from /proc (false when gone). */
static bool parent_of(pid_t pid, pid_t *parent, char *comm, size_t len)
{
    struct proc_stat st;
    if (!proc_stat_read(pid, 0, &st))
        return false;
    if (comm)
        snprintf(comm, len, "%s", st.comm);
    *parent = st.ppid;
    return true;
}

static bool is_passive(const struct execution *ex, pid_t pid)
{
    for (size_t i = 0; i < ex->n_passive; i++)
        if (ex->passive[i] == pid)
            return true;
    return false;
}

/* What mdat is to the program, for process pid: "" when pid is not mdat's
 * (the program's own, one of its children, or a process mdat has nothing
 * to do with). */
static void mdat_role(const struct execution *ex, pid_t pid, char *role, size_t len)
{
    role[0] = '\0';
    pid_t self = getpid(), root = root_of_mdat(), up = 0;
    char comm[64] = "";
    if (pid <= 0 || pid == ex->pid || is_passive(ex, pid))
        return;
    if (pid == self || pid == root) {
        snprintf(role, len, "mdat");
        return;
    }
    if (!parent_of(pid, &up, comm, sizeof comm))
        return;
    /* Below mdat's first process and not below the program: mdat's. */
    char first[64];
    snprintf(first, sizeof first, "%s", comm);
    for (pid_t p = up, hops = 0; p > 0 && hops < MAX_HOPS; hops++) {
        if (p == ex->pid)
            return;
        if (p == self || p == root) {
            snprintf(role, len, up == self ? "mdat's fork server" : "a process of mdat's (%s)", first);
            return;
        }
        if (!parent_of(p, &p, NULL, 0))
            break;
    }
    /* Above it: the shell that started mdat, a grading run. */
    int depth = 1;
    for (pid_t p = root; p > 1 && depth < MAX_HOPS; depth++) {
        if (!parent_of(p, &up, NULL, 0))
            return;
        if (up == pid) {
            snprintf(role, len, "%s (%s)", depth == 1 ? "mdat's parent" : "an ancestor of mdat", first);
            return;
        }
        p = up;
    }
}

struct group_search {
    const struct execution *ex;
    pid_t pgid;
    char *role;
    size_t len;
};

static void look_in_group(pid_t pid, void *ctx)
{
    struct group_search *g = ctx;
    if (g->role[0] || getpgid(pid) != g->pgid)
        return;
    char whose[200];
    mdat_role(g->ex, pid, whose, sizeof whose);
    if (whose[0])
        snprintf(g->role, g->len, "the process group of %s", whose);
}

/* A process group with a process of mdat's in it: "" when none. */
static void group_role(const struct execution *ex, pid_t pgid, char *role, size_t len)
{
    role[0] = '\0';
    struct group_search g = {ex, pgid, role, len};
    if (pgid > 0)
        proc_each_process(look_in_group, &g);
}

static pid_t thread_group_of(pid_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    pid_t tgid = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Tgid:", 5) == 0)
            tgid = (pid_t)atoi(line + 5);
    fclose(f);
    return tgid;
}

/* The process a pidfd of the caller refers to (0 when unknown or gone). */
static pid_t pidfd_target(pid_t caller, int fd)
{
    char path[96], line[128];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)caller, fd);
    FILE *f = fopen(path, "re");
    pid_t pid = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Pid:", 4) == 0)
            pid = (pid_t)atoi(line + 4);
    fclose(f);
    return pid > 0 ? pid : 0;
}

static void signal_name(int sig, char *buf, size_t len)
{
    if (sig > 0 && sigabbrev_np(sig))
        snprintf(buf, len, "SIG%s", sigabbrev_np(sig));
    else
        snprintf(buf, len, "signal %d", sig);
}

/* The signal `sig` sent to pid as kill(2) reads it: whom it reaches of mdat. */
static void kill_reaches(const struct execution *ex, pid_t caller, long pid, char *role, size_t len)
{
    if (pid == -1)
        snprintf(role, len, "every process it may signal");
    else if (pid == 0)
        group_role(ex, getpgid(caller), role, len);
    else if (pid < 0)
        group_role(ex, (pid_t)-pid, role, len);
    else
        mdat_role(ex, (pid_t)pid, role, len);
}

/* The arguments of a call at its seccomp stop, x86-64's registers. */
struct call {
    pid_t caller;
    long nr;
    long a[4];
};

/* A signal sent: "" in what when it may go. */
static void judge_signal(const struct execution *ex, const struct call *c, char *what, size_t len, int *signo_out)
{
    char role[240] = "", sig[24];
    int signo = 0;
    switch (c->nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo:
        signo = (int)c->a[1];
        if (signo != 0)
            kill_reaches(ex, c->caller, (int)c->a[0], role, sizeof role);
        break;
    case SYS_tkill:
        signo = (int)c->a[1];
        if (signo != 0 && (int)c->a[0] > 0)
            mdat_role(ex, thread_group_of((pid_t)c->a[0]), role, sizeof role);
        break;
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
        signo = (int)c->a[2];
        if (signo != 0 && (int)c->a[0] > 0)
            mdat_role(ex, (pid_t)(int)c->a[0], role, sizeof role);
        break;
    case SYS_pidfd_send_signal:
        signo = (int)c->a[1];
        if (signo != 0)
            mdat_role(ex, pidfd_target(c->caller, (int)c->a[0]), role, sizeof role);
        break;
    }
    *signo_out = signo;
    if (!role[0])
        return;
    signal_name(signo, sig, sizeof sig);
    snprintf(what, len, "sending %s to %s", sig, role);
}

/* An int the caller points at (0 when unreadable). */
static long pointed_int(pid_t caller, long addr)
{
    int v = 0;
    struct iovec local = {&v, sizeof v}, remote = {(void *)addr, sizeof v};
    if (process_vm_readv(caller, &local, 1, &remote, 1, 0) != (ssize_t)sizeof v)
        return 0;
    return v;
}

/* The owner F_SETOWN_EX names, as F_SETOWN would (a pid, or -pgid). */
static long owner_ex(pid_t caller, long addr)
{
    struct {
        int type;
        int pid;
    } owner = {0, 0};
    struct iovec local = {&owner, sizeof owner}, remote = {(void *)addr, sizeof owner};
    if (process_vm_readv(caller, &local, 1, &remote, 1, 0) != (ssize_t)sizeof owner)
        return 0;
    return owner.type == 2 /* F_OWNER_PGRP */ ? -(long)owner.pid : owner.pid;
}

/* A "which, who" pair of setpriority or ioprio_set: whom it reaches. */
static void which_who(const struct execution *ex, pid_t caller, bool process, bool group, long who, char *role,
                      size_t len)
{
    if (process)
        mdat_role(ex, who ? thread_group_of((pid_t)who) : 0, role, len);
    else if (group)
        group_role(ex, who ? (pid_t)who : getpgid(caller), role, len);
    else if (who == 0 || (uid_t)who == getuid())
        snprintf(role, len, "every process of its user, mdat's included");
}

/* One of syscall_filter.c's calls that name another process: "" in what
 * when the process is not mdat's. */
static void judge_reaching(const struct execution *ex, const struct call *c, char *what, size_t len)
{
    char role[240] = "", role2[240] = "";
    const char *verb = NULL;
    long a0 = c->a[0], a1 = c->a[1];
    switch (c->nr) {
    case SYS_fcntl:
    case SYS_ioctl: {
        bool ex_form = c->nr == SYS_fcntl && a1 == F_SETOWN_EX;
        long owner = c->nr == SYS_ioctl ? pointed_int(c->caller, c->a[2]) : ex_form ? owner_ex(c->caller, c->a[2]) : (int)c->a[2];
        verb = c->nr == SYS_ioctl ? (a1 == FIOSETOWN ? "ioctl(FIOSETOWN) naming" : "ioctl(SIOCSPGRP) naming")
                                  : (ex_form ? "fcntl(F_SETOWN_EX) naming" : "fcntl(F_SETOWN) naming");
        if ((c->nr == SYS_fcntl && a1 != F_SETOWN && a1 != F_SETOWN_EX) ||
            (c->nr == SYS_ioctl && a1 != FIOSETOWN && a1 != SIOCSPGRP))
            return;
        kill_reaches(ex, c->caller, owner == -1 ? 0 : owner, role, sizeof role);
        if (owner == 0 || owner == -1)
            role[0] = '\0';
        break;
    }
    case SYS_prlimit64:
        verb = "prlimit on";
        mdat_role(ex, thread_group_of((pid_t)a0), role, sizeof role);
        break;
    case SYS_sched_setaffinity:
    case SYS_sched_setparam:
    case SYS_sched_setscheduler:
    case SYS_sched_setattr:
        verb = "changing the scheduling of";
        mdat_role(ex, thread_group_of((pid_t)a0), role, sizeof role);
        break;
    case SYS_setpriority:
        verb = "setpriority on";
        which_who(ex, c->caller, a0 == PRIO_PROCESS, a0 == PRIO_PGRP, a1, role, sizeof role);
        break;
    case SYS_ioprio_set:
        verb = "ioprio_set on";
        which_who(ex, c->caller, a0 == IOPRIO_WHO_PROCESS, a0 == IOPRIO_WHO_PGRP, a1, role, sizeof role);
        break;
    case SYS_migrate_pages:
    case SYS_move_pages:
        verb = "moving the pages of";
        mdat_role(ex, thread_group_of((pid_t)a0), role, sizeof role);
        break;
    case SYS_get_robust_list:
        verb = "get_robust_list of";
        mdat_role(ex, thread_group_of((pid_t)a0), role, sizeof role);
        break;
    case SYS_process_vm_readv:
    case SYS_process_vm_writev:
        verb = c->nr == SYS_process_vm_readv ? "process_vm_readv of" : "process_vm_writev into";
        mdat_role(ex, (pid_t)a0, role, sizeof role);
        break;
    case SYS_process_madvise:
        verb = "process_madvise on";
        mdat_role(ex, pidfd_target(c->caller, (int)a0), role, sizeof role);
        break;
    case SYS_kcmp:
        verb = "kcmp with";
        mdat_role(ex, (pid_t)a0, role, sizeof role);
        mdat_role(ex, (pid_t)a1, role2, sizeof role2);
        if (!role[0])
            snprintf(role, sizeof role, "%s", role2);
        break;
    case SYS_pidfd_open:
        verb = "pidfd_open of";
        mdat_role(ex, (pid_t)a0, role, sizeof role);
        break;
    case SYS_pidfd_getfd:
        verb = "pidfd_getfd from";
        mdat_role(ex, pidfd_target(c->caller, (int)a0), role, sizeof role);
        break;
    default:
        return;
    }
    if (role[0])
        snprintf(what, len, "%s %s", verb, role);
}

/* Whether nr is one of syscall_filter.c's calls that name another process. */
static bool names_a_process(long nr)
{
    switch (nr) {
    case SYS_fcntl:
    case SYS_ioctl:
    case SYS_prlimit64:
    case SYS_sched_setaffinity:
    case SYS_sched_setparam:
    case SYS_sched_setscheduler:
    case SYS_sched_setattr:
    case SYS_setpriority:
    case SYS_ioprio_set:
    case SYS_migrate_pages:
    case SYS_move_pages:
    case SYS_get_robust_list:
    case SYS_process_vm_readv:
    case SYS_process_vm_writev:
    case SYS_process_madvise:
    case SYS_kcmp:
    case SYS_pidfd_open:
    case SYS_pidfd_getfd:
        return true;
    default:
        return false;
    }
}

/* "" in what when the call may run, else what it would have done to mdat;
 * *signo: the signal it sends (0: none). */
static void judge(const struct execution *ex, const struct call *c, char *what, size_t len, int *signo_out)
{
    what[0] = '\0';
    *signo_out = 0;
    if (c->nr == SYS_ptrace) {
        long req = c->a[0];
        if (req == PTRACE_ATTACH || req == PTRACE_SEIZE) {
            char target[240] = "";
            mdat_role(ex, (pid_t)c->a[1], target, sizeof target);
            snprintf(what, len, "%s of %s", req == PTRACE_ATTACH ? "ptrace(PTRACE_ATTACH)" : "ptrace(PTRACE_SEIZE)",
                     target[0] ? target : "a process");
        }
    } else if (names_a_process(c->nr)) {
        judge_reaching(ex, c, what, len);
    } else {
        judge_signal(ex, c, what, len, signo_out);
    }
}

static void keep_first(struct execution *ex, const struct mthread *t, pid_t caller, const char *what)
{
    if (ex->n_refused++ > 0)
        return;
    ex->refused_thread = t ? t->id : 0;
    if (t) {
        uint64_t pc = exec_syscall_caller(ex, t);
        if (pc) {
            exec_format_line(ex, pc, ex->refused_loc, sizeof ex->refused_loc);
            exec_format_function(ex, pc, ex->refused_fn, sizeof ex->refused_fn);
        }
        snprintf(ex->refused_text, sizeof ex->refused_text, "T%d: %s was refused (EPERM)%s%s%s%s", t->id, what,
                 ex->refused_loc[0] ? " at " : "", ex->refused_loc, ex->refused_fn[0] ? " in " : "",
                 ex->refused_fn);
    } else {
        char comm[64] = "?";
        pid_t up;
        parent_of(caller, &up, comm, sizeof comm);
        snprintf(ex->refused_text, sizeof ex->refused_text, "a child process (%s): %s was refused (EPERM)", comm,
                 what);
    }
}

/* The call fails with EPERM without running. */
static void refuse(struct execution *ex, struct mthread *t, pid_t tid, struct user_regs_struct *regs, const char *what)
{
    keep_first(ex, t, tid, what);
    regs->orig_rax = (uint64_t)-1;
    regs->rax = (uint64_t)-EPERM;
    if (t) {
        t->regs = *regs;
        t->stop = STOP_PLAIN;
        t->regs_dirty = false;
    }
    tracee_set_regs(tid, regs);
}

/* The ABI of the call tid is stopped at (its seccomp stop's mark). */
static enum syscall_abi stop_abi(pid_t tid)
{
    unsigned long mark = SYSCALL_ABI_X86_64;
    if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &mark) != 0)
        return SYSCALL_ABI_X86_64;
    return (enum syscall_abi)mark;
}

/* A call through another ABI: refused (true) when it stopped. */
static bool refuse_foreign(struct execution *ex, struct mthread *t, pid_t tid, struct user_regs_struct *regs)
{
    enum syscall_abi abi = stop_abi(tid);
    if (abi == SYSCALL_ABI_X86_64)
        return false;
    char name[64], what[200];
    syscall_filter_name(abi, (long)regs->orig_rax, name, sizeof name);
    snprintf(what, sizeof what, "%s through %s (mdat models only the 64-bit one)", name,
             syscall_filter_abi_name(abi));
    refuse(ex, t, tid, regs, what);
    return true;
}

static bool judge_and_refuse(struct execution *ex, struct mthread *t, pid_t tid, struct user_regs_struct *regs)
{
    struct call c = {tid, (long)regs->orig_rax, {(long)regs->rdi, (long)regs->rsi, (long)regs->rdx, (long)regs->r10}};
    char what[300];
    int signo;
    judge(ex, &c, what, sizeof what, &signo);
    if (!what[0]) {
        if (!names_a_process(c.nr) && c.nr != SYS_ptrace)
            exec_note_signal_sent(ex, t, signo);
        return false;
    }
    refuse(ex, t, tid, regs, what);
    return true;
}

bool exec_refuse_call(struct execution *ex, struct mthread *t, pid_t tid)
{
    struct user_regs_struct regs;
    if (t) {
        regs = t->regs;
        return judge_and_refuse(ex, t, tid, &regs);
    }
    /* A forked child's: every call it stopped at comes here. */
    if (!tracee_get_regs(tid, &regs))
        return false;
    if (refuse_foreign(ex, NULL, tid, &regs))
        return true;
    return judge_and_refuse(ex, NULL, tid, &regs);
}

bool exec_refuse_at_seccomp(struct execution *ex, struct mthread *t)
{
    ex->stop_reason = STOP_REASON_SYSCALL;
    if (refuse_foreign(ex, t, t->tid, &t->regs))
        return true;
    if (!names_a_process((long)t->regs.orig_rax))
        return false;
    exec_refuse_call(ex, t, t->tid);
    return true;
}

void exec_report_refused(struct execution *ex)
{
    struct exec_result *res = ex->res;
    if (ex->n_refused == 0 || res->kind != FAIL_NONE)
        return;
    res->kind = FAIL_SANDBOX;
    res->thread = ex->refused_thread;
    snprintf(res->location, sizeof res->location, "%s", ex->refused_loc);
    snprintf(res->function, sizeof res->function, "%s", ex->refused_fn);
    if (ex->n_refused > 1)
        snprintf(res->message, sizeof res->message, "%.440s (and %d more refused calls)", ex->refused_text,
                 ex->n_refused - 1);
    else
        snprintf(res->message, sizeof res->message, "%s", ex->refused_text);
}
