/* timeline_model: one execution gathered for a picture of it.
 *
 * Owns what the timeline draws, built from the trace events and states as
 * they come: one lane per thread (its start function and, at the end, its
 * status), the steps (the last TIMELINE_MAX_STEPS of them: memory and the
 * picture stay bounded however long the execution ran), the intervals in
 * which a thread held a lock (mutex, spinlock, rwlock as writer) and in
 * which it was blocked, the wake-ups (which step of which thread ended
 * another thread's wait) and the summary of the execution (program, seed,
 * verdict).
 *
 * Intervals and wake-ups come from the states: a hold begins with the step
 * after which the object's holder is the thread and ends with the step
 * after which it is not; a thread is blocked from the step after which its
 * status is waiting-* until the step after which it is not, and when that
 * step is another thread's, that thread woke it: the wake-up goes from that
 * step to the woken thread's next step (its "wakes X"). Without states the
 * only wake-ups are guessed from the events: a "wakes X" step and the last
 * step of another thread on X. */
#ifndef MDAT_UI_TIMELINE_MODEL_H
#define MDAT_UI_TIMELINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/trace/trace.h"

/* Steps drawn at most: a longer execution shows its last ones (where its
 * failure is) and says how many came before. */
enum { TIMELINE_MAX_STEPS = 1500 };

/* What a mark shows, by the step's op. */
enum timeline_kind {
    TL_READ,        /* R */
    TL_WRITE,       /* W */
    TL_ATOMIC,      /* RMW, atomic */
    TL_SYNC,        /* lock, unlock, cond_*, sem_*, barrier_*, rwlock and spinlock calls, wakes, timeout */
    TL_THREAD,      /* start, create, join, thread_exit */
    TL_YIELD,       /* yield, sleep */
    TL_OTHER,       /* malloc, free, assert_fail, ... */
    TL_KIND_COUNT
};
enum timeline_kind timeline_kind_of(const char *op);
/* "read", "write", "atomic", "sync", "thread", "yield", "other". */
const char *timeline_kind_name(enum timeline_kind k);

struct timeline_lane {
    int id;
    char start[64];                 /* start function, "" until a state says */
    bool has_status;                /* a state named the thread */
    enum thread_status status;      /* in the last state */
    char waiting_on[200];           /* in the last state */
    int waits_for;                  /* in the last state: the thread its wait depends on, 0 none */
};

/* From the step after which it began to the step after which it ended;
 * to == 0: it lasted to the end. */
struct timeline_interval {
    int thread;
    uint64_t from, to;              /* from 0: it began before the first step told */
    int object;                     /* holds: index into timeline.objects; blocked: -1 */
    enum thread_status status;      /* blocked: which wait */
    char what[200];                 /* blocked: what it waited on (when it began) */
};

/* A lock that someone held: holds name it, its colour is its index. */
struct timeline_object {
    enum sync_kind kind;
    uint64_t addr;
    char name[96];
};

struct timeline_wake {
    uint64_t from_step, to_step;
    int from_thread, to_thread;
    char by[128];                   /* the waking step: "unlock lock_a" */
    char what[200];                 /* what the woken thread waited on */
};

struct timeline_summary {
    bool known;
    char program[256];              /* base name */
    char args[256];                 /* arguments, space-separated */
    char strategy[32];
    uint64_t seed, execution, steps;
    char failure[32];               /* "none" when it did not fail */
    char message[512];
    char location[160];
    int thread;
    uint64_t marked[2];             /* steps the failure points at besides its last (a race's accesses) */
    int n_marked;
};

struct timeline {
    struct trace_event *ring;       /* the last TIMELINE_MAX_STEPS events */
    uint64_t n_events;              /* all events seen */
    uint64_t first_told, last_step; /* the oldest and newest events' steps: a recording may tell only the last ones */
    struct timeline_lane *lanes;    /* by ascending id */
    int n_lanes, lanes_cap;
    struct timeline_interval *holds, *blocked;
    size_t n_holds, holds_cap, n_blocked, blocked_cap;
    struct timeline_object *objects;
    int n_objects, objects_cap;
    struct timeline_wake *wakes;
    size_t n_wakes, wakes_cap;
    bool have_states;
    struct timeline_summary summary;
    struct timeline_tracking *tracking;     /* open holds and waits, pending wake-ups */
};

struct timeline *timeline_new(void);
void timeline_free(struct timeline *tl);
/* One step and the state after it (NULL when the execution has none). */
void timeline_add(struct timeline *tl, const struct trace_event *ev, const struct exec_state *state);
void timeline_set_summary(struct timeline *tl, const struct trace_summary *s);

/* Ends the gathering: what is still held or awaited lasted to the end, the
 * lanes are put in order of thread id. Steps added after it are ignored. */
void timeline_end(struct timeline *tl);

/* The steps kept, oldest first: i in [0, timeline_n_steps). */
/* The steps of the execution so far, those not told to the timeline
 * included. */
uint64_t timeline_total_steps(const struct timeline *tl);
size_t timeline_n_steps(const struct timeline *tl);
const struct trace_event *timeline_step(const struct timeline *tl, size_t i);
/* Step number of the first step kept; 0 when there is none. */
uint64_t timeline_first_step(const struct timeline *tl);
/* The lane of that thread, NULL if none. */
const struct timeline_lane *timeline_lane(const struct timeline *tl, int id);
int timeline_lane_index(const struct timeline *tl, int id);
/* The step that failed, highlighted in the picture: when the summary says
 * the execution failed, the last step of the thread it names (assertion,
 * crash, misuse), else the last step of all (a deadlock is complete, a
 * step budget spent, with the last step). 0 when it did not fail or no
 * summary came. */
uint64_t timeline_failing_step(const struct timeline *tl);
/* Whether the failure points at this step besides the failing one (the
 * other access of a race). */
bool timeline_step_marked(const struct timeline *tl, uint64_t step);
/* The thread a lane's wait at the end depends on (the holder of the lock
 * it waits for, the thread it joins), 0 when it does not wait at the end
 * or no lane is that thread. */
int timeline_waits_for_at_end(const struct timeline *tl, const struct timeline_lane *lane);
/* Whether that wait is part of a cycle of waits at the end: following who
 * waits for whom comes back to the lane (a deadlock's wait cycle). */
bool timeline_in_wait_cycle(const struct timeline *tl, const struct timeline_lane *lane);

#endif
