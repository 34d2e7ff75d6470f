/* trace: what an execution tells its observers, step by step.
 *
 * Owns the vocabulary shared by the supervisor and every renderer: one
 * trace_event per visible step (already in source terms), and, when asked
 * for, an exec_state after each step: every thread with its status and next
 * visible operation, and every synchronisation object with holder, value and
 * waiters. Renderers (ui/) turn the stream into text, tables or JSON; the
 * supervisor never formats for a particular view. */
#ifndef MDAT_SUPERVISOR_TRACE_H
#define MDAT_SUPERVISOR_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One visible step. The strings are ready to print; the fields after them
 * carry the same facts unformatted, for machine-readable views. */
struct trace_event {
    uint64_t step;
    int thread;
    bool switched;          /* a different thread than the step before */
    char op[16];            /* "R", "W", "RMW", "atomic", "lock", "start", "yield", ... */
    char object[96];        /* "counter", "queue.buf[3]", "heap#2 (malloc at q.c:9)+8", "0x7ffff7d8a010" */
    char value[80];         /* "-> 3" for reads, ":= 4" for writes, "expected 3 -> stored 4", "" when none */
    char where[128];        /* "lost_update.c:20 worker" */
    char outcome[160];      /* "blocks on mutex lock_b (held by T2)", "exits", "" */

    uint64_t addr;          /* runtime address of the object, 0 if none */
    uint64_t pc;            /* runtime address of the instruction or call, 0 if none */
    char file[64];          /* basename of the source file, "" if unknown */
    unsigned line;          /* 0 if unknown */
    unsigned column;        /* 0 if unknown (DWARF often has none) */
    char function[64];      /* "" if unknown */
};

/* What a thread is doing, as a student would say it. */
enum thread_status {
    THREAD_RUNNING,         /* ran the last step */
    THREAD_READY,
    THREAD_WAITING_LOCK,    /* mutex, rwlock or spinlock */
    THREAD_WAITING_SEM,
    THREAD_WAITING_COND,
    THREAD_WAITING_BARRIER,
    THREAD_WAITING_JOIN,
    THREAD_WAITING_FUTEX,   /* a futex word of hand-written code */
    THREAD_WAITING_IO,      /* a call that waits for another thread or a child: read on a pipe, wait4 */
    THREAD_SLEEPING,        /* called sleep/nanosleep/sched_yield: ready, but gave way */
    THREAD_EXITED,
    THREAD_STATUS_COUNT
};

/* "running", "ready", "waiting-lock", "waiting-sem", "waiting-cond",
 * "waiting-barrier", "waiting-join", "waiting-futex", "waiting-io", "sleeping", "exited". */
const char *thread_status_name(enum thread_status s);

/* A store waiting in a thread's store buffer (--memory-model tso): the
 * thread itself sees it, the others once it is flushed. */
struct state_store {
    uint64_t addr;
    unsigned size;              /* 1..8 bytes */
    uint64_t value;             /* as stored, little-endian, zero-extended */
    char object[64];            /* "flag[0]", "turn", "0x4040a0" */
    char where[64];             /* "peterson.c:14", the store's line; "" if unknown */
};

struct state_thread {
    int id;
    enum thread_status status;
    char start[64];             /* start function; "main" for T1 */
    char location[128];         /* "restroom.c:41 female", "" once exited */
    char waiting_on[200];       /* "mutex maleMutex (held by T2)", "" unless waiting */
    int waits_for;              /* the thread this wait depends on (holder, join target), 0 none */
    struct trace_event next;    /* its next visible operation: op/object/value/where; op "" once exited */
    int n_pending;              /* --memory-model tso: its buffered stores, oldest first; 0 under sc */
    const struct state_store *pending;
};

enum sync_kind {
    SYNC_MUTEX, SYNC_SEMAPHORE, SYNC_CONDVAR, SYNC_BARRIER, SYNC_RWLOCK, SYNC_SPINLOCK, SYNC_FUTEX,
    SYNC_KIND_COUNT
};
/* "mutex", "semaphore", "condvar", "barrier", "rwlock", "spinlock", "futex". */
const char *sync_kind_name(enum sync_kind k);

/* One synchronisation object the program has (declared as a global of a sync
 * type, or used through a modeled call). Fields that do not apply to the
 * kind are 0. */
struct state_object {
    enum sync_kind kind;
    uint64_t addr;
    char name[96];              /* "maleMutex", "queue.lock", "heap#1+16", "0x4040a0" */
    char type[16];              /* mutex: "normal", "recursive", "errorcheck", "adaptive" */
    int holder;                 /* mutex, spinlock, rwlock writer: thread id; 0 free; -1 held by no thread of ours */
    int count;                  /* mutex: times locked by the holder (recursive);
                                 * semaphore: its value (never negative: waiters are counted apart);
                                 * barrier: threads arrived in the current round;
                                 * rwlock: readers holding it;
                                 * futex: the word's value */
    int limit;                  /* barrier: threads it waits for */
    uint64_t mutex;             /* condvar: the mutex its waiters hold/reacquire, 0 if none */
    char mutex_name[96];
    int n_waiters;
    const int *waiters;         /* thread ids, in the order they started waiting */
};

/* A watched expression (--watch, or added in the TUI) and its value. */
struct state_watch {
    char expr[64];              /* as the user wrote it: "countFemale", "q->count" */
    char value[128];            /* formatted by its DWARF type, or why it has none */
    bool error;                 /* value is an error message ("no variable named x") */
};

/* The whole picture after one step. Pointers are valid until the next step
 * (copy with exec_state_copy to keep it). */
struct exec_state {
    uint64_t step;
    int current;                /* the thread that ran the step, 0 before the first */
    int n_threads;
    const struct state_thread *threads;
    int n_objects;
    const struct state_object *objects;
    int n_watches;              /* exec_config.watches, in that order */
    const struct state_watch *watches;
};

/* Deep copy that owns its arrays; free with exec_state_free. */
struct exec_state *exec_state_copy(const struct exec_state *s);
void exec_state_free(struct exec_state *s);

/* Field by field, strings by their text (never by the bytes after them). */
bool trace_event_equal(const struct trace_event *a, const struct trace_event *b);
bool state_thread_equal(const struct state_thread *a, const struct state_thread *b);
bool state_object_equal(const struct state_object *a, const struct state_object *b);
/* The same threads and objects, in the same order, with the same fields and
 * waiters. step and current are not compared: they say when, not what. */
bool exec_state_same_picture(const struct exec_state *a, const struct exec_state *b);

/* Receives every event; state is NULL unless the execution was asked for it
 * (exec_config.want_state). */
typedef void (*trace_sink)(void *ctx, const struct trace_event *ev, const struct exec_state *state);

/* What the execution as a whole was and how it ended, handed to a renderer
 * after the last event and before close by whoever knows (explore's
 * run_one). Views that title or caption a whole trace (the timeline) use
 * it; a renderer may get none (an execution mdat itself failed to finish).
 * Strings are never NULL. */
struct trace_summary {
    const char *program;        /* path of the executable */
    char *const *args;          /* its arguments after argv[0] */
    int n_args;
    const char *strategy;       /* the strategy that chose the schedule: "pct", "random" */
    uint64_t seed;
    uint64_t execution;         /* index of the execution under that seed */
    uint64_t steps;
    const char *failure;        /* failure kind: "deadlock", "assertion", ...; "none" */
    const char *message;        /* the failure in one line; "" when none */
    const char *location;       /* "file.c:14" of the failure, "" if unknown */
    int thread;                 /* the thread whose step failed (assertion, crash, misuse, race,
                                 * invariant); 0 when the failure is no one thread's step (deadlock,
                                 * timeout, ...) */
    /* Steps the failure points at besides the last: a race's two accesses
     * (earlier first). Views mark them. */
    uint64_t marked_steps[2];
    int n_marked;
};

/* A way of writing a trace to a file, for the files saved with a failure
 * and for --trace: open a renderer on out, feed it every event, close it
 * (close writes anything still pending, such as the final tables, and
 * frees the renderer; out stays open). every_step asks a view that shows
 * the state at context switches to show it after every step; views
 * without such a summary ignore it. needs_state: the renderer has more to
 * show when the execution is run with exec_config.want_state. */
struct trace_format {
    const char *name;           /* "log", "status", "json", "timeline", "timeline-svg" */
    const char *suffix;         /* ".trace", ".status", ".jsonl", ".html", ".svg" */
    bool needs_state;
    void *(*open)(FILE *out, bool every_step);
    void (*event)(void *r, const struct trace_event *ev, const struct exec_state *state);
    void (*summary)(void *r, const struct trace_summary *s);    /* NULL: the view has no use for it */
    void (*close)(void *r);
    /* Long traces keep only their last steps (trace_tee): the earlier part
     * of the output is dropped at the start of a segment, after which the
     * view must stand on its own (a full state, full tables). NULL: every
     * event line stands alone. keeps_own_tail: the view bounds itself
     * (timelines keep their last steps) and is never cut. */
    void (*segment)(void *r);
    /* Says, at the top of a cut trace, how many steps were left out. */
    void (*omitted)(FILE *out, uint64_t steps);
    bool keeps_own_tail;
    bool file_only;             /* a picture for a file, not text for a terminal: --trace does not offer it */
};

#endif
