/* model_internal: the model's state for one execution, shared by the files
 * of model/ (and nobody else): source_model.c opens it and answers the
 * engine's hooks, data_names.c names, op_describe.c describes operations,
 * waits.c says what blocked threads wait for, state_build.c builds the
 * exec_state, misuse.c judges calls, heap_calls.c follows allocations. */
#ifndef MDAT_MODEL_MODEL_INTERNAL_H
#define MDAT_MODEL_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/model/heap_map.h"
#include "supervisor/model/sync_model.h"

struct model {
    struct execution *ex;
    struct sync_model sync;
    struct heap_map heap;
    const struct dwarf_type *event_type;    /* the type of the object the current event accesses */

    /* Buffers behind the exec_state handed to observers. */
    struct exec_state state;
    struct state_thread *state_threads;
    size_t cap_state_threads;
    struct state_object *state_objects;
    size_t cap_state_objects;
    int *state_waiters;
    size_t cap_state_waiters;
    /* What each object looked like when last read (state_objects holds it
     * between builds), and whether it may have changed since: only those
     * are read again. A program with thousands of locks touches few per
     * step. */
    size_t objects_filled;          /* state_objects[0, objects_filled) hold a reading */
    uint8_t *object_stale;          /* by object index */
    size_t cap_object_stale;
    unsigned builds;                /* every so often everything is read again */
    uint64_t step_call[2];          /* the call the last described step made or went on with */
    struct state_watch *state_watches;
    size_t cap_state_watches;
};

/* data_names.c */
/* How debug info reads this execution's memory. */
struct data_reader model_reader(struct model *m);
/* Names addr and, when the name is a whole object of known type, gives the
 * type (for formatting its value). */
void model_name_typed(struct model *m, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type);
void model_name_object(struct model *m, uint64_t addr, char *buf, size_t len);
/* A thread's pointer: glibc's struct pthread, where its TLS block ends. */
uint64_t model_thread_pointer(const struct mthread *t);

/* op_describe.c */
/* Fills ev for the operation t is stopped before; *type: the DWARF type of
 * the object it accesses, when known. */
void model_describe_next(struct model *m, const struct mthread *t, struct trace_event *ev,
                         const struct dwarf_type **type);
/* The hooks: the step's own event (its type kept for the value written). */
void model_describe_op(void *m, const struct mthread *t, struct trace_event *ev);
void model_op_done(void *m, const struct mthread *t, struct trace_event *ev);

/* waits.c */
/* The status of a thread and the object it is blocked on (0 for none or a join). */
enum thread_status model_thread_status(struct model *m, const struct mthread *t, uint64_t *object);
void model_describe_wait(void *m, const struct mthread *t, char *buf, size_t len, int *waits_for);
/* The thread holding the mutex (from glibc's owner field), 0 if none of ours. */
int model_mutex_holder(struct model *m, uint64_t mutex);
bool model_is_cond_wait(enum model_fn fn);

/* state_build.c */
void model_describe_thread(void *m, const struct mthread *t, struct state_thread *st);
const struct exec_state *model_state(void *m);
void model_watch_values(void *m, struct state_watch *out);
/* The object at (or containing) addr may have changed: read it again at
 * the next build. */
void model_object_touched(struct model *m, uint64_t addr);
/* Registers addr as an object of that kind (named now) unless known. */
struct sync_object *model_register_object(struct model *m, enum sync_kind kind, uint64_t addr);

/* misuse.c */
bool model_call_is_misuse(void *m, struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1);

/* heap_calls.c */
bool model_heap_call(void *m, struct mthread *t, enum model_fn fn, uint64_t ret);
void model_heap_returned(void *m, struct mthread *t);

#endif
