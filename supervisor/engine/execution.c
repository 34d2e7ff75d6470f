/* execution: the scheduling loop of one run and everything a ptrace stop means.
 *
 * Invariant: at most one thread of the program is running; every other thread
 * sits in a ptrace stop. A thread is stopped before its next visible operation
 * (a breakpoint on a user instruction that touches shared memory, or on a
 * modeled library entry), at an emulated syscall (futex, yield, sleep), or is
 * blocked in mdat's futex model. Running "a step" means: let the chosen thread
 * perform the operation it is stopped at and run on to its next one.
 *
 * Also here, because they are part of what a stop means: carrying out plain
 * loads, stores and pushes at a breakpoint instead of single-stepping them,
 * and signals sent to threads blocked in the model. Describing what happened
 * is exec_view.c's job, judging API use misuse.c's, the clock
 * virtual_clock.c's, following heap calls heap_calls.c's. */
#include "supervisor/engine/execution_internal.h"
#include "supervisor/engine/futex_model.h"
#include "supervisor/engine/proc_maps.h"
#include "supervisor/engine/spawn.h"
#include "supervisor/engine/tracee.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif
#ifndef CLONE_VM
#define CLONE_VM 0x00000100
#endif
#ifndef CLONE_CHILD_CLEARTID
#define CLONE_CHILD_CLEARTID 0x00200000
#endif
#ifndef CLONE_SETTLS
#define CLONE_SETTLS 0x00080000
#endif

/* What came of letting a thread run. */
enum run_outcome {
    RUN_CONTINUE,       /* an emulated syscall returned: the thread runs on */
    RUN_NEXT_OP,        /* stopped before its next visible operation */
    RUN_BLOCKED,        /* waiting in the futex model */
    RUN_THREAD_EXITED,
    RUN_PROCESS_EXITING,/* exit_group or fatal signal: the whole program ends */
    RUN_PROCESS_GONE,   /* the leader has been reaped */
    RUN_FAILED,         /* res->kind says what */
    RUN_ERROR,          /* mdat failed; res->error says why */
    RUN_TIMEOUT,
};

/* ---------- small helpers ---------- */

struct mthread *exec_thread_by_tid(struct execution *ex, pid_t tid)
{
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].tid == tid && ex->threads[i].state != TS_EXITED)
            return &ex->threads[i];
    return NULL;
}

int exec_thread_id_of_tid(struct execution *ex, pid_t tid)
{
    if (tid <= 0)
        return 0;
    const struct mthread *live = exec_thread_by_tid(ex, tid);
    if (live)
        return live->id;
    for (int i = ex->n_threads - 1; i >= 0; i--)
        if (ex->threads[i].tid == tid)
            return ex->threads[i].id;
    return 0;
}

struct mthread *exec_thread_by_id(struct execution *ex, int id)
{
    return id >= 1 && id <= ex->n_threads ? &ex->threads[id - 1] : NULL;
}

static struct mthread *add_thread(struct execution *ex, pid_t tid)
{
    if (ex->n_threads == ex->cap_threads) {
        ex->cap_threads = ex->cap_threads ? ex->cap_threads * 2 : 16;
        ex->threads = realloc(ex->threads, (size_t)ex->cap_threads * sizeof *ex->threads);
        if (!ex->threads)
            abort();
    }
    struct mthread *t = &ex->threads[ex->n_threads];
    memset(t, 0, sizeof *t);
    t->id = ++ex->n_threads;
    t->tid = tid;
    t->state = TS_RUNNABLE;
    t->stop = STOP_PLAIN;
    t->op = OP_START;
    ex->cfg->strategy->ops->thread_created(ex->cfg->strategy, t->id);
    return t;
}

static void set_error(struct execution *ex, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(struct execution *ex, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ex->res->error_message, sizeof ex->res->error_message, fmt, ap);
    va_end(ap);
    ex->res->error = true;
}

static bool is_passive(const struct execution *ex, pid_t tid)
{
    for (size_t i = 0; i < ex->n_passive; i++)
        if (ex->passive[i] == tid)
            return true;
    return false;
}

static void add_passive(struct execution *ex, pid_t tid)
{
    if (ex->n_passive == ex->cap_passive) {
        ex->cap_passive = ex->cap_passive ? ex->cap_passive * 2 : 8;
        ex->passive = realloc(ex->passive, ex->cap_passive * sizeof *ex->passive);
        if (!ex->passive)
            abort();
    }
    ex->passive[ex->n_passive++] = tid;
}

static void remove_passive(struct execution *ex, pid_t tid)
{
    for (size_t i = 0; i < ex->n_passive; i++) {
        if (ex->passive[i] == tid) {
            ex->passive[i] = ex->passive[--ex->n_passive];
            return;
        }
    }
}

static void enqueue(struct execution *ex, const struct tracee_event *ev)
{
    if (ex->n_queue == ex->cap_queue) {
        ex->cap_queue = ex->cap_queue ? ex->cap_queue * 2 : 16;
        ex->queue = realloc(ex->queue, ex->cap_queue * sizeof *ex->queue);
        if (!ex->queue)
            abort();
    }
    ex->queue[ex->n_queue++] = *ev;
}

static bool dequeue(struct execution *ex, pid_t tid, struct tracee_event *ev)
{
    for (size_t i = 0; i < ex->n_queue; i++) {
        if (ex->queue[i].tid == tid) {
            *ev = ex->queue[i];
            memmove(&ex->queue[i], &ex->queue[i + 1], (ex->n_queue - i - 1) * sizeof *ex->queue);
            ex->n_queue--;
            return true;
        }
    }
    return false;
}

static int stop_event(int status)
{
    return status >> 16;
}

static bool is_exit_status(int status)
{
    return WIFEXITED(status) || WIFSIGNALED(status);
}

/* ---------- trace events ---------- */

static void begin_event(struct execution *ex, struct mthread *t, struct trace_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->step = ex->steps + 1;
    ev->thread = t->id;
    ev->switched = ex->last_thread != 0 && ex->last_thread != t->id;
    ex->event_type = exec_describe_op(ex, t, ev);
}

static void finish_event(struct execution *ex, struct trace_event *ev)
{
    struct exec_result *res = ex->res;
    res->recent[res->n_events % EXEC_RECENT_EVENTS] = *ev;
    res->n_events++;
    if (ex->cfg->on_event)
        ex->cfg->on_event(ex->cfg->event_ctx, ev, ex->cfg->want_state ? exec_build_state(ex) : NULL);
}

/* ---------- waiting ---------- */

/* Handles a stop of a thread that belongs to a forked child: it runs free. */
static void passive_stop(struct execution *ex, const struct tracee_event *ev)
{
    if (is_exit_status(ev->status)) {
        remove_passive(ex, ev->tid);
        return;
    }
    int event = stop_event(ev->status), sig = WSTOPSIG(ev->status);
    int deliver = 0;
    if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
        unsigned long child = 0;
        ptrace(PTRACE_GETEVENTMSG, ev->tid, 0, &child);
        add_passive(ex, (pid_t)child);
        struct tracee_event early;
        while (dequeue(ex, (pid_t)child, &early))
            passive_stop(ex, &early);
    } else if (event == 0 && sig != SIGTRAP) {
        deliver = sig;
    }
    tracee_cont(ev->tid, deliver);
}

/* Waits for the next stop of tid, dealing with everyone else's meanwhile.
 * Returns 1, 0 on timeout, -1 when tid is gone without a word. */
static int wait_thread(struct execution *ex, pid_t tid, int *status)
{
    struct tracee_event ev;
    if (dequeue(ex, tid, &ev)) {
        *status = ev.status;
        return 1;
    }
    for (;;) {
        int r = tracee_wait_any(&ev, ex->deadline_ns);
        if (r <= 0)
            return r;
        ex->res->ptrace_stops++;
        if (ev.tid == tid) {
            *status = ev.status;
            return 1;
        }
        if (is_passive(ex, ev.tid))
            passive_stop(ex, &ev);
        else if (ev.tid == ex->pid && is_exit_status(ev.status)) {
            ex->leader_gone = true;
            ex->leader_status = ev.status;
        } else
            enqueue(ex, &ev);
    }
}

/* ---------- process end ---------- */

/* Lets every remaining thread die and reaps them all, children included. */
static void drain(struct execution *ex, bool kill_it)
{
    /* Without kill_it the program ends by itself (exit, or an exec'd image
     * running to its end): forked children are killed once the leader is gone. */
    if (kill_it && !ex->leader_gone) {
        kill(ex->pid, SIGKILL);
        for (size_t i = 0; i < ex->n_passive; i++)
            kill(ex->passive[i], SIGKILL);
    }
    if (ex->leader_gone)
        for (size_t i = 0; i < ex->n_passive; i++)
            kill(ex->passive[i], SIGKILL);
    uint64_t give_up = monotonic_ns() + 5000000000u;
    bool killed = kill_it;
    struct tracee_event ev;
    /* Stops queued earlier need resuming too, or the thread never dies. */
    for (size_t i = 0; i < ex->n_queue; i++)
        if (!is_exit_status(ex->queue[i].status))
            tracee_cont(ex->queue[i].tid, 0);
    ex->n_queue = 0;
    for (;;) {
        int r = tracee_wait_any(&ev, killed ? give_up : ex->deadline_ns);
        if (r < 0)
            break;
        if (r == 0) {
            if (killed)
                break;  /* should not happen: SIGKILL cannot be ignored */
            killed = true;
            give_up = monotonic_ns() + 5000000000u;
            kill(ex->pid, SIGKILL);
            for (size_t i = 0; i < ex->n_passive; i++)
                kill(ex->passive[i], SIGKILL);
            continue;
        }
        if (is_exit_status(ev.status)) {
            if (ev.tid == ex->pid) {
                ex->leader_gone = true;
                ex->leader_status = ev.status;
                for (size_t i = 0; i < ex->n_passive; i++)
                    kill(ex->passive[i], SIGKILL);
            }
            remove_passive(ex, ev.tid);
            continue;
        }
        if (is_passive(ex, ev.tid))
            passive_stop(ex, &ev);
        else
            tracee_cont(ev.tid, 0);
    }
}

/* ---------- futex emulation ---------- */

/* Makes the syscall the thread is stopped at return result without running it. */
static bool emulate_syscall(struct mthread *t, int64_t result)
{
    t->regs.orig_rax = (uint64_t)-1;
    t->regs.rax = (uint64_t)result;
    t->stop = STOP_PLAIN;
    return tracee_set_regs(t->tid, &t->regs);
}

static void wake_thread(struct execution *ex, struct mthread *w)
{
    futex_table_remove(&ex->futex, w->id);
    w->state = TS_RUNNABLE;
    w->op = OP_WOKEN;
    w->timed_wait = false;
}

/* The futex call returns result and the thread runs on. */
static enum run_outcome futex_returns(struct mthread *t, int64_t result)
{
    return emulate_syscall(t, result) ? RUN_CONTINUE : RUN_ERROR;
}

/* What t will do when it next runs, in machine terms. */
static void next_visible_op(const struct mthread *t, struct visible_op *op)
{
    *op = (struct visible_op){.kind = VIS_START, .fn = -1, .pc = t->regs.rip};
    switch (t->op) {
    case OP_START:
        break;
    case OP_ACCESS: {
        const struct x86_insn *in = &t->site->insn;
        bool rd = false, wr = false;
        for (int i = 0; i < in->n_mem; i++) {
            rd |= in->mem[i].read;
            wr |= in->mem[i].write;
        }
        op->atomic = (in->flags & X86_ATOMIC) != 0;
        op->kind = (rd && wr) || op->atomic ? VIS_UPDATE : wr ? VIS_WRITE : VIS_READ;
        op->addr = t->access_addr;
        op->size = t->access_size;
        break;
    }
    case OP_CALL:
        op->kind = t->fn == MF_THREAD_CREATE ? VIS_SPAWN : t->fn == MF_THREAD_JOIN ? VIS_JOIN : VIS_SYNC;
        op->fn = (int16_t)t->fn;
        op->addr = t->fn == MF_THREAD_CREATE ? 0 : t->call_arg[0];
        op->pc = t->call_site ? t->call_site - 1 : t->regs.rip;
        break;
    case OP_YIELD:
    case OP_SLEEP:
        op->kind = VIS_YIELD;
        break;
    case OP_WOKEN:
    case OP_TIMEDOUT:
    case OP_INTERRUPTED:
        op->kind = VIS_RESUME;
        break;
    }
}

/* Asks the strategy to pick among ids (threads to run, or waiters to wake)
 * and records the choice when there was more than one possibility. */
static size_t ask_strategy(struct execution *ex, char kind, const int *ids, const bool *yielded, size_t n)
{
    struct strategy *s = ex->cfg->strategy;
    struct visible_op ops_small[16], *ops = n <= 16 ? ops_small : malloc(n * sizeof *ops);
    if (!ops)
        abort();
    for (size_t i = 0; i < n; i++) {
        const struct mthread *t = exec_thread_by_id(ex, ids[i]);
        next_visible_op(t, &ops[i]);
        if (kind == CHOICE_WAKE) {
            const struct futex_waiter *w = futex_table_get(&ex->futex, t->id);
            ops[i] = (struct visible_op){.kind = VIS_RESUME, .fn = -1, .addr = w ? w->addr : 0, .size = 4};
        }
    }
    struct choice_point cp = {ex->steps, ids, yielded, n, ex->last_thread, ops, NULL, 0};
    if (kind == CHOICE_WAKE)
        cp.waker = ex->running;
    if (s->wants_state)
        cp.state = exec_build_state(ex);
    /* The time a strategy takes (a person at the keyboard) is not the
     * program's: the timeout clock stops meanwhile. */
    uint64_t asked = monotonic_ns();
    size_t pick = kind == CHOICE_THREAD ? s->ops->pick_thread(s, &cp) : s->ops->pick_waiter(s, &cp);
    if (ex->deadline_ns)
        ex->deadline_ns += monotonic_ns() - asked;
    if (pick >= n)
        pick = 0;
    if (ops != ops_small)
        free(ops);
    if (n > 1 && !s->diverged)
        choice_list_add(&ex->res->choices, ex->steps, kind, ids[pick]);
    return pick;
}

/* Wakes up to n waiters of addr; which ones, when there are more, is a choice. */
static int wake_waiters(struct execution *ex, uint64_t addr, uint32_t bitset, uint32_t n)
{
    int woken = 0;
    while ((uint32_t)woken < n) {
        int ids[256];
        bool yielded[256] = {false};
        size_t count = futex_table_find(&ex->futex, addr, bitset, ids, 256);
        if (count == 0)
            break;
        if (count > 256)
            count = 256;
        size_t pick = 0;
        if (count > n - (uint32_t)woken)
            pick = ask_strategy(ex, CHOICE_WAKE, ids, yielded, count);
        wake_thread(ex, exec_thread_by_id(ex, ids[pick]));
        woken++;
    }
    return woken;
}

static enum run_outcome handle_futex(struct execution *ex, struct mthread *t)
{
    struct futex_call fc;
    futex_decode(&t->regs, &fc);
    switch (fc.cmd) {
    case FUTEX_CMD_WAIT: {
        uint32_t value;
        if (!tracee_read(ex->mem_fd, fc.uaddr, &value, sizeof value))
            return futex_returns(t, -EFAULT);
        if (value != fc.val)
            return futex_returns(t, -EAGAIN);
        if (!emulate_syscall(t, 0))
            return RUN_ERROR;
        t->state = TS_BLOCKED;
        t->timed_wait = fc.timeout != 0;
        t->wait_seq = ++ex->wait_seq;
        futex_table_add(&ex->futex, t->id, fc.uaddr, fc.bitset, t->timed_wait);
        return RUN_BLOCKED;
    }
    case FUTEX_CMD_WAKE: {
        int woken = wake_waiters(ex, fc.uaddr, fc.bitset, fc.val);
        return futex_returns(t, woken);
    }
    case FUTEX_CMD_CMP_REQUEUE: {
        if (fc.check_val3) {
            uint32_t value;
            if (!tracee_read(ex->mem_fd, fc.uaddr, &value, sizeof value) || value != fc.val3)
                return futex_returns(t, -EAGAIN);
        }
        int woken = wake_waiters(ex, fc.uaddr, FUTEX_BITSET_MATCH_ANY, fc.val);
        int ids[256];
        size_t count = futex_table_find(&ex->futex, fc.uaddr, FUTEX_BITSET_MATCH_ANY, ids, 256);
        int moved = 0;
        for (size_t i = 0; i < count && i < 256 && (uint32_t)moved < fc.nr_requeue; i++, moved++)
            futex_table_move(&ex->futex, ids[i], fc.uaddr2);
        return futex_returns(t, woken + moved);
    }
    case FUTEX_CMD_UNSUPPORTED:
        break;
    }
    char where[128];
    exec_format_code(ex, t->last_user_pc, where, sizeof where);
    set_error(ex, "the program uses %s, which mdat does not model yet (T%d, last at %s)", futex_op_name(fc.raw_op),
              t->id, where);
    return RUN_ERROR;
}

/* ---------- stops ---------- */

static void note_stack(struct execution *ex, struct mthread *t)
{
    if (t->stack_hi && t->regs.rsp >= t->stack_lo && t->regs.rsp < t->stack_hi)
        return;
    struct proc_maps maps;
    if (!proc_maps_read(ex->pid, &maps))
        return;
    const struct proc_mapping *m = proc_maps_find(&maps, t->regs.rsp);
    if (m) {
        t->stack_lo = m->start;
        t->stack_hi = m->end;
    }
    proc_maps_free(&maps);
}

/* A breakpoint on a user instruction: visible unless every address it touches
 * is the thread's own stack (pointers to locals, at -O0 mostly). */
static bool site_is_visible(struct execution *ex, struct mthread *t, const struct code_site *site)
{
    const struct x86_insn *in = &site->insn;
    if (in->flags & X86_ATOMIC) {
        t->access_addr = in->n_mem ? x86_effective_address(in, 0, &t->regs) : 0;
        t->access_size = in->n_mem ? in->mem[0].size : 0;
        return true;
    }
    note_stack(ex, t);
    for (int i = 0; i < in->n_mem; i++) {
        uint64_t addr = x86_effective_address(in, i, &t->regs);
        /* 128 bytes below rsp is the red zone, still this thread's. */
        bool own_stack = addr >= t->stack_lo && addr < t->stack_hi;
        bool below_main_stack = addr + 65536 >= t->regs.rsp && addr < t->stack_hi;
        if (!own_stack && !below_main_stack) {
            t->access_addr = addr;
            t->access_size = in->mem[i].size;
            return true;
        }
    }
    return false;
}

/* The default action of sig kills the process, and the program neither
 * catches nor ignores it. */
static bool signal_is_fatal(struct execution *ex, pid_t tid, int sig)
{
    switch (sig) {
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return false;
    default:
        break;
    }
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return true;
    uint64_t caught = 0, ignored = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "SigCgt:", 7) == 0)
            caught = strtoull(line + 7, NULL, 16);
        else if (strncmp(line, "SigIgn:", 7) == 0)
            ignored = strtoull(line + 7, NULL, 16);
    }
    fclose(f);
    uint64_t bit = 1ull << (sig - 1);
    return !((caught | ignored) & bit);
}

static void report_crash(struct execution *ex, struct mthread *t, int sig)
{
    struct exec_result *res = ex->res;
    tracee_get_regs(t->tid, &t->regs);
    uint64_t pc = code_map_in_exe(ex->cfg->code, t->regs.rip) ? t->regs.rip : exec_user_pc(ex, t);
    res->thread = t->id;
    if (sig == SIGABRT && ex->assert_seen) {
        res->kind = FAIL_ASSERTION;
        res->thread = ex->assert_thread;
        snprintf(res->location, sizeof res->location, "%s", ex->assert_loc);
        snprintf(res->function, sizeof res->function, "%s", ex->assert_fn);
        snprintf(res->message, sizeof res->message, "T%d: %s", ex->assert_thread, ex->assert_text);
        return;
    }
    res->kind = FAIL_CRASH;
    char where[160];
    exec_format_code(ex, pc, where, sizeof where);
    exec_format_line(ex, pc, res->location, sizeof res->location);
    exec_format_function(ex, pc, res->function, sizeof res->function);
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

static void record_assert(struct execution *ex, struct mthread *t)
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
    snprintf(ex->assert_text, sizeof ex->assert_text, "assertion `%s' failed at %s:%u in %s()", expr, base,
             (unsigned)t->regs.rdx, func);
}

static void new_thread_from_clone(struct execution *ex, struct mthread *parent, pid_t child)
{
    uint64_t flags = 0, ctid = 0, tls = 0;
    if (parent->regs.orig_rax == SYS_clone3) {
        uint64_t args[8] = {0};
        tracee_read(ex->mem_fd, parent->regs.rdi, args, sizeof args);
        flags = args[0];
        ctid = args[2];
        tls = args[7];
    } else {
        flags = parent->regs.rdi;
        ctid = parent->regs.r10;
        tls = parent->regs.r8;
    }
    if (!(flags & CLONE_THREAD)) {
        add_passive(ex, child);
        struct tracee_event early;
        while (dequeue(ex, child, &early))
            passive_stop(ex, &early);
        return;
    }
    /* add_thread may move the thread array: parent is not used after it. */
    struct mthread *t = add_thread(ex, child);
    t->ctid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
    t->tls = (flags & CLONE_SETTLS) ? tls : 0;
}

static void new_process(struct execution *ex, pid_t child, bool shares_memory)
{
    if (!shares_memory) {
        int fd = tracee_open_mem(child);
        if (fd >= 0) {
            code_map_unplant(ex->cfg->code, fd);
            for (size_t i = 0; i < ex->n_ret_bps; i++)
                tracee_write(fd, ex->ret_bps[i].addr, &ex->ret_bps[i].orig, 1);
            close(fd);
        }
    }
    add_passive(ex, child);
    struct tracee_event early;
    while (dequeue(ex, child, &early))
        passive_stop(ex, &early);
}

/* Resumes t from its current stop; for a breakpoint, first executes the
 * original instruction under single-step. Returns the status of the stop
 * that ends the resumption through *status. */
/* Emulated accesses go through the program's own page protections. */
static bool read_memory(void *ctx, uint64_t addr, void *buf, size_t n)
{
    return tracee_read_as_program(((struct execution *)ctx)->pid, addr, buf, n);
}

static bool write_memory(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    return tracee_write_as_program(((struct execution *)ctx)->pid, addr, buf, n);
}

/* Performs the instruction t is stopped at in its place when it is a plain
 * load, store, register set or push, sparing the single-step: one ptrace
 * stop per breakpoint instead of two. The memory is reached with the
 * program's own rights, so an access the CPU would fault on fails here too
 * and is left to the CPU. */
static bool emulate_at_breakpoint(struct execution *ex, struct mthread *t)
{
    const struct x86_insn *in = t->bp_insn;
    if (!in || in->emulation == X86_EMU_NONE)
        return false;
    struct x86_memory mem = {read_memory, write_memory, ex};
    struct user_regs_struct regs = t->regs;
    if (!x86_emulate(in, &regs, &mem) || !tracee_set_regs(t->tid, &regs))
        return false;
    t->regs = regs;
    return true;
}

static int resume(struct execution *ex, struct mthread *t, bool first_op, int *status)
{
    if (t->stop == STOP_BREAKPOINT && emulate_at_breakpoint(ex, t)) {
        t->stop = STOP_PLAIN;
        if (first_op)
            exec_note_written_value(ex, t);
    }
    if (t->stop == STOP_BREAKPOINT) {
        uint64_t at = t->regs.rip;
        static const uint8_t int3 = 0xcc;
        if (!tracee_write(ex->mem_fd, at, &t->bp_orig, 1) || !tracee_step(t->tid, 0))
            return -1;
        int r = wait_thread(ex, t->tid, status);
        tracee_write(ex->mem_fd, at, &int3, 1);
        if (r <= 0)
            return r;
        t->stop = STOP_PLAIN;
        if (!(WIFSTOPPED(*status) && WSTOPSIG(*status) == SIGTRAP && stop_event(*status) == 0)) {
            /* A signal came first: its handler runs, then the thread is back
             * at this breakpoint with the operation still to do. */
            struct user_regs_struct now;
            if (first_op && WIFSTOPPED(*status) && stop_event(*status) == 0 && tracee_get_regs(t->tid, &now) &&
                now.rip == at)
                t->interrupted_by = WSTOPSIG(*status);
            return 1;   /* the instruction faulted, or the thread was killed: the caller looks */
        }
        if (first_op)
            exec_note_written_value(ex, t);
    }
    if (!tracee_cont(t->tid, 0))
        return -1;
    return wait_thread(ex, t->tid, status);
}

/* Runs t from where it is stopped to its next visible operation (or until it
 * blocks, exits, or the program ends). */
static enum run_outcome run_thread(struct execution *ex, struct mthread *t)
{
    int status;
    bool first = true;
    for (;;) {
        int r = resume(ex, t, first, &status);
        first = false;
        if (r == 0)
            return RUN_TIMEOUT;
        if (r < 0) {
            if (ex->leader_gone)
                return RUN_PROCESS_GONE;
            set_error(ex, "lost track of T%d (tid %d): %s", t->id, (int)t->tid, strerror(errno));
            return RUN_ERROR;
        }
    again:
        if (is_exit_status(status)) {
            t->state = TS_EXITED;
            if (t->tid == ex->pid) {
                ex->leader_gone = true;
                ex->leader_status = status;
                return RUN_PROCESS_GONE;
            }
            return RUN_THREAD_EXITED;
        }
        int sig = WSTOPSIG(status), event = stop_event(status);
        if (event == 0 || event == PTRACE_EVENT_STOP || event == PTRACE_EVENT_SECCOMP ||
            event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_EXIT)
            tracee_get_regs(t->tid, &t->regs);
        switch (event) {
        case PTRACE_EVENT_SECCOMP:
            switch ((long)t->regs.orig_rax) {
            case SYS_futex: {
                enum run_outcome o = handle_futex(ex, t);
                if (o == RUN_CONTINUE)
                    continue;
                return o;
            }
            case SYS_kill:
            case SYS_tkill:
            case SYS_tgkill:
            case SYS_rt_sigqueueinfo:
            case SYS_rt_tgsigqueueinfo:
                /* The kernel sends it; blocked threads are looked at before
                 * the next step (interrupt_signalled_waits). */
                ex->signal_sent = true;
                continue;
            case SYS_sched_yield:
            case SYS_nanosleep:
            case SYS_clock_nanosleep:
                if (t->regs.orig_rax != SYS_sched_yield)
                    exec_clock_sleeps(ex, t);
                t->op = t->regs.orig_rax == SYS_sched_yield ? OP_YIELD : OP_SLEEP;
                t->yielded = true;
                return emulate_syscall(t, 0) ? RUN_NEXT_OP : RUN_ERROR;
            default:
                set_error(ex, "the program uses system call %ld, which mdat does not model yet",
                          (long)t->regs.orig_rax);
                return RUN_ERROR;
            }
        case PTRACE_EVENT_CLONE:
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK: {
            unsigned long child = 0;
            ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &child);
            int id = t->id;
            if (event == PTRACE_EVENT_CLONE) {
                new_thread_from_clone(ex, t, (pid_t)child);
                t = exec_thread_by_id(ex, id);
                struct mthread *nt = exec_thread_by_tid(ex, (pid_t)child);
                if (nt) {
                    nt->start_routine = t->pending_start;
                    /* Consume the new thread's initial stop now, so that it
                     * is a quiet, stopped thread like every other. */
                    int st;
                    if (wait_thread(ex, nt->tid, &st) <= 0 || !WIFSTOPPED(st)) {
                        if (ex->leader_gone)
                            return RUN_PROCESS_GONE;
                        set_error(ex, "new thread %d did not stop", (int)child);
                        return RUN_ERROR;
                    }
                }
            } else {
                new_process(ex, (pid_t)child, event == PTRACE_EVENT_VFORK);
            }
            continue;
        }
        case PTRACE_EVENT_EXEC:
            /* exec replaces the program mdat was scheduling: from here on it runs
             * on its own, as a forked child does. */
            add_passive(ex, t->tid);
            tracee_cont(t->tid, 0);
            return RUN_PROCESS_EXITING;
        case PTRACE_EVENT_EXIT: {
            if ((long)t->regs.orig_rax == SYS_exit) {
                t->state = TS_EXITED;
                tracee_cont(t->tid, 0);
                if (t->tid != ex->pid) {
                    int st;
                    int w = wait_thread(ex, t->tid, &st);
                    if (w > 0 && !is_exit_status(st)) {
                        status = st;    /* killed by a process exit racing with ours */
                        tracee_cont(t->tid, 0);
                    }
                }
                /* The kernel cleared the tid word and woke its real
                 * waiters; ours wait in the model (pthread_join). */
                if (t->ctid)
                    wake_waiters(ex, t->ctid, FUTEX_BITSET_MATCH_ANY, UINT32_MAX);
                return RUN_THREAD_EXITED;
            }
            /* exit_group: the memory stays readable while this thread is
             * held here, so the last step's state can still be shown; the
             * loop lets it go once the step is reported. */
            ex->held_at_exit = t->tid;
            return RUN_PROCESS_EXITING;
        }
        case PTRACE_EVENT_STOP:
            continue;
        case 0:
            break;
        default:
            continue;
        }
        /* A signal-delivery stop. */
        if (sig == SIGTRAP) {
            struct breakpoint_hit hit;
            uint64_t at = t->regs.rip - 1;
            if ((t->heap_ret || ex->n_ret_bps) && exec_heap_return(ex, t, at))
                continue;
            if (code_map_lookup(ex->cfg->code, at, &hit)) {
                t->regs.rip = at;
                tracee_set_regs(t->tid, &t->regs);
                t->stop = STOP_BREAKPOINT;
                t->bp_orig = hit.orig;
                t->bp_insn = hit.insn;
                switch (hit.kind) {
                case BP_ENTRY: {
                    char err[256];
                    if (!code_map_plant_libs(ex->cfg->code, ex->pid, ex->mem_fd, err, sizeof err)) {
                        set_error(ex, "%s", err);
                        return RUN_ERROR;
                    }
                    t->stop = STOP_PLAIN;   /* the original byte is back for good */
                    continue;
                }
                case BP_SITE:
                    t->in_call = false;
                    t->last_user_pc = at;
                    if (!site_is_visible(ex, t, hit.site))
                        continue;
                    t->op = OP_ACCESS;
                    t->site = hit.site;
                    return RUN_NEXT_OP;
                case BP_MODEL: {
                    uint64_t ret = 0;
                    tracee_read(ex->mem_fd, t->regs.rsp, &ret, sizeof ret);
                    if (hit.fn == MF_ASSERT_FAIL) {
                        t->last_user_pc = ret - 1;
                        record_assert(ex, t);
                        continue;
                    }
                    bool from_user = code_map_is_user_code(ex->cfg->code, ret);
                    if (model_fn_is_clock(hit.fn) && exec_answer_clock(ex, t, hit.fn, ret))
                        continue;
                    if (model_fn_is_heap(hit.fn)) {
                        if (from_user) {
                            t->in_call = false;
                            exec_heap_call(ex, t, hit.fn, ret);
                        }
                        continue;
                    }
                    if (!model_fn_is_scheduling_point(hit.fn)) {
                        /* init and destroy: observed, and judged, on the spot. */
                        if (!from_user)
                            continue;
                        exec_register_call_objects(ex, t, hit.fn, t->regs.rdi, t->regs.rsi);
                        t->in_call = false;     /* user code called: any earlier call has returned */
                        t->last_user_pc = ret - 1;
                        if (exec_check_misuse(ex, t, hit.fn, t->regs.rdi, t->regs.rsi))
                            return RUN_FAILED;
                        continue;
                    }
                    if (hit.fn == MF_THREAD_CREATE)
                        t->pending_start = t->regs.rdx;
                    if (!from_user) {
                        /* Called by library code (ld.so, libstdc++): part of
                         * that library's step, not a scheduling point. Keep
                         * the user's call as the context if there is one. */
                        if (!t->in_call) {
                            t->call_fn = hit.fn;
                            t->call_arg[0] = t->regs.rdi;
                            t->call_arg[1] = t->regs.rsi;
                            t->in_call = true;
                            t->call_site = 0;
                        }
                        continue;
                    }
                    exec_register_call_objects(ex, t, hit.fn, t->regs.rdi, t->regs.rsi);
                    t->in_call = true;
                    t->call_fn = hit.fn;
                    t->call_arg[0] = t->regs.rdi;
                    t->call_arg[1] = t->regs.rsi;
                    t->call_site = ret;
                    t->last_user_pc = ret - 1;
                    t->op = OP_CALL;
                    t->fn = hit.fn;
                    return RUN_NEXT_OP;
                }
                case BP_NONE:
                    break;
                }
            }
        }
        if (!signal_is_fatal(ex, t->tid, sig)) {
            if (!tracee_cont(t->tid, sig))
                return RUN_ERROR;
            int w = wait_thread(ex, t->tid, &status);
            if (w == 0)
                return RUN_TIMEOUT;
            if (w < 0)
                return ex->leader_gone ? RUN_PROCESS_GONE : RUN_ERROR;
            goto again;
        }
        report_crash(ex, t, sig);
        return RUN_FAILED;
    }
}

/* ---------- reports ---------- */

static void snapshot_threads(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->threads = calloc((size_t)ex->n_threads + 1, sizeof *res->threads);
    res->n_threads = ex->n_threads;
    for (int i = 0; i < ex->n_threads; i++) {
        struct state_thread st;
        exec_describe_thread(ex, &ex->threads[i], &st);
        struct failure_thread *ft = &res->threads[i];
        ft->id = st.id;
        snprintf(ft->state, sizeof ft->state, "%s", thread_status_name(st.status));
        snprintf(ft->location, sizeof ft->location, "%s", st.location);
        snprintf(ft->waiting_on, sizeof ft->waiting_on, "%s", st.waiting_on);
        snprintf(ft->start, sizeof ft->start, "%s", st.start);
    }
}

static void report_deadlock(struct execution *ex)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_DEADLOCK;
    /* Each blocked thread waits for at most one other: follow the edges from
     * every thread; a thread seen twice on one walk closes a cycle. */
    int n = ex->n_threads;
    int *next = calloc((size_t)n + 1, sizeof *next);
    char first_wait[200] = "";
    int first_blocked = 0;
    for (int i = 0; i < n; i++) {
        struct mthread *t = &ex->threads[i];
        if (t->state != TS_BLOCKED)
            continue;
        char buf[200];
        exec_describe_wait(ex, t, buf, sizeof buf, &next[t->id]);
        if (!first_blocked) {
            first_blocked = t->id;
            snprintf(first_wait, sizeof first_wait, "%s", buf);
        }
    }
    char cycle[256] = "";
    for (int start = 1; start <= n && !cycle[0]; start++) {
        int *seen = calloc((size_t)n + 1, sizeof *seen);
        int cur = start, k = 1;
        while (cur && !seen[cur]) {
            seen[cur] = k++;
            cur = next[cur];
        }
        if (cur) {
            int c = cur;
            size_t len = 0;
            do {
                len += (size_t)snprintf(cycle + len, sizeof cycle - len, "T%d -> ", c);
                c = next[c];
            } while (c != cur && len < sizeof cycle - 16);
            snprintf(cycle + len, sizeof cycle - len, "T%d", cur);
        }
        free(seen);
    }
    int blocked = 0;
    for (int i = 0; i < n; i++)
        blocked += ex->threads[i].state == TS_BLOCKED;
    struct mthread *t = exec_thread_by_id(ex, first_blocked);
    res->thread = first_blocked;
    if (t) {
        exec_format_line(ex, exec_user_pc(ex, t), res->location, sizeof res->location);
        exec_format_function(ex, exec_user_pc(ex, t), res->function, sizeof res->function);
    }
    if (cycle[0])
        snprintf(res->message, sizeof res->message, "%d thread%s blocked, none can run; wait cycle %s", blocked,
                 blocked == 1 ? "" : "s", cycle);
    else
        snprintf(res->message, sizeof res->message, "%d thread%s blocked, none can run; T%d waits on %s", blocked,
                 blocked == 1 ? "" : "s", first_blocked, first_wait);
    free(next);
}

static void report_timeout(struct execution *ex, struct mthread *t)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_TIMEOUT;
    res->thread = t ? t->id : 0;
    if (!t) {
        snprintf(res->message, sizeof res->message, "the execution took longer than %.0f s", ex->cfg->timeout_sec);
        return;
    }
    /* Stop the runaway thread to see where it is. */
    int status;
    uint64_t saved = ex->deadline_ns;
    ex->deadline_ns = monotonic_ns() + 1000000000u;
    if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0 && wait_thread(ex, t->tid, &status) > 0 && WIFSTOPPED(status))
        tracee_get_regs(t->tid, &t->regs);
    ex->deadline_ns = saved;
    uint64_t pc = code_map_in_exe(ex->cfg->code, t->regs.rip) ? t->regs.rip : t->last_user_pc;
    char where[160];
    exec_format_code(ex, pc, where, sizeof where);
    exec_format_line(ex, pc, res->location, sizeof res->location);
    exec_format_function(ex, pc, res->function, sizeof res->function);
    /* The limit is the execution's: whether this thread used it up alone
     * or the whole run was slow decides what to say. */
    double step_sec = (double)(monotonic_ns() - ex->step_started_ns) / 1e9;
    if (step_sec >= 0.9 * ex->cfg->timeout_sec)
        snprintf(res->message, sizeof res->message,
                 "T%d ran for %.0f s without reaching a visible operation (spinning or blocked in the kernel) at %s",
                 t->id, step_sec, where);
    else
        snprintf(res->message, sizeof res->message,
                 "the execution took longer than %.0f s (after %" PRIu64 " steps; its last step, T%d at %s, ran %.1f s)",
                 ex->cfg->timeout_sec, ex->steps, t->id, where, step_sec);
}

/* ---------- the scheduling loop ---------- */

/* What came of the step, for its trace event. */
static void describe_outcome(struct execution *ex, struct mthread *t, enum run_outcome o, struct trace_event *ev)
{
    if (t->interrupted_by && o == RUN_NEXT_OP) {
        const char *name = sigabbrev_np(t->interrupted_by);
        snprintf(ev->outcome, sizeof ev->outcome, "SIG%s came first: its handler runs, the operation is still to do",
                 name ? name : "?");
        return;
    }
    switch (o) {
    case RUN_CONTINUE:  /* run_thread never returns it */
    case RUN_NEXT_OP:
    case RUN_ERROR:
        break;
    case RUN_BLOCKED: {
        int holder;
        char what[200];
        exec_describe_wait(ex, t, what, sizeof what, &holder);
        snprintf(ev->outcome, sizeof ev->outcome, "blocks on %s", what);
        break;
    }
    case RUN_THREAD_EXITED:
        snprintf(ev->outcome, sizeof ev->outcome, "exits");
        break;
    case RUN_PROCESS_EXITING:
    case RUN_PROCESS_GONE:
        snprintf(ev->outcome, sizeof ev->outcome, "program ends");
        break;
    case RUN_FAILED:
        snprintf(ev->outcome, sizeof ev->outcome, "%s", ex->res->message);
        break;
    case RUN_TIMEOUT:
        snprintf(ev->outcome, sizeof ev->outcome, "does not come back (timeout)");
        break;
    }
}

/* Signal sets of a thread, from /proc: pending for it, pending for the
 * whole process, and blocked. */
static bool signal_sets(struct execution *ex, pid_t tid, uint64_t *own, uint64_t *shared, uint64_t *blocked)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)ex->pid, (int)tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    *own = *shared = *blocked = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "SigPnd:", 7) == 0)
            *own = strtoull(line + 7, NULL, 16);
        else if (strncmp(line, "ShdPnd:", 7) == 0)
            *shared = strtoull(line + 7, NULL, 16);
        else if (strncmp(line, "SigBlk:", 7) == 0)
            *blocked = strtoull(line + 7, NULL, 16);
    }
    fclose(f);
    return true;
}

/* A signal sent to a thread blocked in mdat's model interrupts its wait, as
 * the kernel would: the futex call returns EINTR and the signal is
 * delivered when the thread next runs. A signal for the whole process does
 * so only when no thread can run to take it. */
static void interrupt_signalled_waits(struct execution *ex)
{
    ex->signal_sent = false;
    bool any_runnable = false;
    for (int i = 0; i < ex->n_threads; i++)
        any_runnable |= ex->threads[i].state == TS_RUNNABLE;
    for (int i = 0; i < ex->n_threads; i++) {
        struct mthread *t = &ex->threads[i];
        uint64_t own, shared, blocked;
        if (t->state != TS_BLOCKED || !signal_sets(ex, t->tid, &own, &shared, &blocked))
            continue;
        if (!(own & ~blocked) && (any_runnable || !(shared & ~blocked)))
            continue;
        wake_thread(ex, t);
        t->op = OP_INTERRUPTED;
        t->regs.rax = (uint64_t)-EINTR;
        tracee_set_regs(t->tid, &t->regs);
        any_runnable = true;
    }
}

static void pick_timeout_waiter(struct execution *ex, int *ids, bool *yielded, size_t n)
{
    size_t pick = n > 1 ? ask_strategy(ex, CHOICE_THREAD, ids, yielded, n) : 0;
    struct mthread *t = exec_thread_by_id(ex, ids[pick]);
    wake_thread(ex, t);
    t->op = OP_TIMEDOUT;
    t->regs.rax = (uint64_t)-ETIMEDOUT;
    tracee_set_regs(t->tid, &t->regs);
}

static bool schedule_loop(struct execution *ex)
{
    const struct exec_config *cfg = ex->cfg;
    struct exec_result *res = ex->res;
    int *ids = malloc(sizeof(int) * 16);
    bool *yielded = malloc(sizeof(bool) * 16);
    int cap = 16;
    bool ok = true;
    for (;;) {
        if (ex->signal_sent)
            interrupt_signalled_waits(ex);
        if (ex->n_threads > cap) {
            cap = ex->n_threads * 2;
            ids = realloc(ids, sizeof(int) * (size_t)cap);
            yielded = realloc(yielded, sizeof(bool) * (size_t)cap);
        }
        size_t n = 0, n_blocked = 0, n_timed = 0;
        for (int i = 0; i < ex->n_threads; i++) {
            struct mthread *t = &ex->threads[i];
            if (t->state == TS_RUNNABLE) {
                ids[n] = t->id;
                yielded[n] = t->yielded;
                n++;
            } else if (t->state == TS_BLOCKED) {
                n_blocked++;
                n_timed += t->timed_wait;
            }
        }
        if (n == 0 && n_timed > 0) {
            /* Time only passes when nobody can run: one timed wait expires. */
            size_t k = 0;
            for (int i = 0; i < ex->n_threads; i++)
                if (ex->threads[i].state == TS_BLOCKED && ex->threads[i].timed_wait) {
                    ids[k] = ex->threads[i].id;
                    yielded[k++] = false;
                }
            pick_timeout_waiter(ex, ids, yielded, k);
            continue;
        }
        if (n == 0) {
            if (n_blocked > 0) {
                report_deadlock(ex);
                snapshot_threads(ex);
                drain(ex, true);
            } else {
                drain(ex, false);   /* every thread has exited; the leader is a zombie */
            }
            break;
        }
        if (ex->steps >= cfg->max_steps) {
            res->kind = FAIL_STEP_LIMIT;
            struct mthread *t = exec_thread_by_id(ex, ex->last_thread);
            if (t) {
                res->thread = t->id;
                exec_format_line(ex, exec_user_pc(ex, t), res->location, sizeof res->location);
                exec_format_function(ex, exec_user_pc(ex, t), res->function, sizeof res->function);
            }
            snprintf(res->message, sizeof res->message,
                     "more than %" PRIu64 " visible steps: livelock or a thread spinning on shared memory",
                     cfg->max_steps);
            snapshot_threads(ex);
            drain(ex, true);
            break;
        }
        size_t pick = 0;
        if (n > 1 || cfg->strategy->every_step) {
            pick = ask_strategy(ex, CHOICE_THREAD, ids, yielded, n);
            if (cfg->strategy->diverged) {
                set_error(ex, "replay diverged: %s", cfg->strategy->divergence);
                drain(ex, true);
                ok = false;
                break;
            }
            if (cfg->strategy->stop) {
                res->stopped = true;
                drain(ex, true);
                break;
            }
        }
        struct mthread *t = exec_thread_by_id(ex, ids[pick]);
        t->yielded = false;
        struct trace_event ev;
        if (ex->describe) {
            begin_event(ex, t, &ev);
            ex->event = &ev;
        }
        int id = t->id;
        ex->running = id;
        ex->step_started_ns = monotonic_ns();
        enum run_outcome o;
        if (t->op == OP_CALL && exec_check_misuse(ex, t, t->fn, t->call_arg[0], t->call_arg[1]))
            o = RUN_FAILED;     /* judged before the call runs: the thread stays where it is */
        else
            o = run_thread(ex, t);
        t = exec_thread_by_id(ex, id);
        ex->event = NULL;
        if (cfg->strategy->diverged) {
            set_error(ex, "replay diverged: %s", cfg->strategy->divergence);
            drain(ex, true);
            ok = false;
            break;
        }
        ex->steps++;
        ex->last_thread = id;
        if (ex->describe) {
            describe_outcome(ex, t, o, &ev);
            finish_event(ex, &ev);
        }
        t->interrupted_by = 0;
        if (ex->held_at_exit) {
            tracee_cont(ex->held_at_exit, 0);
            ex->held_at_exit = 0;
        }
        if (o == RUN_NEXT_OP || o == RUN_BLOCKED || o == RUN_THREAD_EXITED)
            continue;
        if (o == RUN_PROCESS_EXITING || o == RUN_PROCESS_GONE) {
            drain(ex, false);
            break;
        }
        if (o == RUN_FAILED) {
            snapshot_threads(ex);
            drain(ex, true);
            break;
        }
        if (o == RUN_TIMEOUT) {
            report_timeout(ex, t);
            snapshot_threads(ex);
            drain(ex, true);
            break;
        }
        drain(ex, true);
        ok = false;
        break;
    }
    free(ids);
    free(yielded);
    return ok;
}

bool execution_run(const struct exec_config *cfg, struct exec_result *res)
{
    memset(res, 0, sizeof *res);
        struct execution ex = {.cfg = cfg, .res = res, .mem_fd = -1};
    ex.describe = cfg->on_event != NULL || cfg->want_state || cfg->describe_events || cfg->strategy->wants_state;
    cfg->strategy->diverged = false;
    cfg->strategy->ops->begin(cfg->strategy, cfg->exec_seed, cfg->estimated_steps);
    tracee_block_sigchld();

    char err[256];
    struct spawn_request req = {cfg->path, cfg->argv, cfg->stdin_fd, cfg->stdout_fd, cfg->stderr_fd};
    ex.pid = spawn_traced(&req, err, sizeof err);
    if (ex.pid < 0) {
        set_error(&ex, "%s", err);
        return false;
    }
    ex.deadline_ns = cfg->timeout_sec > 0 ? monotonic_ns() + (uint64_t)(cfg->timeout_sec * 1e9) : 0;
    ex.mem_fd = tracee_open_mem(ex.pid);
    bool ok = ex.mem_fd >= 0;
    if (!ok)
        set_error(&ex, "cannot open /proc/%d/mem: %s", (int)ex.pid, strerror(errno));
    if (ok && !code_map_plant_exe(cfg->code, ex.pid, ex.mem_fd, ex.describe, err, sizeof err)) {
        set_error(&ex, "%s", err);
        ok = false;
    }
    if (ok) {
        if (ex.describe)
            exec_register_declared_objects(&ex);
        add_thread(&ex, ex.pid);
        ok = schedule_loop(&ex);
    } else {
        drain(&ex, true);
    }
    res->steps = ex.steps;
    if (ex.leader_gone) {
        res->exited = WIFEXITED(ex.leader_status);
        res->exit_status = WIFEXITED(ex.leader_status) ? WEXITSTATUS(ex.leader_status) : 128 + WTERMSIG(ex.leader_status);
        res->term_signal = WIFSIGNALED(ex.leader_status) ? WTERMSIG(ex.leader_status) : 0;
        if (ok && res->kind == FAIL_NONE && WIFSIGNALED(ex.leader_status)) {
            /* Killed from outside (a fatal signal mdat did not see delivered). */
            res->kind = FAIL_CRASH;
            snprintf(res->message, sizeof res->message, "the program was killed by signal %d",
                     WTERMSIG(ex.leader_status));
        }
    }
    if (ex.mem_fd >= 0)
        close(ex.mem_fd);
    free(ex.threads);
    free(ex.queue);
    free(ex.passive);
    futex_table_free(&ex.futex);
    exec_view_free(&ex);
    return ok && !res->error;
}

void exec_result_free(struct exec_result *res)
{
    free(res->threads);
    res->threads = NULL;
    choice_list_free(&res->choices);
}

int exec_result_recent(const struct exec_result *res, const struct trace_event **out, int max)
{
    uint64_t n = res->n_events < EXEC_RECENT_EVENTS ? res->n_events : EXEC_RECENT_EVENTS;
    if ((uint64_t)max < n)
        n = (uint64_t)max;
    for (uint64_t i = 0; i < n; i++)
        out[i] = &res->recent[(res->n_events - n + i) % EXEC_RECENT_EVENTS];
    return (int)n;
}
