/* strategy: who runs next.
 *
 * The execution asks its strategy at every choice point (more than one thread
 * can run) which thread runs, and at every wake-up with more waiters than are
 * woken which waiter wakes. Implementations: random, pct, replay, and
 * interactive (a person chooses, through a chooser). */
#ifndef MDAT_SUPERVISOR_STRATEGY_H
#define MDAT_SUPERVISOR_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/explore/schedule.h"
#include "supervisor/trace/trace.h"

struct choice_point {
    uint64_t step;              /* visible steps executed so far */
    const int *threads;         /* mdat thread ids that can run (or waiters that can wake) */
    const bool *yielded;        /* per entry: the thread's last step was a yield/sleep */
    size_t n;
    int previous;               /* thread that ran the last step (0: none) */
    /* Only for strategies that ask for them (wants_state): */
    const struct exec_state *state; /* everything as it is before the step */
    int waker;                  /* waiter choices: the thread whose wake it is */
};

struct strategy;

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
};

struct strategy *strategy_random_new(void);
struct strategy *strategy_pct_new(int depth);
/* Follows sched->choices; sched must outlive the strategy. */
struct strategy *strategy_replay_new(const struct schedule *sched);
void strategy_free(struct strategy *s);

/* Answers an interactive strategy's questions: the id of the thread to run
 * (or waiter to wake), one of cp->threads; 0 stops the execution. */
struct chooser {
    int (*thread)(void *ctx, const struct choice_point *cp);
    int (*waiter)(void *ctx, const struct choice_point *cp);
    void *ctx;
};
/* Asks the chooser before every step (every_step, wants_state). */
struct strategy *strategy_interactive_new(const struct chooser *chooser);
/* For the executions that follow: take prefix's choices for the steps before
 * `until` without asking (going back to step `until` is re-execution). */
void strategy_interactive_rewind(struct strategy *s, const struct schedule *prefix, uint64_t until);
/* For the rest of this execution, let auto_strategy (begun by the caller,
 * not owned) choose instead of the chooser; NULL asks the chooser again. */
void strategy_interactive_delegate(struct strategy *s, struct strategy *auto_strategy);
/* Ask the chooser from step `step` on in this execution even where the
 * rewind said to follow the prefix longer (a person cancelling a long
 * re-execution stays where it got to). */
void strategy_interactive_ask_from(struct strategy *s, uint64_t step);
/* The choices of this execution so far, wherever they came from (prefix,
 * delegate or chooser), recorded as the execution records them: only where
 * there was more than one possibility. Lets a caller that handed over to
 * another strategy know what it chose before taking over again. */
const struct schedule *strategy_interactive_made(const struct strategy *s);

#endif
