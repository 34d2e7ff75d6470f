/* exec_refuse: what the program may not do to mdat.
 *
 * Owns deciding, at the seccomp stop of kill, tkill, tgkill,
 * rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal and ptrace, whether
 * the call would reach mdat: the supervising process, its ancestors (the
 * shell, a grading run), its fork server, or a process group holding one of
 * them (kill(0, ...) and kill(-pgid, ...) from a program that shares mdat's
 * group, kill(-1, ...) always); any PTRACE_ATTACH or PTRACE_SEIZE (the
 * program's own processes are mdat's to trace already). Such a call is not
 * run: it fails with EPERM, the program goes on, and the first one is kept
 * for the report (a sandbox-violation when nothing else failed). Signals
 * between the program's own processes are untouched, and noted
 * (exec_signals.c tells them from signals sent from outside). */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* The parent of pid and its command name, from /proc (false when gone). */
static bool parent_of(pid_t pid, pid_t *parent, char *comm, size_t len)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return false;
    if (comm)
        snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
    char state;
    int pp;
    if (sscanf(close + 1, " %c %d", &state, &pp) != 2)
        return false;
    *parent = pp;
    return true;
}

/* What mdat is to the program, for pid: "" when pid is not mdat's. */
static void mdat_role(const struct execution *ex, pid_t pid, char *role, size_t len)
{
    role[0] = '\0';
    pid_t self = getpid(), up = 0;
    char comm[64] = "";
    if (pid <= 0 || pid == ex->pid)
        return;
    if (pid == self) {
        snprintf(role, len, "mdat");
        return;
    }
    if (!parent_of(pid, &up, comm, sizeof comm))
        return;
    if (up == self) {
        /* mdat's children other than this execution: its fork server. */
        snprintf(role, len, "mdat's fork server");
        return;
    }
    int depth = 1;
    for (pid_t p = self; p > 1 && depth < 64; depth++) {
        if (!parent_of(p, &up, NULL, 0))
            return;
        if (up == pid) {
            snprintf(role, len, "%s (%s)", depth == 1 ? "mdat's parent" : "an ancestor of mdat", comm);
            return;
        }
        p = up;
    }
}

/* A process group with mdat or one of its ancestors in it: "" when none. */
static void group_role(const struct execution *ex, pid_t pgid, char *role, size_t len)
{
    role[0] = '\0';
    for (pid_t p = getpid(); p > 1;) {
        if (getpgid(p) == pgid) {
            mdat_role(ex, p, role, len);
            if (!role[0])
                snprintf(role, len, "mdat");
            char whose[200];
            snprintf(whose, sizeof whose, "%s", role);
            snprintf(role, len, "the process group of %s", whose);
            return;
        }
        pid_t up;
        if (!parent_of(p, &up, NULL, 0))
            return;
        p = up;
    }
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

/* "" when the call may run, else what it would have done to mdat;
 * *signo: the signal it sends (0: none). */
static void judge(const struct execution *ex, pid_t caller, const struct user_regs_struct *r, char *what, size_t len,
                  int *signo_out)
{
    what[0] = '\0';
    char role[240] = "", sig[24];
    long nr = (long)r->orig_rax;
    long a0 = (long)r->rdi, a1 = (long)r->rsi;
    int signo = 0;
    *signo_out = 0;
    switch (nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo:
        signo = (int)a1;
        if (signo != 0)
            kill_reaches(ex, caller, (int)a0, role, sizeof role);
        break;
    case SYS_tkill:
        signo = (int)a1;
        if (signo != 0 && (int)a0 > 0)
            mdat_role(ex, thread_group_of((pid_t)a0), role, sizeof role);
        break;
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
        signo = (int)r->rdx;
        if (signo != 0 && (int)a0 > 0)
            mdat_role(ex, (pid_t)(int)a0, role, sizeof role);
        break;
    case SYS_pidfd_send_signal:
        signo = (int)a1;
        if (signo != 0)
            mdat_role(ex, pidfd_target(caller, (int)a0), role, sizeof role);
        break;
    case SYS_ptrace:
        if (a0 == PTRACE_ATTACH || a0 == PTRACE_SEIZE) {
            char target[240] = "";
            mdat_role(ex, (pid_t)a1, target, sizeof target);
            snprintf(what, len, "%s of %s", a0 == PTRACE_ATTACH ? "ptrace(PTRACE_ATTACH)" : "ptrace(PTRACE_SEIZE)",
                     target[0] ? target : "a process");
        }
        return;
    default:
        return;
    }
    *signo_out = signo;
    if (!role[0])
        return;
    signal_name(signo, sig, sizeof sig);
    snprintf(what, len, "sending %s to %s", sig, role);
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

bool exec_refuse_call(struct execution *ex, struct mthread *t, pid_t tid)
{
    struct user_regs_struct regs;
    if (t)
        regs = t->regs;
    else if (!tracee_get_regs(tid, &regs))
        return false;
    char what[300];
    int signo;
    judge(ex, tid, &regs, what, sizeof what, &signo);
    if (!what[0]) {
        exec_note_signal_sent(ex, t, signo);
        return false;
    }
    keep_first(ex, t, tid, what);
    regs.orig_rax = (uint64_t)-1;
    regs.rax = (uint64_t)-EPERM;
    if (t) {
        t->regs = regs;
        t->stop = STOP_PLAIN;
        t->regs_dirty = false;
    }
    tracee_set_regs(tid, &regs);
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
