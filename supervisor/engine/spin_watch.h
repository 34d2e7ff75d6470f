/* spin_watch: which threads are going round a loop that makes no progress.
 *
 * A thread that is back in a state it was in (the same registers and the
 * same bytes in the whole stack it uses) having since only read memory, or
 * written values that were already there, while every location it read
 * still holds what it read, will do exactly the same again: it spins, and
 * only a change to one of those locations (by another thread) can let it
 * out. Each state is hashed the first time the streak passes it, the first
 * being where the thread stood after its last step that changed something:
 * coming back once is a spin. The engine tells strategies (choice_point.spinning: they may prefer
 * the others, CHESS's fair scheduling) and reports a livelock, naming the
 * location, when every thread that can run spins and none can time out.
 *
 * Owns the per-thread books; the engine feeds it every step and asks. It
 * reads the program's memory (values, the stack top) but changes nothing,
 * and a verdict is a function of the execution: it replays. */
#ifndef MDAT_ENGINE_SPIN_WATCH_H
#define MDAT_ENGINE_SPIN_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/engine/visible_op.h"

struct execution;
struct mthread;
struct spin_watch;

struct spin_watch *spin_watch_new(void);
void spin_watch_free(struct spin_watch *w);
/* Before thread t's step (op: what it is about to do): the value a store
 * will replace. */
void spin_watch_before_step(struct spin_watch *w, struct execution *ex, const struct mthread *t,
                            const struct visible_op *op);
/* After it: t is stopped before its next operation (or gone). */
void spin_watch_after_step(struct spin_watch *w, struct execution *ex, const struct mthread *t,
                           const struct visible_op *op);
/* t spins now: checked again against the memory it read. */
/* Whether any thread is judged spinning now: when none is, no candidate
 * need be looked at (spin_watch_spinning is false for each). */
bool spin_watch_any(const struct spin_watch *w);
bool spin_watch_spinning(struct spin_watch *w, struct execution *ex, const struct mthread *t);
/* A verdict needs more than a preference: a loop whose progress is in
 * memory no step shows (code mdat does not follow) could look the same a
 * few times. t has spun this many rounds, all alike. */
enum { SPIN_STUCK_ROUNDS = 100 };
bool spin_watch_stuck(struct spin_watch *w, struct execution *ex, const struct mthread *t);
/* The steps of t's streak that changed nothing (its latest steps, the
 * rounds that made it spinning among them), 0 when it does not spin: a
 * strategy that ends an execution at a spin (dpor) tries the other threads
 * before each of them. */
uint32_t spin_watch_streak_steps(const struct spin_watch *w, const struct mthread *t);
/* The location t's loop reads first (for reports), 0 when it does not spin. */
uint64_t spin_watch_location(const struct spin_watch *w, const struct mthread *t);

#endif
