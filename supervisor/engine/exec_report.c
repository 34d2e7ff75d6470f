/* exec_report: turning how an execution ended into a failure report.
 *
 * Owns the message, location and thread of each kind the engine itself
 * detects (crash, assertion, deadlock with its wait cycle, timeout, step
 * limit) and the snapshot of every thread that goes with a report. What a
 * blocked thread waits for comes from the model (exec_model.h). */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/process/io_wait.h"
#include "supervisor/engine/spin_watch.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

void exec_describe_wait(struct execution *ex, const struct mthread *t, char *buf, size_t len, int *waits_for)
{
    *waits_for = 0;
    if (ex->model && ex->model_state) {
        ex->model->describe_wait(ex->model_state, t, buf, len, waits_for);
        return;
    }
    const struct futex_waiter *w = futex_table_get(&ex->futex, t->id);
    snprintf(buf, len, "futex word 0x%" PRIx64, w ? w->addr : 0);
}

/* The failure happened at pc: its line and function. */
static void locate(struct execution *ex, uint64_t pc)
{
    exec_format_line(ex, pc, ex->res->location, sizeof ex->res->location);
    exec_format_function(ex, pc, ex->res->function, sizeof ex->res->function);
}

/* The failure happened where t stands, pc being its user's frame
 * (exec_user_frame_pc). With no frame of the user's on its stack (a
 * destructor exit runs after main): no line of the user's, and the
 * program's function the runtime runs. */
static void locate_thread(struct execution *ex, const struct mthread *t, uint64_t pc)
{
    if (exec_is_users_place(ex, pc)) {
        locate(ex, pc);
        return;
    }
    ex->res->location[0] = '\0';
    exec_runtime_function(ex, t, pc, ex->res->function, sizeof ex->res->function);
}

/* The function as assert names it, once: C gives "main" ("main()" then),
 * C++ its signature with the return type first ("int main(int, char**)":
 * "main(int, char**)" then). */
static void assert_function(const char *func, char *buf, size_t len)
{
    const char *paren = strchr(func, '(');
    if (!paren) {
        snprintf(buf, len, "%s()", func);
        return;
    }
    const char *name = func;
    int depth = 0;
    for (const char *p = func; p < paren; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (*p == ' ' && depth == 0)
            name = p + 1;
    }
    snprintf(buf, len, "%s", name);
}

void exec_record_assert(struct execution *ex, struct mthread *t)
{
    char expr[200], file[160], func[96];
    tracee_read_string(ex->mem_fd, t->regs.rdi, expr, sizeof expr);
    tracee_read_string(ex->mem_fd, t->regs.rsi, file, sizeof file);
    tracee_read_string(ex->mem_fd, t->regs.rcx, func, sizeof func);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    ex->assert_seen = true;
    ex->assert_thread = t->id;
    snprintf(ex->assert_loc, sizeof ex->assert_loc, "%s:%u", base, (unsigned)t->regs.rdx);
    snprintf(ex->assert_fn, sizeof ex->assert_fn, "%s", func);
    char in[sizeof func + 2];
    assert_function(func, in, sizeof in);
    snprintf(ex->assert_text, sizeof ex->assert_text, "assertion `%s' failed at %s:%u in %s", expr, base,
             (unsigned)t->regs.rdx, in);
}

static void report_assertion(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_ASSERTION;
    res->thread = ex->assert_thread;
    snprintf(res->location, sizeof res->location, "%s", ex->assert_loc);
    snprintf(res->function, sizeof res->function, "%s", ex->assert_fn);
    snprintf(res->message, sizeof res->message, "T%d: %s", ex->assert_thread, ex->assert_text);
}

void exec_report_crash(struct execution *ex, struct mthread *t, int sig)
{
    struct exec_result *res = ex->res;
    if (sig == SIGABRT && ex->assert_seen) {
        report_assertion(ex);
        return;
    }
    tracee_get_regs(t->tid, &t->regs);
    uint64_t pc = code_map_in_exe(ex->cfg->code, t->regs.rip) ? t->regs.rip : exec_user_pc(ex, t);
    /* Code of a system header's compiled into the program (std::vector's
     * operator[] at -O0) is told at the user's line that called it, the
     * header's place beside, as a library's is. */
    pc = exec_user_frame_pc(ex, t, pc);
    res->thread = t->id;
    res->kind = FAIL_CRASH;
    char where[160];
    exec_format_code(ex, pc, where, sizeof where);
    locate(ex, pc);
    const char *detail = "";
    char fault[64] = "";
    if (sig == SIGSEGV || sig == SIGBUS) {
        siginfo_t si;
        if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0) {
            snprintf(fault, sizeof fault, " accessing 0x%" PRIx64, (uint64_t)(uintptr_t)si.si_addr);
            detail = si.si_addr == NULL ? " (NULL pointer dereference)" : "";
        }
    }
    char name[32];
    if (sigabbrev_np(sig))
        snprintf(name, sizeof name, "SIG%s", sigabbrev_np(sig));
    else
        snprintf(name, sizeof name, "signal %d", sig);
    char inside[128] = "";
    if (pc != t->regs.rip) {
        /* It died in library code the user's line called. */
        char lib_where[100];
        exec_format_code(ex, t->regs.rip, lib_where, sizeof lib_where);
        snprintf(inside, sizeof inside, " (in %s)", lib_where);
    }
    snprintf(res->message, sizeof res->message, "T%d killed by %s%s%s at %s%s", t->id, name, fault, detail, where,
             inside);
}

/* Each blocked thread waits for at most one other (next[id]): the cycle
 * reached from the lowest thread that is on one, as "T2 -> T3 -> T2";
 * *first gets the thread the text starts at. "" when there is none. */
static void find_wait_cycle(const int *next, int n, char *cycle, size_t len, int *first)
{
    cycle[0] = '\0';
    *first = 0;
    int *seen = calloc((size_t)n + 1, sizeof *seen);
    if (!seen)
        abort();
    for (int start = 1; start <= n && !cycle[0]; start++) {
        memset(seen, 0, ((size_t)n + 1) * sizeof *seen);
        int cur = start;
        while (cur && !seen[cur]) {
            seen[cur] = 1;
            cur = next[cur];
        }
        if (!cur)
            continue;
        int c = cur;
        size_t used = 0;
        do {
            used += (size_t)snprintf(cycle + used, len - used, "T%d -> ", c);
            c = next[c];
        } while (c != cur && used < len - 16);
        snprintf(cycle + used, len - used, "T%d", cur);
        *first = cur;
    }
    free(seen);
}

void exec_report_deadlock(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_DEADLOCK;
    int n = ex->n_threads;
    int *next = calloc((size_t)n + 1, sizeof *next);
    if (!next)
        abort();
    /* What each blocked thread waits on, by thread id. */
    char (*waits)[160] = calloc((size_t)n + 1, sizeof *waits);
    if (!waits)
        abort();
    int first_blocked = 0, first_not_joining = 0, blocked = 0;
    for (int i = 0; i < n; i++) {
        struct mthread *t = &ex->threads[i];
        if (t->state != TS_BLOCKED)
            continue;
        blocked++;
        if (!first_not_joining && !(t->in_call && t->call_fn == MF_THREAD_JOIN))
            first_not_joining = t->id;
        exec_describe_wait(ex, t, waits[t->id], sizeof waits[t->id], &next[t->id]);
        if (!first_blocked)
            first_blocked = t->id;
    }
    char cycle[256];
    int in_cycle;
    find_wait_cycle(next, n, cycle, sizeof cycle, &in_cycle);
    /* The headline names what each thread of the cycle waits on, in the
     * cycle's order: the cause, before any join the threads table lists
     * (cause_steps.c reads the cycle's threads up to the colon). */
    char causes[sizeof res->message] = "";
    size_t used = 0;
    for (int id = in_cycle, k = 0; id && k < n && used < sizeof causes; id = next[id], k++) {
        if (k > 0 && id == in_cycle)
            break;
        used += (size_t)snprintf(causes + used, sizeof causes - used, "%sT%d waits on %s", k ? "; " : ": ", id,
                                 waits[id]);
    }
    free(waits);
    free(next);
    /* The place to look at is where the cycle starts (the lock its first
     * thread waits on), or where a stuck worker sits (its cond_wait), not
     * main's pthread_join that waits for it all. */
    int at = in_cycle ? in_cycle : first_not_joining ? first_not_joining : first_blocked;
    struct mthread *t = exec_thread_by_id(ex, at);
    res->thread = at;
    char wait[200] = "";
    if (t) {
        int waits_for;
        locate_thread(ex, t, exec_user_frame_pc(ex, t, exec_user_pc(ex, t)));
        exec_describe_wait(ex, t, wait, sizeof wait, &waits_for);
    }
    if (cycle[0])
        snprintf(res->message, sizeof res->message, "%d thread%s blocked, none can run; wait cycle %s%s", blocked,
                 blocked == 1 ? "" : "s", cycle, causes);
    else
        snprintf(res->message, sizeof res->message, "%d thread%s blocked, none can run; T%d waits on %s", blocked,
                 blocked == 1 ? "" : "s", at, wait);
}

/* The system call a thread sits in, from /proc (-1 when it is running
 * user code), and where its user code called it: the first return address
 * into user code on its stack (libc's wrappers are leaf functions). */
static long blocking_syscall(struct execution *ex, const struct mthread *t, uint64_t *caller)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)ex->pid, (int)t->tid);
    FILE *f = fopen(path, "re");
    long nr = -1;
    unsigned long long args[6], sp = 0, pc = 0;
    if (f) {
        if (fgets(line, sizeof line, f) && sscanf(line, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &args[0],
                                                   &args[1], &args[2], &args[3], &args[4], &args[5], &sp, &pc) < 9)
            nr = -1;
        fclose(f);
    }
    *caller = 0;
    uint64_t words[64];
    if (nr >= 0 && sp && tracee_read(ex->mem_fd, sp, words, sizeof words))
        for (size_t i = 0; i < 64 && !*caller; i++)
            if (code_map_is_user_code(ex->cfg->code, words[i]))
                *caller = words[i] - 1;
    return nr;
}

static const char *syscall_name(long nr)
{
    static const struct { long nr; const char *name; } names[] = {
        {SYS_read, "read"}, {SYS_write, "write"}, {SYS_readv, "readv"}, {SYS_writev, "writev"},
        {SYS_pread64, "pread"}, {SYS_pwrite64, "pwrite"}, {SYS_open, "open"}, {SYS_openat, "openat"},
        {SYS_poll, "poll"}, {SYS_ppoll, "ppoll"}, {SYS_select, "select"}, {SYS_pselect6, "pselect"},
        {SYS_epoll_wait, "epoll_wait"}, {SYS_epoll_pwait, "epoll_pwait"}, {SYS_accept, "accept"},
        {SYS_accept4, "accept4"}, {SYS_connect, "connect"}, {SYS_recvfrom, "recvfrom"}, {SYS_recvmsg, "recvmsg"},
        {SYS_sendto, "sendto"}, {SYS_sendmsg, "sendmsg"}, {SYS_wait4, "wait4"}, {SYS_waitid, "waitid"},
        {SYS_pause, "pause"}, {SYS_rt_sigsuspend, "sigsuspend"}, {SYS_rt_sigtimedwait, "sigtimedwait"},
        {SYS_flock, "flock"}, {SYS_fcntl, "fcntl"}, {SYS_msgrcv, "msgrcv"}, {SYS_semop, "semop"},
        {SYS_futex, "futex"}, {SYS_nanosleep, "nanosleep"}, {SYS_clock_nanosleep, "clock_nanosleep"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr)
            return names[i].name;
    return NULL;
}

void exec_report_hang(struct execution *ex, struct mthread *t)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_HANG;
    res->thread = t->id;
    double step_sec = (double)(monotonic_ns() - ex->step_started_ns) / 1e9;
    uint64_t caller;
    long nr = blocking_syscall(ex, t, &caller);
    /* Stop the runaway thread to see where it is. */
    int status;
    uint64_t saved = ex->deadline_ns;
    ex->deadline_ns = monotonic_ns() + 1000000000u;
    if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0 && exec_wait_thread(ex, t->tid, &status) > 0 &&
        WIFSTOPPED(status))
        tracee_get_regs(t->tid, &t->regs);
    ex->deadline_ns = saved;
    uint64_t pc = caller ? caller : code_map_is_user_code(ex->cfg->code, t->regs.rip) ? t->regs.rip : t->last_user_pc;
    char where[160];
    exec_format_code(ex, pc, where, sizeof where);
    locate(ex, pc);
    const char *call = nr >= 0 ? syscall_name(nr) : NULL;
    if (nr >= 0)
        snprintf(res->message, sizeof res->message,
                 "T%d has been blocked for %.0f s in the system call %s%s%ld%s at %s, and mdat cannot tell what "
                 "would complete it", t->id, step_sec, call ? call : "", call ? " (" : "", nr, call ? ")" : "", where);
    else
        snprintf(res->message, sizeof res->message,
                 "T%d ran for %.0f s without reaching a visible operation (a loop that touches no shared memory) "
                 "at %s", t->id, step_sec, where);
}

void exec_report_io_hang(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_HANG;
    for (int i = 0; i < ex->n_threads; i++) {
        struct mthread *t = &ex->threads[i];
        if (t->state != TS_BLOCKED || !t->io_wait)
            continue;
        char call[96], where[160];
        io_describe(ex->pid, t->sys_nr, t->sys_args, call, sizeof call);
        uint64_t pc = exec_user_frame_pc(ex, t, t->sys_caller ? t->sys_caller : t->last_user_pc);
        exec_format_code(ex, pc, where, sizeof where);
        locate_thread(ex, t, pc);
        res->thread = t->id;
        snprintf(res->message, sizeof res->message,
                 "no thread can run: T%d waits in %s at %s, and nothing completed it within %.0f s", t->id, call,
                 where, ex->cfg->timeout_sec);
        return;
    }
}

void exec_report_livelock(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_LIVELOCK;
    struct mthread *t = exec_thread_by_id(ex, ex->last_thread);
    if (t) {
        res->thread = t->id;
        locate_thread(ex, t, exec_user_frame_pc(ex, t, exec_user_pc(ex, t)));
    }
    char who[128] = "";
    size_t used = 0;
    int runnable = 0;
    for (int i = 0; i < ex->n_threads && used + 8 < sizeof who; i++)
        if (ex->threads[i].state == TS_RUNNABLE) {
            used += (size_t)snprintf(who + used, sizeof who - used, "%sT%d", runnable ? ", " : "", ex->threads[i].id);
            runnable++;
        }
    int n = snprintf(res->message, sizeof res->message,
                     "%s keep%s running without progress: for the last %" PRIu64 " steps the program only went "
                     "back to states it had been in, every thread that can run taking part", who,
                     runnable == 1 ? "s" : "", ex->livelock->quiet);
    uint64_t addr = t && ex->spin ? spin_watch_location(ex->spin, t) : 0;
    if (addr && n > 0 && (size_t)n < sizeof res->message) {
        char name[128] = "";
        if (ex->model_state)
            ex->model->name_data(ex->model_state, addr, name, sizeof name);
        if (name[0])
            snprintf(res->message + n, sizeof res->message - (size_t)n, " (T%d spins on %s)", t->id, name);
    }
}

void exec_report_spin_livelock(struct execution *ex, struct mthread *t)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_LIVELOCK;
    res->thread = t->id;
    locate_thread(ex, t, exec_user_frame_pc(ex, t, exec_user_pc(ex, t)));
    uint64_t addr = spin_watch_location(ex->spin, t);
    char name[128] = "";
    if (ex->model_state && addr)
        ex->model->name_data(ex->model_state, addr, name, sizeof name);
    if (!name[0])
        snprintf(name, sizeof name, "0x%" PRIx64, addr);
    int others = 0;
    for (int i = 0; i < ex->n_threads; i++)
        others += ex->threads[i].state == TS_RUNNABLE && ex->threads[i].id != t->id;
    snprintf(res->message, sizeof res->message,
             "T%d spins on %s, which no thread can change any more: %s", t->id, name,
             others ? "every other thread that can run spins too" : "every other thread has ended or is blocked");
}

void exec_note_incomplete(struct execution *ex, enum incomplete_reason why)
{
    struct exec_result *res = ex->res;
    res->incomplete = why;
    if (why == INCOMPLETE_STEPS)
        snprintf(res->message, sizeof res->message,
                 "the execution was still making progress after %" PRIu64 " steps (--max-steps); raise it to see "
                 "the end", ex->steps);
    else
        snprintf(res->message, sizeof res->message,
                 "the execution was still making progress after %.0f s and %" PRIu64 " steps (--time-limit); raise "
                 "it to see the end", ex->cfg->time_limit_sec, ex->steps);
}

void exec_snapshot_threads(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->threads = calloc((size_t)ex->n_threads + 1, sizeof *res->threads);
    if (!res->threads)
        abort();
    res->n_threads = ex->n_threads;
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *t = &ex->threads[i];
        struct failure_thread *ft = &res->threads[i];
        if (!ex->model_state) {
            ft->id = t->id;
            snprintf(ft->state, sizeof ft->state, "%s",
                     t->state == TS_EXITED ? "exited" : t->state == TS_BLOCKED ? "waiting-futex" : "ready");
            continue;
        }
        struct state_thread st;
        ex->model->describe_thread(ex->model_state, t, &st);
        ft->id = st.id;
        snprintf(ft->state, sizeof ft->state, "%s", thread_status_name(st.status));
        snprintf(ft->location, sizeof ft->location, "%s", st.location);
        snprintf(ft->waiting_on, sizeof ft->waiting_on, "%s", st.waiting_on);
        snprintf(ft->start, sizeof ft->start, "%s", st.start);
    }
}
