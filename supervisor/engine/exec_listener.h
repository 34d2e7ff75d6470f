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
struct heap_block;

struct exec_listener_ops {
    /* The execution starts (nothing has run yet). */
    void (*begin)(void *self, struct execution *ex);
    /* Before every step of `thread`, whose operation is `op`, nothing of
     * it run yet. Return false to end the execution as a failure there
     * (the step does not run), after filling res as after_step does. */
    bool (*before_step)(void *self, struct execution *ex, int thread, const struct visible_op *op,
                        struct exec_result *res);
    /* After every step of `thread`, which performed `op` (as it was before
     * the step). Return false to end the execution as a failure after
     * filling res->kind, message, location, function and thread. */
    bool (*after_step)(void *self, struct execution *ex, uint64_t step, int thread, const struct visible_op *op,
                       struct exec_result *res);
    /* Thread `child` was created by `parent` (its first step comes later). */
    void (*thread_created)(void *self, int parent, int child);
    /* A futex wake by `waker` released `woken`, waiting on the word at addr. */
    void (*woke)(void *self, int waker, int woken, uint64_t addr);
    /* `thread` made a futex call on the word at addr, a wake (or requeue)
     * or else a wait: whatever the program does with that word is
     * synchronization, even by plain loads and stores (an __atomic_load_n
     * is a plain mov on x86). */
    void (*futex_call)(void *self, int thread, uint64_t addr, bool wakes);
    /* `thread` carried out an atomic read-modify-write at addr inside a
     * runtime library (libgomp's locks, barriers, work sharing) during its
     * step: not a step, but an order the program relies on. Only when the
     * execution follows memory (code_map_plant_exe). */
    void (*library_atomic)(void *self, int thread, uint64_t addr);
    /* The running step of `thread` touched the word at addr inside a
     * library with an atomic instruction: libgomp's as above, and, when
     * the batch observes them (code_map_observe_library_atomics), libc's
     * and libstdc++'s own locks (stdio's FILE lock in every printf). Not a
     * synchronisation of the program's (race detection ignores it), but
     * part of what the step did: a search that reorders steps orders two
     * steps that touched one word. */
    void (*touched_word)(void *self, int thread, uint64_t addr);
    /* The running step of `thread` made a system call that reads or
     * writes the memory [lo, hi) (a read's buffer, which the kernel fills;
     * [0, UINT64_MAX) when where is not known): no step's operation, yet
     * ordered against every access inside it. */
    void (*touched_range)(void *self, int thread, uint64_t lo, uint64_t hi);
    /* `thread` called the modeled function fn (with its first two
     * arguments, and its stack pointer at the entry: the call has returned
     * once the stack is above it) during its current step without the call
     * being a step of its own: the C library calling its own threading
     * functions (C11's mtx_lock, the loader's locks, exec_stops.c's
     * internal_to_threading_runtime). It synchronizes all the same. Also
     * told for pthread_once, which is a step, as its step begins: its
     * release is where it returns. */
    void (*call_within_step)(void *self, int thread, int fn, uint64_t arg0, uint64_t arg1, uint64_t sp);
    /* A heap block [addr, addr + size) was handed to the program (malloc,
     * new, realloc called from user code returned it): new data, whatever
     * was done at those addresses before. */
    void (*allocated)(void *self, int thread, uint64_t addr, uint64_t size);
    /* `thread` is about to free the heap block at addr (free, delete, or
     * realloc, which may), called at call_pc (the user's line). b is the
     * block as it was handed out through a call mdat followed, NULL when
     * it was not (libc's own, or an address inside one). Return false to
     * end the execution as a failure before the call runs, after filling
     * res as after_step does. */
    bool (*freeing)(void *self, struct execution *ex, int thread, uint64_t addr, const struct heap_block *b,
                    uint64_t call_pc, struct exec_result *res);
    /* The free of b by `thread` (called at call_pc) has returned, or a
     * realloc moved b: its bytes are the allocator's now. */
    void (*freed)(void *self, struct execution *ex, int thread, const struct heap_block *b, uint64_t call_pc);
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
