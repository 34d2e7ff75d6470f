/* race_detector: data races by happens-before over an execution's visible
 * operations (FastTrack: vector clocks for threads and sync objects, an
 * epoch per memory byte for its last write and, while reads are ordered,
 * its last read).
 *
 * Owns the happens-before relation and the shadow memory: the edges from
 * thread creation and join, mutexes, rwlocks and spinlocks (acquired when
 * the call returns), semaphores (post to wait), condition variables (the
 * wait releases and re-acquires its mutex; signal to waiter), barriers
 * (everyone's arrival before anyone's departure), futex wakes (waker to
 * woken), pipes and other blocking calls on one descriptor, and atomics
 * (every access to an atomic location is acquire and release on it).
 * Engine-free: it is fed plain events (race_step), so it is tested on
 * synthetic sequences; race_listener.c feeds it from an execution, and
 * race_report.c words and deduplicates what it finds. */
#ifndef MDAT_DETECT_RACE_DETECTOR_H
#define MDAT_DETECT_RACE_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/engine/visible_op.h"

/* One step of one thread, as the detector needs it. */
struct race_step {
    uint64_t step;              /* 1, 2, ... as traces number them */
    int thread;
    const struct visible_op *op;    /* what the thread did (as it was before the step) */
    /* After the step the thread waits inside its call (blocked in mdat's
     * model): the call has not returned, so what it acquires is not
     * acquired yet. */
    bool waiting;
    /* pthread_cond_wait/timedwait: the mutex it releases and takes again
     * (0: unknown, then the mutex the thread took last and still holds). */
    uint64_t mutex;
    /* A plain load or store of an object the program declared atomic
     * (_Atomic, std::atomic): on x86 an atomic load or a release store is a
     * plain mov, which the instruction alone does not tell. Also one made
     * by the C++ library's atomics inlined into the program. */
    bool atomic_object;
    /* A plain load or store on a source line that calls an atomic
     * operation (atomic_load_explicit(&b->ready, ...)): most likely that
     * operation's access, on an object whose type mdat cannot see. It
     * synchronises as an atomic access would, but leaves the bytes' record
     * alone: the line may also make a plain access (`v = atomic_load(&x)`
     * stores v), whose later races must still be found. */
    bool atomic_line;
};


/* One side of a race. */
struct race_access {
    int thread;
    bool write;
    uint64_t step;
    uint64_t pc;
};

struct race {
    uint64_t addr;              /* the first byte both touch */
    struct race_access earlier; /* the access made first (its record in shadow memory) */
    struct race_access later;   /* the access of the step that revealed the race */
};

struct race_detector;

struct race_detector *race_detector_new(void);
void race_detector_free(struct race_detector *d);
/* Forgets everything: a new execution starts (thread 1 exists). */
void race_detector_begin(struct race_detector *d);

/* Facts the engine learns during a step, applied when the step ends (so
 * that the step's own access comes before the edge it makes). */
void race_detector_thread_created(struct race_detector *d, int parent, int child);
void race_detector_woke(struct race_detector *d, int waker, int woken, uint64_t addr);
void race_detector_thread_exited(struct race_detector *d, int thread, uint64_t pthread);
/* A futex call on the word at addr: a wake releases into the word's clock,
 * a wait (whether it sleeps or finds the word changed) acquires from it.
 * Library code that hands a word over with a plain store and a wake (a
 * barrier's generation) is ordered by this even where the waiter never
 * sleeps. Plain loads and stores of the word are sync from then on. */
void race_detector_futex_call(struct race_detector *d, int thread, uint64_t addr, bool wakes);
/* An atomic read-modify-write at addr inside a runtime library (libgomp's
 * lock words and counters): acquires and releases at addr. */
void race_detector_library_atomic(struct race_detector *d, int thread, uint64_t addr);

/* Judges a step. Returns true and fills *found (may be NULL) when one of
 * its accesses races with an earlier one; the shadow memory is updated
 * either way, so the run can go on. */
bool race_detector_step(struct race_detector *d, const struct race_step *s, struct race *found);

/* pthread_once on the control word at `once`: entering it acquires what
 * the initializer released; the thread that ran the initializer releases
 * when its call has returned. */
void race_detector_once_entered(struct race_detector *d, int thread, uint64_t once);
void race_detector_once_returned(struct race_detector *d, int thread, uint64_t once);

/* [addr, addr + size) holds new data (freed, reallocated, a dead thread's
 * stack): earlier accesses to it no longer race with anything. */
void race_detector_forget(struct race_detector *d, uint64_t addr, uint64_t size);

/* Bytes of shadow memory in use, for benchmarks. */
size_t race_detector_memory(const struct race_detector *d);

#endif
