/* visible_op: a thread's next visible operation in machine terms.
 *
 * What strategies and checkers that reason about *conflicts* need (partial
 * order methods such as DPOR and POS, race detection): the kind of the
 * operation, the memory or object it touches and whether it writes. The
 * trace describes the same operation in source terms (trace/trace.h); this
 * one is cheap to build at every step and carries no text. */
#ifndef MDAT_ENGINE_VISIBLE_OP_H
#define MDAT_ENGINE_VISIBLE_OP_H

#include <stdbool.h>
#include <stdint.h>

enum visible_kind {
    VIS_START,      /* the thread's first step; addr is its start routine (0 unknown) */
    VIS_READ,       /* a load from shared memory */
    VIS_WRITE,      /* a store to shared memory */
    VIS_UPDATE,     /* read and write in one instruction (atomic: LOCK prefix, xchg) */
    VIS_SYNC,       /* a modeled call on a sync object (lock, unlock, wait, post, ...) */
    VIS_SPAWN,      /* pthread_create */
    VIS_JOIN,       /* pthread_join: object is the target's pthread_t */
    VIS_YIELD,      /* sched_yield, a sleep */
    VIS_RESUME,     /* returning from a wait: woken, timed out, interrupted; inside a
                     * modeled call, addr is the object the call takes again (the
                     * lock, the semaphore, a condition variable's mutex) */
    VIS_EXIT,       /* the thread or the process ends */
    VIS_IO,         /* a blocking system call on a file descriptor */
};

struct visible_op {
    uint8_t kind;           /* enum visible_kind */
    bool atomic;            /* VIS_UPDATE with LOCK or xchg; VIS_READ/WRITE of an atomic object */
    uint8_t size;           /* bytes accessed (0 when not an access) */
    int16_t fn;             /* VIS_SYNC/SPAWN/JOIN: code/code_map.h's enum model_fn; -1 otherwise */
    uint64_t addr;          /* memory accessed, or the object called on (mutex, semaphore, fd...) */
    uint64_t pc;            /* the instruction, or the call site in user code */
};

/* Whether the order of a and b (of two different threads) can change what
 * the program does: both touch the same memory or object and at least one
 * of them writes; two calls on the same sync object always do. Conservative:
 * when unsure, true. */
bool visible_ops_conflict(const struct visible_op *a, const struct visible_op *b);
/* The operation writes shared memory or changes a sync object. */
bool visible_op_writes(const struct visible_op *op);

#endif
