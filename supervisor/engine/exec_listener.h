/* exec_listener: observers that judge an execution from its steps (race
 * detection, invariants), registered in exec_config.listeners.
 *
 * The engine tells every listener what each step did in machine terms
 * (visible_op.h) and the happens-before facts only it knows (who created
 * whom, which wake released which waiter, which thread ended); a listener
 * may end the execution as a failure. Listeners read the execution
 * (exec_core.h) and name things through code_names.h and the model, but
 * never resume a thread. */
#ifndef MDAT_ENGINE_EXEC_LISTENER_H
#define MDAT_ENGINE_EXEC_LISTENER_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/engine/visible_op.h"

struct execution;
struct exec_result;

struct exec_listener_ops {
    /* The execution starts (nothing has run yet). */
    void (*begin)(void *self, struct execution *ex);
    /* After every step of `thread`, which performed `op` (as it was before
     * the step). Return false to end the execution as a failure after
     * filling res->kind, message, location, function and thread. */
    bool (*after_step)(void *self, struct execution *ex, uint64_t step, int thread, const struct visible_op *op,
                       struct exec_result *res);
    /* Thread `child` was created by `parent` (its first step comes later). */
    void (*thread_created)(void *self, int parent, int child);
    /* A futex wake by `waker` released `woken`, waiting on the word at addr. */
    void (*woke)(void *self, int waker, int woken, uint64_t addr);
    /* Thread `thread` exited; pthread is its pthread_t (for joins), 0 if unknown. */
    void (*thread_exited)(void *self, int thread, uint64_t pthread);
    /* The execution is over (whatever the outcome). */
    void (*end)(void *self, struct execution *ex);
};

struct exec_listener {
    const struct exec_listener_ops *ops;    /* any hook may be NULL */
    void *self;
};

#endif
