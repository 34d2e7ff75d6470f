/* model_internal: the model's state for one execution, shared by the files
 * of model/ (and nobody else): source_model.c opens it and answers the
 * engine's hooks, data_names.c names, op_describe.c describes operations,
 * waits.c says what blocked threads wait for, state_build.c builds the
 * exec_state, misuse.c judges calls, thread_names.c says what each
 * thread runs, omp_regions.c knows OpenMP's parallel regions, cxx_waits.c
 * C++20's latches, semaphores and atomic waits. Heap blocks
 * are named from the engine's map (exec_heap.c). */
#ifndef MDAT_MODEL_MODEL_INTERNAL_H
#define MDAT_MODEL_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/process/heap_map.h"
#include "supervisor/model/sync_model.h"

/* What the model keeps about one thread (model.threads, by id - 1). */
struct model_thread {
    bool labelled;
    char label[64];             /* what it runs: "worker", "lambda at sum.cpp:31", "omp parallel at sum.c:12" */
    uint64_t label_pc;          /* where that code begins */
    uint64_t region_fn;         /* the OpenMP region it was started for (its function), 0 none */
    /* What it last blocked on, for naming its wake-up when the call it is
     * in does not say (a join made by libstdc++, a barrier in libgomp). */
    bool waited;
    uint64_t wait_seq;          /* the wait (mthread.wait_seq) wait_object describes */
    char wait_object[96];       /* "T2", "omp barrier (parallel region at sum.c:12)" */
    char wait_verb[24];         /* "join", "" */
    /* Its last data accesses (newest at recent[(n_recent - 1) % 8]): what
     * a wait libstdc++ parks on its waiter pool is about (cxx_waits.c). */
    uint64_t recent[8];
    uint64_t recent_bytes[8];   /* what each held just after (up to 8 bytes) */
    unsigned n_recent;
    /* The object its wait on a waiter pool's proxy word was found to be
     * about (0: none), for that wait (wait_seq) and word. */
    uint64_t pool_wait_seq, pool_word, pool_object;
    uint64_t pool_bytes;        /* the object as it read it last: the value it waits to change */
};

/* An OpenMP parallel region: its outlined function and the struct through
 * which the shared variables reach it (in the frame of the thread that
 * started it). */
struct omp_region {
    uint64_t fn, data;
    const struct dwarf_type *data_type;     /* of the struct (references and pointers taken off) */
    char line[48];                          /* "sum.c:12", "" when unknown */
    char label[64];                         /* "omp parallel at sum.c:12" */
};

struct model {
    struct execution *ex;
    struct sync_model sync;
    const struct dwarf_type *event_type;    /* the type of the object the current event accesses */

    /* Buffers behind the exec_state handed to observers. */
    struct exec_state state;
    struct state_thread *state_threads;
    size_t cap_state_threads;
    struct state_object *state_objects;
    size_t cap_state_objects;
    int *state_waiters;
    size_t cap_state_waiters;
    struct state_store *state_stores;       /* --memory-model tso: every thread's pending stores */
    size_t cap_state_stores;
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
    struct model_thread *threads;
    size_t cap_threads;
    struct omp_region *regions;     /* newest last */
    size_t n_regions, cap_regions;
    /* The declared std::condition_variable_any objects (data_names.c):
     * where each keeps the pointer to the mutex it made for itself. */
    struct cv_any {
        uint64_t mutex_pointer_at;
        char name[96];
    } *cv_any;
    size_t n_cv_any;
    bool cv_any_known;
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
/* Where t stands in the user's terms, pc being where it is: pc itself,
 * the user's frame below library code (exec_user_frame_pc), or, with no
 * frame of the user's on the stack, said so: "after main: ~barrier (run
 * by exit)" (a destructor of a global, run by exit() after main returned),
 * "after main: exit", "around poller: ~_State_impl" (std::thread's own
 * code before or after the callable). *place_pc gets the address named;
 * function (may be NULL) the function, "" when none is known. */
void model_format_place(struct model *m, const struct mthread *t, uint64_t pc, char *buf, size_t len,
                        uint64_t *place_pc, char *function, size_t flen);
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
/* The hook exec_model_ops.would_block. */
bool model_would_block(void *m, const struct mthread *t);

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

/* thread_names.c */
/* The model's record of thread id (grown as threads appear). */
struct model_thread *model_thread_info(struct model *m, int id);
/* What t runs ("main" for T1) and where that code begins (0 for T1). */
const char *model_thread_label(struct model *m, const struct mthread *t, uint64_t *pc);
/* The same for a thread about to be made with this start routine and
 * argument (pthread_create's). */
void model_start_label(struct model *m, uint64_t routine, uint64_t arg, char *buf, size_t len, uint64_t *pc);

/* omp_regions.c */
/* A parallel region starts (GOMP_parallel's fn and data); valid until the next call. */
const struct omp_region *model_omp_region_add(struct model *m, uint64_t fn, uint64_t data);
bool model_fn_starts_omp_region(enum model_fn fn);
/* Names addr as a shared variable of a known region ("sum", "&counter"). */
bool model_omp_name_data(struct model *m, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type);
/* t sleeps on futex word inside libgomp: what for ("omp barrier (parallel
 * region at sum.c:12)", "omp critical section"), with its status. */
bool model_omp_wait(struct model *m, const struct mthread *t, uint64_t word, char *buf, size_t len,
                    enum thread_status *status);

/* cxx_waits.c */
/* A C++ object whose counter a thread sleeps on (std::latch,
 * std::counting_semaphore, std::atomic<T>::wait, std::barrier) or the
 * shared state of a std::future whose get() or wait() sleeps on its
 * status. */
enum cxx_sync_kind { CXX_SYNC_NONE, CXX_SYNC_LATCH, CXX_SYNC_SEMAPHORE, CXX_SYNC_ATOMIC, CXX_SYNC_BARRIER,
                     CXX_SYNC_FUTURE };
struct cxx_sync {
    enum cxx_sync_kind kind;
    char name[96];              /* the variable: "start_line", "pool.done" */
    int counter;                /* latch: count left; semaphore: its value; barrier: expected;
                                 * future: 1 once ready */
    int phase;                  /* barrier: phases completed (mod 128) */
    char value[64];             /* atomic: its value as the user reads it */
    char waited[64];            /* atomic: the value a waiter waits to change, "" when it is value */
};
/* Whether the futex word (or the object model_cxx_pool_object found) is
 * such an object (out filled when it is). */
bool model_cxx_sync_at(struct model *m, uint64_t word, struct cxx_sync *out);
/* The object t's wait on word is about, when word is a proxy word of
 * libstdc++'s waiter pool (std::barrier, atomic<bool>); 0 otherwise. */
uint64_t model_cxx_pool_object(struct model *m, const struct mthread *t, uint64_t word);
/* model_cxx_sync_at for the object t waits on, with the value t waits to
 * change when libstdc++'s pool hides it. */
bool model_cxx_wait_of(struct model *m, const struct mthread *t, uint64_t object, struct cxx_sync *out);
/* "std::latch", "std::counting_semaphore", "std::atomic", "std::barrier",
 * "std::future". */
const char *cxx_sync_class(enum cxx_sync_kind kind);
/* What a waiter waits on: "latch start_line (count 1)". */
void cxx_sync_describe(const struct cxx_sync *s, char *buf, size_t len);
/* Its row in the objects table: "start_line (std::latch)". */
void cxx_sync_object_name(const struct cxx_sync *s, char *buf, size_t len);

#endif
