/* exec_model: what the engine asks of the layer that sees the program in
 * source terms, without knowing who provides it (model/source_model.c does).
 *
 * The engine knows threads, stops, futex words and code addresses; it does
 * not know what a pthread_mutex_t looks like, what a thread waits for in C
 * terms, how to name a heap block or when a call is API misuse. It calls
 * these hooks at fixed points of an execution and uses the answers in its
 * events and reports. Without a model (exec_config.model NULL) events carry
 * no source terms and a deadlock report names no wait cycle. */
#ifndef MDAT_ENGINE_EXEC_MODEL_H
#define MDAT_ENGINE_EXEC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/code/code_map.h"
#include "supervisor/trace/trace.h"

struct execution;
struct mthread;

struct exec_model_ops {
    /* The program is loaded and nothing has run; returns the model's state
     * for this execution (passed back to every hook as m). */
    void *(*open)(struct execution *ex);
    void (*close)(void *m);

    /* t stopped before a modeled call from user code (fn with its first two
     * arguments): the objects it works on become known. */
    void (*call_seen)(void *m, const struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1);
    /* t is about to make that call: true when the call is API misuse (the
     * model has filled ex->res with kind FAIL_MISUSE); the call does not run. */
    bool (*call_is_misuse)(void *m, struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1);

    /* Fills the source-terms part of ev (op, object, value, where and their
     * raw fields) for the operation t is stopped before. */
    void (*describe_op)(void *m, const struct mthread *t, struct trace_event *ev);
    /* After t carried out the operation ev describes (its value is known). */
    void (*op_done)(void *m, const struct mthread *t, struct trace_event *ev);
    /* What a blocked thread waits on ("mutex lock_b (held by T3)"), and
     * through *waits_for the thread it waits for (0: none known). */
    void (*describe_wait)(void *m, const struct mthread *t, char *buf, size_t len, int *waits_for);
    /* t can run, and its next step is an acquisition that cannot complete
     * now: a mutex someone holds, a semaphore at 0, a join of a live
     * thread (the step would only block). Optional (NULL: never). */
    bool (*would_block)(void *m, const struct mthread *t);
    /* One thread as the state shows it. */
    void (*describe_thread)(void *m, const struct mthread *t, struct state_thread *st);
    /* The whole state after the last step; valid until the next call. */
    const struct exec_state *(*state)(void *m);
    /* The source name of the data at addr ("flag[1]", "heap#2+8"). */
    void (*name_data)(void *m, uint64_t addr, char *buf, size_t len);
    /* The values of exec_config.watches now, into out[0..n_watches). */
    void (*watch_values)(void *m, struct state_watch *out);
};

#endif
