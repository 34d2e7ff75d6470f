/* source_model: the model's answers to the engine's hooks, and its life
 * for one execution: opened when the program is loaded (the sync objects
 * it declares are known from then on), closed at the end. The work is done
 * by the other files of model/ (model_internal.h). */
#include "supervisor/model/source_model.h"
#include "supervisor/model/model_internal.h"
#include "supervisor/debuginfo/sync_globals.h"

#include <stdlib.h>

/* Registers every sync object the program declares statically. */
static void register_declared_objects(struct model *m)
{
    const struct sync_global *globals;
    size_t n = debuginfo_sync_globals(m->ex->cfg->exe, &globals);
    uint64_t bias = code_map_bias(m->ex->cfg->code);
    for (size_t i = 0; i < n; i++)
        sync_model_add(&m->sync, globals[i].kind, globals[i].addr + bias, globals[i].name);
}

static void *model_open(struct execution *ex)
{
    struct model *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    m->ex = ex;
    sync_model_init(&m->sync);
    if (ex->describe)
        register_declared_objects(m);
    return m;
}

static void model_close(void *state)
{
    struct model *m = state;
    sync_model_free(&m->sync);
    free(m->state_threads);
    free(m->state_objects);
    free(m->state_waiters);
    free(m->state_stores);
    free(m->state_watches);
    free(m->object_stale);
    free(m->threads);
    free(m->regions);
    free(m->cv_any);
    free(m);
}

static bool kind_of_call(enum model_fn fn, enum sync_kind *kind)
{
    switch (fn) {
    case MF_MUTEX_LOCK: case MF_MUTEX_TRYLOCK: case MF_MUTEX_TIMEDLOCK: case MF_MUTEX_UNLOCK:
    case MF_MUTEX_INIT: case MF_MUTEX_DESTROY:
        *kind = SYNC_MUTEX;
        return true;
    case MF_COND_WAIT: case MF_COND_TIMEDWAIT: case MF_COND_SIGNAL: case MF_COND_BROADCAST:
    case MF_COND_INIT: case MF_COND_DESTROY:
        *kind = SYNC_CONDVAR;
        return true;
    case MF_SEM_WAIT: case MF_SEM_TRYWAIT: case MF_SEM_TIMEDWAIT: case MF_SEM_POST:
    case MF_SEM_INIT: case MF_SEM_DESTROY:
        *kind = SYNC_SEMAPHORE;
        return true;
    case MF_BARRIER_WAIT: case MF_BARRIER_INIT:
        *kind = SYNC_BARRIER;
        return true;
    case MF_RWLOCK_RDLOCK: case MF_RWLOCK_WRLOCK: case MF_RWLOCK_TRYRDLOCK: case MF_RWLOCK_TRYWRLOCK:
    case MF_RWLOCK_UNLOCK: case MF_RWLOCK_INIT:
        *kind = SYNC_RWLOCK;
        return true;
    case MF_SPIN_LOCK: case MF_SPIN_UNLOCK: case MF_SPIN_INIT:
        *kind = SYNC_SPINLOCK;
        return true;
    default:
        return false;
    }
}

/* The objects a call works on become known (only when someone reads the
 * views they appear in). */
static void model_call_seen(void *state, const struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1)
{
    struct model *m = state;
    enum sync_kind kind;
    if (model_fn_starts_omp_region(fn)) {
        model_omp_region_add(m, arg0, arg1);
        model_thread_info(m, t->id)->region_fn = arg0;
        return;
    }
    if (!m->ex->describe || !arg0 || !kind_of_call(fn, &kind))
        return;
    struct sync_object *o = model_register_object(m, kind, arg0);
    model_object_touched(m, arg0);
    if (model_is_cond_wait(fn) && arg1) {
        model_object_touched(m, arg1);
        o->mutex = arg1;
        model_register_object(m, SYNC_MUTEX, arg1);
    }
    if (fn == MF_SPIN_LOCK)
        o->spin_holder = t->id;
    else if (fn == MF_SPIN_UNLOCK)
        o->spin_holder = 0;
}

static void name_data(void *state, uint64_t addr, char *buf, size_t len)
{
    struct model *m = state;
    model_name_data(m->ex, addr, buf, len);
}

const struct exec_model_ops source_model_ops = {
    .open = model_open,
    .close = model_close,
    .call_seen = model_call_seen,
    .call_is_misuse = model_call_is_misuse,
    .describe_op = model_describe_op,
    .op_done = model_op_done,
    .describe_wait = model_describe_wait,
    .would_block = model_would_block,
    .describe_thread = model_describe_thread,
    .state = model_state,
    .name_data = name_data,
    .watch_values = model_watch_values,
};
