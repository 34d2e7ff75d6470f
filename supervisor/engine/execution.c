/* execution: the scheduling loop of one run, from spawn to the end.
 *
 * Invariant: at most one thread of the program is running; every other
 * thread sits in a ptrace stop. A thread is stopped before its next visible
 * operation (a breakpoint on a user instruction that touches shared memory,
 * or on a modeled library entry), at an emulated syscall (futex, yield,
 * sleep), or is blocked in mdat's futex model. At every step the loop asks
 * the strategy which runnable thread goes (when there is a choice), lets it
 * run one step (exec_stops.c), tells the trace, the model and the listeners
 * what happened, and decides whether the execution is over: every thread
 * gone, a deadlock, a failure, the step limit or the wall-clock limit. */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_grounds.h"
#include "supervisor/engine/exec_pages.h"
#include "supervisor/engine/exec_tso.h"
#include "supervisor/launch/exec_template.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/pkru.h"
#include "supervisor/process/proc_stat.h"
#include "supervisor/launch/spawn.h"
#include "supervisor/engine/spin_watch.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------- what a thread will do next, in machine terms ---------- */

static void next_visible_op(const struct mthread *t, struct visible_op *op)
{
    *op = (struct visible_op){.kind = VIS_START, .fn = -1, .pc = t->regs.rip};
    switch (t->op) {
    case OP_START:
        op->addr = t->start_routine;
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
        if (x86_is_split_rmw(in))
            op->kind = t->rmw_loaded ? VIS_WRITE : VIS_READ;   /* two steps, as on hardware */
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
        /* Back from a modeled call's wait, the call goes on with its object:
         * it takes the lock, the semaphore's count, the condition
         * variable's mutex again. */
        op->kind = VIS_RESUME;
        if (t->in_call)
            op->addr = t->call_fn == MF_COND_WAIT || t->call_fn == MF_COND_TIMEDWAIT ? t->call_arg[1] : t->call_arg[0];
        break;
    case OP_EXIT:
        op->kind = VIS_EXIT;
        break;
    case OP_SYSCALL:
        /* Calls on one descriptor (or on the children) conflict. */
        op->kind = VIS_IO;
        op->addr = (1ull << 63) | (t->sys_nr == SYS_wait4 || t->sys_nr == SYS_waitid ? 0xffffu : (t->sys_args[0] & 0xffffu));
        break;
    }
}

/* ---------- choices ---------- */

/* from_view: the candidates are the runnable view; the choice is numbered
 * and its changes go along (then start again). */
/* The candidates a choice left out because they spin, for a strategy that
 * sees them (strategy.sees_spinners). */
struct spinners_left_out {
    const int *ids;
    const uint32_t *steps;
    size_t n;
};

static size_t ask_among(struct execution *ex, char kind, const int *ids, const bool *yielded, size_t n,
                        bool from_view, size_t all, const struct spinners_left_out *spun, const bool *spinning)
{
    struct strategy *s = ex->cfg->strategy;
    struct visible_op ops_small[16], *ops = NULL;
    if (s->wants_ops) {
        ops = n <= 16 ? ops_small : malloc(n * sizeof *ops);
        if (!ops)
            abort();
    }
    /* The waiters a wake chooses among all wait on one futex: looked up
     * once, not once per waiter (quadratic with hundreds of threads). */
    uint64_t wake_addr = 0;
    if (ops && kind == CHOICE_WAKE && n > 0) {
        const struct futex_waiter *w = futex_table_get(&ex->futex, ids[0]);
        wake_addr = w ? w->addr : 0;
    }
    for (size_t i = 0; ops && i < n; i++) {
        if (ids[i] < 0) {
            /* "flush T": the oldest pending store of T reaches memory. */
            const struct pending_store *e = store_buffers_oldest(ex->tso, -ids[i]);
            ops[i] = (struct visible_op){.kind = VIS_WRITE, .fn = -1, .addr = e ? e->addr : 0, .size = e ? e->size : 0,
                                         .pc = e ? e->pc : 0};
            continue;
        }
        if (kind == CHOICE_WAKE) {
            ops[i] = (struct visible_op){.kind = VIS_RESUME, .fn = -1, .addr = wake_addr, .size = 4};
            continue;
        }
        next_visible_op(exec_thread_by_id(ex, ids[i]), &ops[i]);
    }
    bool blocks_small[16], *blocks = NULL;
    if (ops && kind == CHOICE_THREAD && ex->model_state && ex->model->would_block) {
        blocks = n <= 16 ? blocks_small : malloc(n * sizeof *blocks);
        if (!blocks)
            abort();
        for (size_t i = 0; i < n; i++)
            blocks[i] = ids[i] > 0 && ex->model->would_block(ex->model_state, exec_thread_by_id(ex, ids[i]));
    }
    struct choice_point cp = {.step = ex->steps, .threads = ids, .yielded = yielded, .n = n,
                              .previous = ex->last_thread, .ops = ops, .blocks = blocks};
    if (from_view) {
        cp.view = ++ex->view;
        if (ex->n_changed <= (int)(sizeof ex->changed / sizeof *ex->changed)) {
            cp.changed = ex->changed;
            cp.n_changed = (size_t)ex->n_changed;
        }
    }
    if (spun) {
        cp.spinners = spun->ids;
        cp.spin_steps = spun->steps;
        cp.n_spinners = spun->n;
    }
    cp.spinning = spinning;
    if (kind == CHOICE_WAKE)
        cp.waker = ex->running;
    if (s->wants_state && ex->model_state)
        cp.state = ex->model->state(ex->model_state);
    /* The time a strategy takes (a person at the keyboard) is not the
     * program's: the timeout clock stops meanwhile. */
    uint64_t asked = monotonic_ns();
    size_t pick = kind == CHOICE_THREAD ? s->ops->pick_thread(s, &cp) : s->ops->pick_waiter(s, &cp);
    uint64_t thought = monotonic_ns() - asked;
    if (ex->deadline_ns)
        ex->deadline_ns += thought;
    if (ex->end_ns)
        ex->end_ns += thought;
    if (ops && ops != ops_small)
        free(ops);
    if (blocks && blocks != blocks_small)
        free(blocks);
    if (pick >= n)
        pick = 0;
    if (all > 1 && !s->diverged && !ex->cfg->forget_choices)
        choice_list_add(&ex->res->choices, ex->steps, kind, ids[pick]);
    if (from_view)
        ex->n_changed = 0;
    return pick;
}

/* A strategy that counts spinners (strategy.counts_spinners) chooses among
 * all the candidates, told which of them spin (not when the strategies that
 * prefer progress are offered spinners too: MDAT_NO_SPIN_PREFERENCE). */
static size_t ask_counting_spinners(struct execution *ex, const int *ids, const bool *yielded, size_t n,
                                    bool from_view)
{
    bool small[16], *spinning = n <= 16 ? small : malloc(n * sizeof *spinning);
    if (!spinning)
        abort();
    for (size_t i = 0; i < n; i++) {
        struct mthread *t = ids[i] < 0 ? NULL : exec_thread_by_id(ex, ids[i]);
        spinning[i] = t && spin_watch_spinning(ex->spin, ex, t);
    }
    size_t pick = ask_among(ex, CHOICE_THREAD, ids, yielded, n, from_view, n, NULL, spinning);
    if (spinning != small)
        free(spinning);
    return pick;
}

/* A strategy that prefers progress (strategy.prefers_progress) chooses
 * among the candidates that do not spin (spin_watch.h), when some do and
 * some do not; the choice is kept by thread id among all of them, as
 * replay follows it. The view is not shown then: its changes wait for the
 * next choice that shows it. A strategy that sees spinners is asked even
 * when one candidate is left, and told which were left out. */
static size_t ask_strategy(struct execution *ex, char kind, const int *ids, const bool *yielded, size_t n,
                           bool from_view)
{
    struct strategy *s = ex->cfg->strategy;
    if (kind == CHOICE_THREAD && ex->spin && s->counts_spinners && ex->cfg->spin_preference && n >= 2 &&
        spin_watch_any(ex->spin))
        return ask_counting_spinners(ex, ids, yielded, n, from_view);
    if (kind != CHOICE_THREAD || !ex->spin || !s->prefers_progress || !ex->cfg->spin_preference || n < 2 ||
        !spin_watch_any(ex->spin))
        return ask_among(ex, kind, ids, yielded, n, from_view, n, NULL, NULL);
    int ids_small[16], *some = n <= 16 ? ids_small : malloc(n * sizeof *some);
    bool yielded_small[16], *some_yielded = n <= 16 ? yielded_small : malloc(n * sizeof *some_yielded);
    int out_small[16], *out = n <= 16 ? out_small : malloc(n * sizeof *out);
    uint32_t steps_small[16], *steps = n <= 16 ? steps_small : malloc(n * sizeof *steps);
    if (!some || !some_yielded || !out || !steps)
        abort();
    size_t m = 0, n_out = 0;
    for (size_t i = 0; i < n; i++) {
        struct mthread *t = ids[i] < 0 ? NULL : exec_thread_by_id(ex, ids[i]);
        if (!t || !spin_watch_spinning(ex->spin, ex, t)) {
            some[m] = ids[i];
            some_yielded[m++] = yielded[i];
        } else {
            out[n_out] = ids[i];
            steps[n_out++] = spin_watch_streak_steps(ex->spin, t);
        }
    }
    size_t pick;
    if (m == 0 || m == n) {
        pick = ask_among(ex, kind, ids, yielded, n, from_view, n, NULL, NULL);
    } else {
        size_t k = 0;
        struct spinners_left_out spun = {out, steps, n_out};
        if (m > 1 || s->sees_spinners)
            k = ask_among(ex, kind, some, some_yielded, m, false, n, s->sees_spinners ? &spun : NULL, NULL);
        else if (!s->diverged && !ex->cfg->forget_choices)
            choice_list_add(&ex->res->choices, ex->steps, kind, some[0]);
        if (k >= m)
            k = 0;
        for (pick = 0; pick < n && ids[pick] != some[k]; pick++)
            ;
    }
    if (some != ids_small)
        free(some);
    if (some_yielded != yielded_small)
        free(some_yielded);
    if (out != out_small)
        free(out);
    if (steps != steps_small)
        free(steps);
    return pick < n ? pick : 0;
}

size_t exec_ask_strategy(struct execution *ex, char kind, const int *ids, const bool *yielded, size_t n)
{
    return ask_strategy(ex, kind, ids, yielded, n, false);
}

/* ---------- trace events ---------- */

static void begin_event(struct execution *ex, struct mthread *t, struct trace_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->step = ex->steps + 1;
    ev->thread = t->id;
    ev->switched = ex->last_thread != 0 && ex->last_thread != t->id;
    if (ex->model_state)
        ex->model->describe_op(ex->model_state, t, ev);
}

/* What came of the step, for its trace event. */
static void describe_outcome(struct execution *ex, struct mthread *t, enum run_outcome o, struct trace_event *ev)
{
    if (t->interrupted_by && o == RUN_NEXT_OP) {
        const char *name = sigabbrev_np(t->interrupted_by);
        snprintf(ev->outcome, sizeof ev->outcome, "SIG%s came first: its handler runs, the operation is still to do",
                 name ? name : "?");
        return;
    }
    if (t->cancelled && o == RUN_NEXT_OP) {
        snprintf(ev->outcome, sizeof ev->outcome, "cancelled (pthread_cancel): its cleanup handlers run");
        return;
    }
    switch (o) {
    case RUN_CONTINUE:  /* exec_run_thread never returns it */
    case RUN_NEXT_OP:
    case RUN_ERROR:
    case RUN_RESTART:
        break;

    case RUN_BLOCKED: {
        int holder;
        char what[200];
        exec_describe_wait(ex, t, what, sizeof what, &holder);
        snprintf(ev->outcome, sizeof ev->outcome, "blocks on %s", what);
        break;
    }
    case RUN_THREAD_EXITED:
        /* Not "exits": the operation did not end the thread, the thread
         * went on to its end without another visible operation. */
        snprintf(ev->outcome, sizeof ev->outcome, "%s",
                 t->cancelled           ? "cancelled (pthread_cancel): its cleanup handlers ran, the thread ends"
                 : t->cancel_requested ? "then the thread ends (pthread_cancel had asked it to)"
                                       : "then the thread ends");
        return;
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

static void finish_event(struct execution *ex, struct mthread *t, enum run_outcome o, struct trace_event *ev)
{
    describe_outcome(ex, t, o, ev);
    struct exec_result *res = ex->res;
    res->recent[res->n_events % EXEC_RECENT_EVENTS] = *ev;
    res->n_events++;
    if (ex->cfg->on_event && ev->step >= ex->cfg->events_from_step) {
        const struct exec_state *state = NULL;
        if (ex->cfg->want_state && ex->model_state)
            state = ex->model->state(ex->model_state);
        ex->cfg->on_event(ex->cfg->event_ctx, ev, state);
    }
}

/* ---------- listeners ---------- */

/* Asks every listener about the step before it runs; false when one of them failed it. */
static bool ask_before_step(struct execution *ex, int thread, const struct visible_op *op)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->before_step && !l->ops->before_step(l->self, ex, thread, op, ex->res))
            return false;
    }
    return true;
}

/* Tells every listener about the step; false when one of them failed it. */
static bool tell_step(struct execution *ex, int thread, const struct visible_op *op)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->after_step && !l->ops->after_step(l->self, ex, ex->steps, thread, op, ex->res))
            return false;
    }
    return true;
}

static void tell_begin_end(struct execution *ex, bool begin)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        void (*hook)(void *, struct execution *) = begin ? l->ops->begin : l->ops->end;
        if (hook)
            hook(l->self, ex);
    }
}

/* ---------- the loop ---------- */

/* Threads that can run into ids (with their yielded flags); counts of the
 * blocked ones and of those among them whose wait can time out. */
struct candidates {
    /* The runnable view itself, or own copies when there is more: flush
     * candidates under TSO, timed waits to expire. */
    const int *ids;
    const bool *yielded;
    int *own_ids;
    bool *own_yielded;
    size_t cap, n, n_blocked, n_timed;
    bool from_view;     /* ids, yielded are the runnable view, unchanged */
};

static void gather(struct execution *ex, struct candidates *c)
{
    if ((size_t)ex->n_threads > c->cap) {
        c->cap = (size_t)ex->n_threads * 2;
        c->own_ids = realloc(c->own_ids, sizeof *c->own_ids * c->cap);
        c->own_yielded = realloc(c->own_yielded, sizeof *c->own_yielded * c->cap);
        if (!c->own_ids || !c->own_yielded)
            abort();
    }
    c->n = (size_t)ex->n_runnable;
    c->n_blocked = (size_t)ex->n_blocked;
    c->n_timed = (size_t)ex->n_timed;
    c->ids = ex->runnable;
    c->yielded = ex->runnable_yielded;
    c->from_view = true;
#ifndef NDEBUG
    /* Debug builds (the sanitizer suite) check the view against the threads. */
    size_t runnable = 0, blocked = 0, timed = 0;
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *t = &ex->threads[i];
        if (t->state == TS_RUNNABLE) {
            assert(runnable < c->n && c->ids[runnable] == t->id && c->yielded[runnable] == t->yielded);
            runnable++;
        }
        blocked += t->state == TS_BLOCKED;
        timed += t->state == TS_BLOCKED && t->timed_wait;
    }
    assert(runnable == c->n && blocked == c->n_blocked && timed == c->n_timed);
#endif
    /* Under TSO, committing a thread's oldest pending store is a candidate
     * of its own (while anyone can run: a thread blocks only after its
     * buffer was committed). */
    int overdue = c->n > 0 ? exec_tso_overdue(ex) : 0;
    if (overdue) {
        c->own_ids[0] = -overdue;
        c->own_yielded[0] = false;
        c->ids = c->own_ids;
        c->yielded = c->own_yielded;
        c->n = 1;
        c->from_view = false;
    } else if (c->n > 0 && ex->tso) {
        size_t k = exec_tso_flush_candidates(ex, c->own_ids + c->n, c->cap - c->n);
        if (k) {
            memcpy(c->own_ids, ex->runnable, c->n * sizeof *c->own_ids);
            memcpy(c->own_yielded, ex->runnable_yielded, c->n * sizeof *c->own_yielded);
            memset(c->own_yielded + c->n, 0, k * sizeof *c->own_yielded);
            c->ids = c->own_ids;
            c->yielded = c->own_yielded;
            c->n += k;
            c->from_view = false;
        }
    }
}

/* Time only passes when nobody can run: one timed wait expires (which one,
 * when several could, is a choice). */
static void expire_a_timed_wait(struct execution *ex, struct candidates *c)
{
    size_t k = 0;
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].state == TS_BLOCKED && ex->threads[i].timed_wait) {
            c->own_ids[k] = ex->threads[i].id;
            c->own_yielded[k++] = false;
        }
    size_t pick = k > 1 ? exec_ask_strategy(ex, CHOICE_THREAD, c->own_ids, c->own_yielded, k) : 0;
    struct mthread *t = exec_thread_by_id(ex, c->own_ids[pick]);
    if (t->io_wait) {
        exec_syscall_abandon(ex, t, 0);     /* poll/select: nothing became ready in time */
        return;
    }
    exec_wake_thread(ex, t);
    t->op = OP_TIMEDOUT;
    exec_emulate_syscall(t, -ETIMEDOUT);
}

/* The watched values as the program leaves: at its end by itself, or
 * where it failed (its memory is still there: the threads are stopped). */
static void record_final_watches(struct execution *ex)
{
    int n = ex->cfg->n_watches;
    if (n <= 0 || !ex->model_state || !ex->model->watch_values || ex->res->final_watches)
        return;
    ex->res->final_watches = calloc((size_t)n, sizeof *ex->res->final_watches);
    if (!ex->res->final_watches)
        abort();
    ex->model->watch_values(ex->model_state, ex->res->final_watches);
    ex->res->n_final_watches = n;
}

/* How the loop goes on after a step that ended in o. */
enum loop_next { LOOP_ON, LOOP_END, LOOP_FAILED, LOOP_INCOMPLETE, LOOP_ERROR, LOOP_RESTART };

uint64_t exec_timeout_ns(const struct execution *ex)
{
    return ex->cfg->timeout_sec > 0 ? (uint64_t)(ex->cfg->timeout_sec * 1e9) : 0;
}

/* How long a wait for a timer's signal, or for the world outside, may
 * take: as a step may (10 s without --timeout). */
static uint64_t step_timeout_ns(const struct execution *ex)
{
    uint64_t timeout = exec_timeout_ns(ex);
    return timeout ? timeout : 10000000000u;
}

/* Waits end at the sooner of the step's deadline and the look at a long
 * native run (0: neither). */
static void sooner_deadline(struct execution *ex)
{
    ex->deadline_ns = ex->step_deadline_ns;
    if (ex->spin_check_ns && (!ex->deadline_ns || ex->spin_check_ns < ex->deadline_ns))
        ex->deadline_ns = ex->spin_check_ns;
}

void exec_arm_step_deadline(struct execution *ex, uint64_t at_ns)
{
    ex->step_deadline_ns = at_ns && (!ex->end_ns || at_ns < ex->end_ns) ? at_ns : ex->end_ns;
    sooner_deadline(ex);
}

void exec_arm_spin_check(struct execution *ex, uint64_t at_ns)
{
    ex->spin_check_ns = at_ns;
    sooner_deadline(ex);
}

/* The next step may take --timeout, and must end by --time-limit. */
static void set_step_deadline(struct execution *ex)
{
    uint64_t now = monotonic_ns(), timeout = exec_timeout_ns(ex);
    ex->step_started_ns = now;
    ex->spin_check_ns = 0;
    ex->spin_cpu_base = 0;
    ex->hang_cpu_base = 0;
    /* The first look at a long step comes soon; from there it is judged
     * by the CPU time it uses (exec_threads.c step_overdue). */
    exec_arm_step_deadline(ex, timeout ? now + (timeout < STEP_FIRST_LOOK_NS ? timeout : STEP_FIRST_LOOK_NS) : 0);
    /* With page ownership a long native run is looked at first (a spin on
     * memory it owns, exec_pages_spin), long before --timeout. */
    if (ex->pages) {
        uint64_t watch = ex->cfg->timeout_sec > 0 && ex->cfg->timeout_sec < 2 * SPIN_WATCH_SEC
                             ? (uint64_t)(ex->cfg->timeout_sec * 5e8)
                             : (uint64_t)(SPIN_WATCH_SEC * 1e9);
        /* Half of it by the clock, the other half of the thread's own CPU
         * time from there (spin_watch_due): a step slowed by a busy machine
         * is not looked at where the same step on a quiet one is not. */
        ex->spin_cpu_ns = watch / 2;
        exec_arm_spin_check(ex, now + watch / 2);
    }
}

uint64_t exec_step_timeout_end(const struct execution *ex)
{
    uint64_t end = ex->step_started_ns + step_timeout_ns(ex);
    return ex->end_ns && ex->end_ns < end ? ex->end_ns : end;
}

void exec_step_progressed(struct execution *ex)
{
    set_step_deadline(ex);
}

static enum loop_next after_step(struct execution *ex, struct mthread *t, enum run_outcome o)
{
    switch (o) {
    case RUN_NEXT_OP:
    case RUN_BLOCKED:
    case RUN_THREAD_EXITED:
        return LOOP_ON;
    case RUN_PROCESS_EXITING:
    case RUN_PROCESS_GONE:
        return LOOP_END;
    case RUN_FAILED:
        return LOOP_FAILED;
    case RUN_TIMEOUT:
        if (ex->spin_restart)
            return LOOP_RESTART;    /* a spin on memory it owns (exec_pages_spin) */
        if (tracee_stop_requested())
            return LOOP_ERROR;      /* the wait was cut short: no hang (schedule_loop says why) */
        if (ex->end_ns && monotonic_ns() >= ex->end_ns) {
            exec_note_incomplete(ex, INCOMPLETE_TIME);
            return LOOP_INCOMPLETE;
        }
        exec_report_hang(ex, t);
        return LOOP_FAILED;
    case RUN_RESTART:
        return LOOP_RESTART;
    case RUN_CONTINUE:
    case RUN_ERROR:
        break;
    }
    return LOOP_ERROR;
}

/* The strategy picked "flush T": T's oldest pending store reaches memory
 * for everyone. A step of its own in the trace: "flush x := 1". */
static enum loop_next flush_step(struct execution *ex, int thread)
{
    struct pending_store e;
    if (!exec_tso_flush(ex, thread, &e)) {
        exec_set_error(ex, "cannot commit a pending store of T%d: %s", thread, strerror(errno));
        return LOOP_ERROR;
    }
    /* Counted before the event, as a thread's step is: the state that goes
     * with it is the state after this step. */
    ex->steps++;
    if (ex->describe) {
        struct trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.step = ex->steps;
        ev.thread = thread;
        ev.switched = ex->last_thread != 0 && ex->last_thread != thread;
        snprintf(ev.op, sizeof ev.op, "flush");
        ev.addr = e.addr;
        ev.pc = e.pc;
        if (ex->model_state && ex->model->name_data)
            ex->model->name_data(ex->model_state, e.addr, ev.object, sizeof ev.object);
        else
            snprintf(ev.object, sizeof ev.object, "0x%" PRIx64, e.addr);
        uint64_t value = 0;
        memcpy(&value, e.value, e.size);
        snprintf(ev.value, sizeof ev.value, ":= %" PRIu64, value);
        char line[128];
        exec_format_line(ex, e.pc, line, sizeof line);
        snprintf(ev.outcome, sizeof ev.outcome, "T%d's store%s%s reaches memory", thread, line[0] ? " at " : "",
                 line);
        finish_event(ex, exec_thread_by_id(ex, thread), RUN_NEXT_OP, &ev);
    }
    return LOOP_ON;
}

/* Whether the program's state decides its future, so that a state it has
 * been in before means a spin: not while a process that runs free shares
 * its memory (a forked child's store to MAP_SHARED memory ends the spin)
 * or a timer of the kernel's may send a signal (its handler may). */
static bool closed_world(const struct execution *ex)
{
    return ex->n_passive == 0 && !ex->timers_armed;
}

/* Runs one step of the thread ids[pick]; returns how the loop goes on. */
static enum loop_next run_step(struct execution *ex, int id)
{
    if (id < 0)
        return flush_step(ex, -id);
    struct mthread *t = exec_thread_by_id(ex, id);
    exec_set_yielded(ex, t, false);
    if (!exec_tso_before_step(ex, t)) {
        exec_set_error(ex, "cannot show T%d its own pending stores: %s", id, strerror(errno));
        return LOOP_ERROR;
    }
    struct visible_op op;
    if (ex->cfg->n_listeners || ex->spin)
        next_visible_op(t, &op);
    if (ex->spin)
        spin_watch_before_step(ex->spin, ex, t, &op);
    struct trace_event ev;
    if (ex->describe) {
        begin_event(ex, t, &ev);
        ex->event = &ev;
    }
    ex->running = id;
    set_step_deadline(ex);
    if (ex->pages)
        exec_pages_before_step(ex, t);
    enum run_outcome o;
    if (t->op == OP_CALL && ex->model_state &&
        ex->model->call_is_misuse(ex->model_state, t, t->fn, t->call_arg[0], t->call_arg[1]))
        o = RUN_FAILED;     /* judged before the call runs: the thread stays where it is */
    else if (ex->cfg->n_listeners && !ask_before_step(ex, id, &op))
        o = RUN_FAILED;     /* the same, by a listener (a use after free) */
    else if (t->op == OP_SYSCALL && exec_syscall_would_wait(ex, t))
        o = RUN_BLOCKED;    /* waits in the model, still before its call */
    else if (exec_rmw_load_step(ex, t))
        o = RUN_NEXT_OP;    /* loaded: the store is its next operation */
    else
        o = exec_run_thread(ex, t);
    if (ex->n_io_waits > 0)
        exec_syscall_recheck(ex);
    t = exec_thread_by_id(ex, id);
    ex->event = NULL;
    if (ex->cfg->strategy->diverged)
        return LOOP_ERROR;
    ex->steps++;
    ex->last_thread = id;
    if (ex->describe)
        finish_event(ex, t, o, &ev);
    /* A signal stopped the step before its access (a fault of the access
     * itself, its handler recovering with siglongjmp, among them): nothing
     * was read or written, so listeners hear of no access. */
    if (t->interrupted_by && (ex->cfg->n_listeners || ex->spin) &&
        (op.kind == VIS_READ || op.kind == VIS_WRITE || op.kind == VIS_UPDATE))
        op = (struct visible_op){.kind = VIS_YIELD, .fn = -1, .pc = op.pc};
    if (ex->spin)
        spin_watch_after_step(ex->spin, ex, t, &op);
    t->interrupted_by = 0;
    t->cancelled = false;
    enum loop_next next = after_step(ex, t, o);
    /* Listeners judge the step while the memory is still there (a thread
     * that ends the process is held at its exit until then). */
    if ((next == LOOP_ON || next == LOOP_END) && ex->cfg->n_listeners && !tell_step(ex, id, &op))
        next = LOOP_FAILED;
    if (next == LOOP_ON && ex->cfg->detect_livelock && livelock_after_step(ex->livelock, ex, id) &&
        closed_world(ex)) {
        exec_report_livelock(ex);
        next = LOOP_FAILED;
    }
    if (next == LOOP_END && ex->held_at_exit)
        record_final_watches(ex);
    if (ex->held_at_exit) {
        tracee_cont(ex->held_at_exit, 0);
        ex->held_at_exit = 0;
    }
    return next;
}

/* Under --preempt=sync, the thread that ran the last step goes on through
 * a memory access without the strategy being asked, unless preempt_at
 * names the access or the thread has run this many accesses in a row (a
 * spin on a plain variable must let the others in, or it never ends). */
enum { SPIN_ACCESSES = 256 };

static bool keeps_running(struct execution *ex, const struct candidates *c, size_t *pick)
{
    const struct exec_config *cfg = ex->cfg;
    for (size_t i = 0; i < c->n; i++) {
        if (c->ids[i] != ex->last_thread || c->yielded[i])
            continue;
        struct mthread *t = exec_thread_by_id(ex, c->ids[i]);
        if (t->op != OP_ACCESS || ++t->unpreempted > SPIN_ACCESSES ||
            (cfg->preempt_at && cfg->preempt_at(cfg->preempt_ctx, t->regs.rip))) {
            t->unpreempted = 0;
            return false;
        }
        *pick = i;
        return true;
    }
    return false;
}

/* Asks for the next thread; false when the execution ends here (a
 * divergence: error set; a strategy's stop). */
static bool choose(struct execution *ex, struct candidates *c, size_t *pick)
{
    *pick = 0;
    struct strategy *s = ex->cfg->strategy;
    if (c->n < 2 && !s->every_step)
        return true;
    if (ex->cfg->preempt == PREEMPT_SYNC && !s->every_step && keeps_running(ex, c, pick))
        return true;
    *pick = ask_strategy(ex, CHOICE_THREAD, c->ids, c->yielded, c->n, c->from_view);
    if (s->diverged) {
        exec_set_error(ex, "replay diverged: %s", s->divergence);
        return false;
    }
    if (s->stop) {
        ex->res->stopped = true;
        return false;
    }
    return true;
}

/* A short budget (--max-steps 500) still tells a spin from progress:
 * a quarter of it spent going round in circles is enough. */
static uint64_t budget_livelock_steps(const struct exec_config *cfg)
{
    uint64_t enough = LIVELOCK_WINDOW / 10;
    if (cfg->max_steps && cfg->max_steps / 4 < enough)
        enough = cfg->max_steps / 4;
    return enough;
}

/* The step or time budget is used up: the execution ends here, as a
 * livelock if it had been going round in circles, else incomplete (at
 * once when it was a trial that gives up). */
static bool out_of_budget(struct execution *ex)
{
    if (ex->cfg->give_up_steps && ex->steps >= ex->cfg->give_up_steps) {
        exec_note_incomplete(ex, INCOMPLETE_STEPS);
        return true;
    }
    bool steps = ex->cfg->max_steps && ex->steps >= ex->cfg->max_steps;
    bool time = ex->end_ns && monotonic_ns() >= ex->end_ns;
    if (!steps && !time)
        return false;
    uint64_t enough = budget_livelock_steps(ex->cfg);
    if (ex->cfg->detect_livelock && enough > 0 && ex->livelock->quiet >= enough &&
        livelock_fair(ex->livelock, ex) && livelock_confirmed(ex->livelock) && closed_world(ex)) {
        exec_report_livelock(ex);
        exec_snapshot_threads(ex);
    } else {
        exec_note_incomplete(ex, steps ? INCOMPLETE_STEPS : INCOMPLETE_TIME);
    }
    return true;
}

/* A signal that stops mdat came (no verdict: the execution is not
 * decided), or, looked at every OUTSIDE_PERIOD_NS, the program is gone:
 * killed from outside while mdat ran a thread ahead or emulated it, where
 * no wait would have told (exec_drain and note_exit say by whom). */
enum { OUTSIDE_EVERY_STEPS = 64 };
#define OUTSIDE_PERIOD_NS 100000000u

/* Between steps every live thread of the program is held in a ptrace
 * stop, its stop reported to mdat: only a SIGKILL wakes one (the leader
 * then stops at its exit event, unreported; the other threads, which have
 * no exit event, become zombies). A process killed so would tell by its
 * pidfd only once mdat had reaped every thread. */
static bool program_gone(const struct execution *ex)
{
    const struct mthread *t = NULL;
    for (int i = 0; i < ex->n_threads && !t; i++)
        if (ex->threads[i].state != TS_EXITED)
            t = &ex->threads[i];
    if (!t)
        return false;
    if (t->tid == ex->pid) {
        siginfo_t si = {0};
        return waitid(P_PID, (id_t)ex->pid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) == 0 &&
               si.si_pid == ex->pid;
    }
    struct proc_stat st;
    if (!proc_stat_read(ex->pid, t->tid, &st))
        return errno == ENOENT;
    return st.state == 'Z' || st.state == 'X';
}

static bool ended_from_outside(struct execution *ex)
{
    if (tracee_stop_requested()) {
        exec_set_error(ex, "stopped before the execution ended (a signal stops mdat)");
        ex->res->interrupted = true;
        return true;
    }
    if (ex->outside_countdown-- > 0)
        return false;
    ex->outside_countdown = OUTSIDE_EVERY_STEPS;
    uint64_t now = monotonic_ns();
    if (now < ex->outside_check_ns)
        return false;
    ex->outside_check_ns = now + OUTSIDE_PERIOD_NS;
    return program_gone(ex);
}

/* Every thread that can run has spun a while (spin_watch_stuck), and
 * nothing else can happen: no wait can time out or end from outside, no store is pending,
 * no process or timer outside the threads can write. The first spinner
 * (NULL when someone can progress). Not with page ownership: a thread's
 * stores to its own pages are no steps, so a loop could count in one
 * unseen; the livelock detector's long window judges those. */
static struct mthread *nobody_can_progress(struct execution *ex, const struct candidates *c)
{
    if (!ex->spin || !ex->cfg->judge_spins || c->n_timed > 0 || ex->n_io_waits > 0 || !closed_world(ex) ||
        ex->cfg->own_pages)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->ids[i] < 0 || !spin_watch_stuck(ex->spin, ex, exec_thread_by_id(ex, c->ids[i])))
            return NULL;
    return c->n ? exec_thread_by_id(ex, c->ids[0]) : NULL;
}

static bool schedule_loop(struct execution *ex)
{
    struct candidates c = {0};
    bool ok = true;
    for (;;) {
        if (ended_from_outside(ex)) {
            exec_drain(ex, true);
            break;
        }
        if (ex->signal_sent || ex->timers_armed)
            exec_interrupt_signalled_waits(ex);
        if (ex->n_passive)
            exec_serve_passive(ex);
        gather(ex, &c);
        if (c.n == 0 && c.n_timed > 0) {
            expire_a_timed_wait(ex, &c);
            continue;
        }
        if (c.n == 0 && ex->n_io_waits > 0 && !c.n_timed) {
            bool inside;
            if (exec_syscall_wait_outside(ex, &inside))
                continue;
            if (!inside && !ex->leader_gone) {
                exec_report_io_hang(ex);
                exec_snapshot_threads(ex);
                record_final_watches(ex);
                exec_drain(ex, true);
                break;
            }
        }
        if (c.n == 0 && c.n_blocked > 0 && exec_await_timer(ex, step_timeout_ns(ex)))
            continue;   /* a timer's signal ended a wait */
        if (c.n == 0) {
            if (c.n_blocked > 0) {
                exec_report_deadlock(ex);
                exec_snapshot_threads(ex);
                record_final_watches(ex);
            }
            exec_drain(ex, c.n_blocked > 0);    /* else every thread has exited; the leader is a zombie */
            break;
        }
        if (out_of_budget(ex)) {
            exec_drain(ex, true);
            break;
        }
        struct mthread *spinner = nobody_can_progress(ex, &c);
        if (spinner) {
            exec_report_spin_livelock(ex, spinner);
            exec_snapshot_threads(ex);
            record_final_watches(ex);
            exec_drain(ex, true);
            break;
        }
        size_t pick;
        if (!choose(ex, &c, &pick)) {
            ok = !ex->res->error;
            exec_drain(ex, true);
            break;
        }
        enum loop_next next = run_step(ex, c.ids[pick]);
        if (next == LOOP_ON)
            continue;
        if (next == LOOP_END) {
            exec_drain(ex, false);
            break;
        }
        if (next == LOOP_FAILED) {
            exec_snapshot_threads(ex);
            record_final_watches(ex);
        }
        if (next == LOOP_INCOMPLETE || next == LOOP_RESTART) {
            /* (restart: no verdict, the execution runs again) */
            exec_drain(ex, true);
            break;
        }
        if (next == LOOP_ERROR && ex->cfg->strategy->diverged)
            exec_set_error(ex, "replay diverged: %s", ex->cfg->strategy->divergence);
        if (next == LOOP_ERROR && !ex->res->error && tracee_stop_requested()) {
            exec_set_error(ex, "stopped before the execution ended (a signal stops mdat)");
            ex->res->interrupted = true;
        }
        exec_drain(ex, true);
        ok = next == LOOP_FAILED;
        break;
    }
    free(c.own_ids);
    free(c.own_yielded);
    return ok;
}

/* ---------- one execution ---------- */

/* A fork of a template prepared for page ownership runs with it, or
 * with every access observed: then every site gets its int3 back and the
 * main thread every key. */
static bool own_pages_or_not(struct execution *ex, char *err, size_t errlen)
{
    const struct exec_config *cfg = ex->cfg;
    bool prepared = cfg->tmpl->pages && cfg->tmpl->pages->ready;
    if (cfg->own_pages && prepared) {
        code_map_set_planting(cfg->code, SITES_ATOMIC);
        return true;
    }
    if (cfg->own_pages) {
        snprintf(err, errlen, "page ownership needs a fork server prepared for it");
        return false;
    }
    if (!prepared)
        return true;
    code_map_set_planting(cfg->code, SITES_ALL);
    if (!code_map_replant_sites(cfg->code, ex->mem_fd) || !pkru_set(ex->pid, PKRU_ALL_OPEN)) {
        snprintf(err, errlen, "cannot plant every breakpoint in the program");
        return false;
    }
    return true;
}

static bool start(struct execution *ex, char *err, size_t errlen)
{
    const struct exec_config *cfg = ex->cfg;
    if (cfg->tmpl) {
        bool lost;
        ex->pid = exec_template_fork(cfg->tmpl, &lost, err, errlen);
        ex->res->interrupted = lost;
    } else {
        struct spawn_request req = {cfg->path, cfg->argv, cfg->stdin_fd, cfg->stdout_fd, cfg->stderr_fd, false};
        ex->pid = spawn_traced(&req, err, errlen);
    }
    if (ex->pid < 0)
        return false;
    ex->vm_pid = ex->pid;
    if (cfg->time_limit_sec > 0)
        ex->end_ns = monotonic_ns() + (uint64_t)(cfg->time_limit_sec * 1e9);
    set_step_deadline(ex);
    ex->pidfd = (int)syscall(SYS_pidfd_open, ex->pid, 0);
    ex->mem_fd = tracee_open_mem(ex->pid);
    if (ex->mem_fd < 0) {
        snprintf(err, errlen, "cannot open /proc/%d/mem: %s", (int)ex->pid, strerror(errno));
        return false;
    }
    if (cfg->tmpl && cfg->tmpl->shared_known)
        page_cache_follow_forked(ex->mem_fd, ex->vm_pid, &cfg->tmpl->shared);
    else
        page_cache_follow(ex->mem_fd, ex->vm_pid);
    code_map_execution_starts(cfg->code);
    if (cfg->tmpl)
        return own_pages_or_not(ex, err, errlen);    /* forked with everything planted, at the entry point */
    /* Without a fork server every access is observed, whatever a template
     * of this process planted for ownership before (or failed to start). */
    code_map_set_planting(cfg->code, SITES_ALL);
    return code_map_plant_exe(
cfg->code, ex->pid, ex->mem_fd, ex->describe || cfg->n_listeners > 0, err, errlen);
}

/* How the program ended, from the leader's exit status. */
static void note_exit(struct execution *ex, bool ok)
{
    struct exec_result *res = ex->res;
    if (!ex->leader_gone)
        return;
    int st = ex->leader_status;
    res->exited = WIFEXITED(st);
    res->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    res->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (exec_sigkill_from_outside(ex)) {
        /* Whatever was judged meanwhile was judged of a program being
         * taken apart: no verdict. */
        res->kind = FAIL_NONE;
        res->message[0] = res->location[0] = '\0';
        exec_report_outside_kill(ex, SIGKILL, 0);
        return;
    }
    if (ok && res->kind == FAIL_NONE && !ex->killed && WIFSIGNALED(st)) {
        /* A fatal signal mdat did not see delivered: a SIGKILL the program
         * sent, the CPU time limit's, or one to the image it exec'd. */
        const char *name = sigabbrev_np(WTERMSIG(st));
        char how[240] = "";
        if (WTERMSIG(st) == SIGKILL && ex->cpu_limit_hit)
            snprintf(how, sizeof how, " at its CPU time limit (it went on after SIGXCPU)");
        else if (WTERMSIG(st) == SIGKILL && ex->sigkill_by)
            snprintf(how, sizeof how, ", sent by T%d%s%s", ex->sigkill_by, ex->sigkill_loc[0] ? " at " : "",
                     ex->sigkill_loc);
        else if (WTERMSIG(st) == SIGKILL)
            snprintf(how, sizeof how, ", sent by a child process of it");
        res->kind = FAIL_CRASH;
        res->thread = WTERMSIG(st) == SIGKILL ? ex->sigkill_by : 0;
        snprintf(res->location, sizeof res->location, "%s", WTERMSIG(st) == SIGKILL ? ex->sigkill_loc : "");
        snprintf(res->message, sizeof res->message, "the program was killed by SIG%s%s", name ? name : "?", how);
    }
}

bool execution_run(const struct exec_config *cfg, struct exec_result *res)
{
    memset(res, 0, sizeof *res);
    struct execution ex = {.cfg = cfg, .res = res, .mem_fd = -1, .pidfd = -1, .model = cfg->model};
    ex.livelock = malloc(sizeof *ex.livelock);
    if (!ex.livelock)
        abort();
    livelock_init(ex.livelock);
    livelock_judge_within(ex.livelock, budget_livelock_steps(cfg));
    if (cfg->detect_livelock)
        ex.spin = spin_watch_new();
    ex.describe = cfg->on_event != NULL || cfg->want_state || cfg->describe_events || cfg->strategy->wants_state;
    /* How it observes memory goes with its choices: they replay only so. */
    res->choices.spins_judged = cfg->judge_spins;
    res->choices.pages = cfg->own_pages                       ? PAGES_OWN

                         : cfg->tmpl && cfg->tmpl->pages ? PAGES_OBSERVE_ALL
                                                           : PAGES_OFF;
    for (size_t i = 0; cfg->own_pages && i < cfg->n_observed; i++)
        page_list_add(&res->choices.observed, cfg->observed[i]);
    for (size_t i = 0; cfg->own_pages && i < cfg->n_read_shared; i++)
        page_list_add(&res->choices.read_shared, cfg->read_shared[i]);

    cfg->strategy->diverged = false;
    cfg->strategy->ops->begin(cfg->strategy, cfg->exec_seed, cfg->estimated_steps);
    tracee_block_sigchld();

    char err[256];
    bool ok = start(&ex, err, sizeof err);
    if (!ok) {
        exec_set_error(&ex, "%s", err);
        if (ex.pid > 0)
            exec_drain(&ex, true);
    } else {
        if (ex.model)
            ex.model_state = ex.model->open(&ex);
        exec_add_thread(&ex, ex.pid);
        if (cfg->own_pages && !exec_pages_begin(&ex))
            ok = false;
        exec_tso_begin(&ex);
        if (ok) {
            tell_begin_end(&ex, true);
            if (code_map_library_atomics_unseen(cfg->code))
                exec_grounds_lost(&ex, GROUNDS_UNOBSERVED, "the C library is linked into %s, which has no symbols to "
                                  "tell its functions apart: the lock words its steps touch there are not seen",
                                  cfg->path);
            ok = schedule_loop(&ex);
            tell_begin_end(&ex, false);
        } else {
            exec_drain(&ex, true);
        }
        exec_pages_end(&ex);
    }
    res->steps = ex.steps;
    if (res->restart) {
        /* No verdict: it runs again. */
        res->kind = FAIL_NONE;
        ok = ok && !res->error;
    } else {
        note_exit(&ex, ok);
    }
    if (ok && !res->restart)
        exec_report_refused(&ex);
    if (ok && !res->restart && ex.leader_gone
 && !ex.killed && res->kind == FAIL_NONE && !res->interrupted &&
        code_map_before_entry(cfg->code)) {
        /* The dynamic loader gave up (a missing library, a bad ELF
         * interpreter): the program never ran, which is no verdict at all. */
        res->not_started = true;
        exec_set_error(&ex, "%s did not start: it %s %d before reaching its entry point (the dynamic loader failed)",
                       cfg->path, res->exited ? "exited with status" : "was killed by signal",
                       res->exited ? res->exit_status : res->term_signal);
        ok = false;
    }
    if (ex.model_state)
        ex.model->close(ex.model_state);
    page_cache_follow(-1, 0);
    if (ex.mem_fd >= 0)
        close(ex.mem_fd);
    if (ex.pidfd >= 0)
        close(ex.pidfd);
    free(ex.threads);
    free(ex.runnable);
    free(ex.runnable_yielded);
    free(ex.queue);
    free(ex.passive);
    free(ex.ret_bps);
    exec_tso_end(&ex);
    livelock_free(ex.livelock);
    free(ex.livelock);
    spin_watch_free(ex.spin);
    futex_table_free(&ex.futex);
    heap_map_free(&ex.heap);
    heap_map_free(&ex.freed);
    return ok && !res->error;
}
