/* strategies: the ways of choosing who runs next (engine/strategy.h's
 * interface): uniform random, PCT, replay of a recorded list of choices, and
 * a person at the keyboard (interactive). */
#ifndef MDAT_STRATEGIES_STRATEGIES_H
#define MDAT_STRATEGIES_STRATEGIES_H

#include "supervisor/strategies/guided_points.h"
#include "supervisor/strategies/guided_switches.h"
#include "supervisor/engine/choices.h"
#include "supervisor/engine/strategy.h"

struct strategy *strategy_random_new(void);
/* PCT with bug depth `depth` (d - 1 change points); depth 0: chosen per
 * execution among 1..D, D the deepest whose PCT bound (one execution in
 * n k^(d-1), n threads and k steps as execution 0 showed) the budget of
 * executions affords (strategy_pct.c). */
struct strategy *strategy_pct_new(int depth, uint64_t budget);
/* Partial Order Sampling. */
struct strategy *strategy_pos_new(void);
/* For tests: the priority of thread's pending event (0: none yet). */
uint64_t strategy_pos_priority(const struct strategy *s, int thread);
/* Selectively uniform random walk (learns from execution 0: learn/use_profile). */
struct strategy *strategy_surw_new(void);
/* Preemption-bounded search as a function of its turn (0: the default
 * schedule, then one preemption at each place in turn, then one or two
 * drawn from the seed); a portfolio member, which numbers its own turns. */
struct strategy *strategy_bounded_new(void);
/* The turn the next execution is (not the execution's index: the
 * portfolio's i / 8, shrinking's walk). */
void strategy_bounded_set_turn(struct strategy *s, uint64_t turn);
/* Whether this execution of bounded preempted where its turn said (false:
 * its walk had no place left that far). */
bool strategy_bounded_preempted(const struct strategy *s);
/* The randomized strategies and bounded taking turns: execution i is run by
 * member strategy_portfolio_member(i) (pct with this depth and budget, pos,
 * surw, random, bounded). */
struct strategy *strategy_portfolio_new(int depth, uint64_t budget);
const char *strategy_portfolio_member(uint64_t index);
/* Depth-first search bounded by preemptions or delays, iteratively up to
 * max_bound (-1: until the space is exhausted). */
enum dfs_bound { DFS_PREEMPTIONS, DFS_DELAYS };
struct strategy *strategy_dfs_new(enum dfs_bound kind, int max_bound);
/* The same, preempting a thread only where its next operation is one of
 * the instructions pcs[0 .. n) (copied): a search near a failure whose
 * preemptions were there (shrinking). Its schedules come fewest departures
 * from round robin first, free choices counted, and the thread it preempted
 * last waits for the others at free choices (strategy_dfs.c). */
struct strategy *strategy_dfs_new_at(int max_preemptions, const uint64_t *pcs, size_t n);
/* Source-DPOR with sleep sets: one execution per class of equivalent
 * interleavings (with --preempt all). */
struct strategy *strategy_dpor_new(void);
/* The steps of an execution dpor analyses; a longer one makes the search no proof. */
enum { STRATEGY_DPOR_MAX_STEPS = 20000 };
/* Follows choices, which must outlive the strategy. */
struct strategy *strategy_replay_new(const struct choice_list *choices);

/* A thread that has run this many choice points in a row while others
 * could run may be switched away from for free, as from one that yielded
 * (CHESS's fair scheduler): dfs and bounded do so that spin loops end, and
 * guided counts no preemption there, so that all three count alike. */
enum { STRATEGY_SPIN_LIMIT = 1000 };

/* Follows plan (outliving the strategy) by choice number where its choice
 * can be made, else lets the thread that ran last go on (else the first that
 * can run); never diverges. A planned thread 0 means "the thread that ran
 * last goes on": an edited plan keeps its blocks of steps. For shrinking,
 * which edits plans. */
struct strategy *strategy_guided_new(const struct choice_list *plan);
/* Switches away from a thread that could have gone on (and had not
 * yielded, nor run STRATEGY_SPIN_LIMIT choice points in a row) in this
 * execution. */
uint64_t strategy_guided_preemptions(const struct strategy *s);
/* What each choice point of this execution offered, in the order of its
 * choice list. */
const struct guided_points *strategy_guided_points(const struct strategy *s);
/* Follows switches anchored on threads' progress instead (plan outliving
 * the strategy; elsewhere as without a plan), observing memory as settings
 * says; writes down its own switches. */
struct strategy *strategy_guided_new_switches(const struct guided_switches *plan, const struct choice_list *settings);
/* A plan-following guided strategy writes down its switches too, with
 * with_places the instruction each preempted thread was about to run. */
void strategy_guided_record_switches(struct strategy *s, bool with_places);
/* The switches this execution made (when written down). */
const struct guided_switches *strategy_guided_switches(const struct strategy *s);

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
void strategy_interactive_rewind(struct strategy *s, const struct choice_list *prefix, uint64_t until);
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
const struct choice_list *strategy_interactive_made(const struct strategy *s);

#endif
