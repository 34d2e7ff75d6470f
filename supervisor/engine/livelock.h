/* livelock: telling a program that runs in circles from one that is slow.
 *
 * After every step the execution's state is summarised in a hash: every
 * live thread's registers, status and next operation, and the values of all
 * shared memory the program has written through visible operations. When
 * the state of every step over a long window is one the execution had
 * already been in, and every thread that could run took a step in that
 * window (so a thread starved by the schedule does not count), the program
 * is going round in a cycle it will not leave: a livelock. A program that makes progress keeps
 * reaching new states (a counter grows, a queue moves).
 *
 * Memory the program changes without a visible step (a page only one
 * thread uses, a stack, a counter handed over under a lock) is not in the
 * hash, so a repetition is only believed once the state came back to one
 * taken as reference early in the repetition with all the writable memory
 * of the process reading the same as it did then (memory_digest.h): the
 * program was then exactly where it had been. The window's verdict needs
 * that at its own step. When the memory differs, it moved unseen, and the
 * states from there on count as new.
 *
 * Deterministic: the same schedule gives the same verdict at the same step,
 * so a livelock replays. Owned by the engine; fed by the loop. */
#ifndef MDAT_ENGINE_LIVELOCK_H
#define MDAT_ENGINE_LIVELOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct execution;
struct mthread;

/* Consecutive steps, all in states seen before, that make a livelock. */
enum { LIVELOCK_WINDOW = 10000 };

struct livelock {
    uint64_t memory_hash;       /* XOR over written words of mix(addr, value) */
    struct written_word *words; /* open addressing: addr -> value */
    size_t n_words, cap_words;
    struct recent_states *recent;   /* the states of the recent steps, and when */
    uint64_t *last_ran;         /* by thread id: the step it last ran */
    uint64_t *thread_hash;      /* by thread id: its part of the state */
    size_t cap_threads;
    uint64_t threads_hash;      /* XOR of thread_hash[] */
    int *touched;               /* threads changed by someone else since the last step */
    size_t n_touched, cap_touched;
    uint64_t quiet;             /* consecutive steps in states seen before */
    uint64_t cycle;             /* steps between the last two visits of a state */
    uint64_t epoch;             /* times the memory was found to have moved unseen */
    bool has_reference;         /* a state and the memory digest taken in it */
    uint64_t reference_state, reference_memory, reference_quiet;
    uint64_t reference_after;   /* repeated steps before a reference is taken */
    uint64_t checked_quiet;     /* quiet at the last comparison with the reference */
    uint64_t confirmed_quiet;   /* quiet when the whole state last was the reference's (0: never) */
    /* The digest of the program's memory now (memory_digest of its
     * process; a test gives its own). */
    bool (*digest)(const struct execution *ex, uint64_t *out);
};

void livelock_init(struct livelock *l);
void livelock_free(struct livelock *l);
/* The bytes at addr now hold value (a visible write just happened). */
void livelock_note_write(struct livelock *l, uint64_t addr, unsigned size, uint64_t value);
/* Every thread that can run took a step while the states repeated. */
bool livelock_fair(const struct livelock *l, struct execution *ex);
/* Thread `id` changed without running (woken, created, interrupted). */
void livelock_touch(struct livelock *l, int id);
/* A budget that ends the execution may judge a livelock after only
 * `enough` repeated steps: the reference is taken early enough for it. */
void livelock_judge_within(struct livelock *l, uint64_t enough);
/* The whole state was found the same as at an earlier step during the
 * current repetition (the budget's verdict needs it). */
bool livelock_confirmed(const struct livelock *l);
/* After step `step` (run by thread `ran`): true when the execution has
 * been going round in circles for LIVELOCK_WINDOW steps. */
bool livelock_after_step(struct livelock *l, struct execution *ex, int ran);

#endif
