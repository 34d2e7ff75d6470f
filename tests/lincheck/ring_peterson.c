/* A ring buffer for two threads guarded by Peterson's lock written with
 * release stores and acquire loads: correct under sequential consistency,
 * wrong on x86, where a thread's store of its flag can wait in the store
 * buffer while it reads the other's flag (the missing barrier: a seq_cst
 * store or an mfence after it), so both threads are inside at once and pop
 * the same item. The slots and indices are relaxed atomics, so the bug is
 * no data race, only wrong results. lincheck must find it with
 * --memory-model tso and not with sc (tests/e2e/lincheck.sh). */
#include <stdlib.h>
#include "ring.h"

enum { RING_SLOTS = 8 };

struct ring {
    int flag[2];
    int turn;
    int next_id;
    int slots[RING_SLOTS];
    int head, tail;
};

static __thread int my_id = -1;   /* which Peterson side this thread is */

struct ring *ring_new(void)
{
    return calloc(1, sizeof(struct ring));
}

static void enter(struct ring *r)
{
    if (my_id < 0)
        my_id = __atomic_fetch_add(&r->next_id, 1, __ATOMIC_SEQ_CST) % 2;
    int other = 1 - my_id;
    __atomic_store_n(&r->flag[my_id], 1, __ATOMIC_RELEASE);   /* the bug: no full barrier after it */
    __atomic_store_n(&r->turn, other, __ATOMIC_RELEASE);
    while (__atomic_load_n(&r->flag[other], __ATOMIC_ACQUIRE) && __atomic_load_n(&r->turn, __ATOMIC_ACQUIRE) == other)
        ;
}

static void leave(struct ring *r)
{
    __atomic_store_n(&r->flag[my_id], 0, __ATOMIC_RELEASE);
}

int ring_push(struct ring *r, int value)
{
    enter(r);
    int tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    int full = tail - __atomic_load_n(&r->head, __ATOMIC_RELAXED) == RING_SLOTS;
    if (!full) {
        __atomic_store_n(&r->slots[tail % RING_SLOTS], value, __ATOMIC_RELAXED);
        __atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELAXED);
    }
    leave(r);
    return full ? -1 : 0;
}

int ring_pop(struct ring *r)
{
    enter(r);
    int head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    int value = -1;
    if (head != __atomic_load_n(&r->tail, __ATOMIC_RELAXED)) {
        value = __atomic_load_n(&r->slots[head % RING_SLOTS], __ATOMIC_RELAXED);
        __atomic_store_n(&r->head, head + 1, __ATOMIC_RELAXED);
    }
    leave(r);
    return value;
}
