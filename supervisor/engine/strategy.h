/* strategy: who runs next.
 *
 * The execution asks its strategy at every choice point (more than one thread
 * can run) which thread runs, and at every wake-up with more waiters than are
 * woken which waiter wakes. This is the whole contract between the engine
 * and whoever decides: the implementations (random, pct, replay,
 * interactive) live in strategies/strategies.h. */
#ifndef MDAT_SUPERVISOR_STRATEGY_H
#define MDAT_SUPERVISOR_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/engine/exec_listener.h"
#include "supervisor/engine/visible_op.h"
#include "supervisor/trace/trace.h"

struct choice_point {
    uint64_t step;              /* visible steps executed so far */
    const int *threads;         /* mdat thread ids that can run (or waiters that can wake) */
    const bool *yielded;        /* per entry: the thread's last step was a yield/sleep */
    size_t n;
    int previous;               /* thread that ran the last step (0: none) */
    const struct visible_op *ops;   /* per entry: the thread's next operation (for waiter
                                     * choices: VIS_RESUME on the word they wait on) */
    /* With ops, per entry of a thread choice: its next operation is an
     * acquisition that cannot complete now (exec_model_ops.would_block);
     * the step would only make it wait. NULL: not known. */
    const bool *blocks;
    /* Only for strategies that ask for them (wants_state): */
    const struct exec_state *state; /* everything as it is before the step */
    int waker;                  /* waiter choices: the thread whose wake it is */
    /* Thread choices among the runnable threads as the execution keeps
     * them (ids ascending, no others), numbered from 1 in each execution;
     * 0: some other set. A strategy that saw choice view - 1 may update
     * what it kept from there: only the threads in changed may have become
     * or stopped being candidates or changed their yielded flag. changed
     * NULL: more changed than are listed. */
    uint64_t view;
    const int *changed;
    size_t n_changed;
    /* For a strategy that sees spinners (strategy.sees_spinners): the
     * threads left out of this choice because they spin, and per one the
     * steps of its streak that changed nothing (spin_watch_streak_steps);
     * n_spinners 0 when none was left out. */
    const int *spinners;
    const uint32_t *spin_steps;
    size_t n_spinners;
    /* For a strategy that counts spinners (strategy.counts_spinners): per
     * entry of a thread choice, the thread spins; NULL when none does. */
    const bool *spinning;
};

/* Where id is, or would go, among n ids in ascending order (the runnable
 * view's order, and so a choice point's with a view). */
static inline size_t ids_slot(const int *ids, size_t n, int id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct strategy;

/* What execution 0 of a batch taught a learning strategy (surw): the
 * interesting events each thread (by mdat id) performed. Filled once after
 * execution 0, the same for every worker, so that every other execution
 * stays a function of (seed, index). */
enum { PROFILE_THREADS = 64 };
struct strategy_profile {
    bool filled;
    uint32_t n;                         /* ids 1..n-1 counted */
    uint32_t events[PROFILE_THREADS];
};

struct strategy_ops {
    const char *name;
    /* Starts an execution. estimated_steps: length of earlier executions
     * (PCT spreads its change points over it). */
    void (*begin)(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps);
    /* Index into cp->threads of the thread to run. */
    size_t (*pick_thread)(struct strategy *s, const struct choice_point *cp);
    /* Index into cp->threads of the waiter to wake. */
    size_t (*pick_waiter)(struct strategy *s, const struct choice_point *cp);
    void (*thread_created)(struct strategy *s, int thread);
    void (*destroy)(struct strategy *s);
    /* Optional (NULL for the others). Learning strategies: after execution
     * 0, write what it taught into out; before any other, read it. */
    void (*learn)(struct strategy *s, struct strategy_profile *out);
    void (*use_profile)(struct strategy *s, const struct strategy_profile *in);
    /* Optional: told the index of the execution about to begin (portfolio:
     * which member runs it). */
    void (*set_index)(struct strategy *s, uint64_t index);
    /* Systematic strategies (dfs, dpor), whose next execution depends on
     * the ones before: after an execution, move to the next one of the
     * search; false when the search space is exhausted. */
    bool (*advance)(struct strategy *s);
    /* Systematic strategies: executions that were distinct (dpor: classes
     * of equivalent interleavings; dfs: schedules) and the bound reached
     * (-1: none). false when the search had to leave something out (dpor:
     * an execution too long to analyse), so that an end of the search is no
     * proof. */
    bool (*search_state)(const struct strategy *s, uint64_t *distinct, int *bound);
};

struct strategy {
    const struct strategy_ops *ops;
    void *state;
    /* Set by the replay strategy when the execution no longer follows the file. */
    bool diverged;
    char divergence[256];
    /* Set by the strategy to end the execution after the current step (a
     * person going back in time, or quitting): not a failure. */
    bool stop;
    /* Asked before every step, even when only one thread can run (a person
     * stepping through), with cp->state filled in. Set when created. */
    bool every_step;
    bool wants_state;
    /* Wants choice_point.ops (the candidates' next operations): built only
     * for strategies that read them (partial-order methods); NULL else. */
    bool wants_ops;
    /* Is only offered threads that do not spin (engine/spin_watch.h: a
     * loop that only re-reads what nobody changed) while any thread that
     * does not can run; the others (replay, a person) see every one. */
    bool prefers_progress;
    /* With prefers_progress: is asked, spinners listed, even when a
     * single thread is left once the spinners are left out (dpor ends an
     * execution there). */
    bool sees_spinners;
    /* Without prefers_progress: sees every candidate but is told which
     * spin (choice_point.spinning), to count a switch away from a spinner
     * as the strategies that prefer progress do, which never offer it. */
    bool counts_spinners;
    /* A strategy that must see every step (dpor: which thread did what,
     * who created and woke whom) listens to the execution like a detector;
     * ops NULL: it does not. */
    struct exec_listener listener;
    /* A strategy that follows recorded choices (replay, a shrink's plan):
     * they were made observing memory as follows->pages says. NULL: the
     * batch's way. */
    const struct choice_list *follows;
};


void strategy_free(struct strategy *s);

#endif
