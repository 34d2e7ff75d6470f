/* queue.c - a bounded queue for many threads: one mutex guards the items,
 * and the size is kept in an atomic counter so that queue_size() needs no
 * lock. Does every result make sense? Try: mdat lincheck queue.lc */
#include <pthread.h>
#include <stdlib.h>
#include "queue.h"

struct queue {
    pthread_mutex_t lock;
    int *items;
    int capacity, head, count;
    long size;
};

struct queue *queue_new(int capacity)
{
    struct queue *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    q->items = calloc((size_t)capacity, sizeof *q->items);
    q->capacity = capacity;
    return q;
}

int queue_push(struct queue *q, int value)
{
    pthread_mutex_lock(&q->lock);
    int ok = q->count < q->capacity;
    if (ok) {
        q->items[(q->head + q->count) % q->capacity] = value;
        q->count++;
    }
    pthread_mutex_unlock(&q->lock);
    if (ok)
        __atomic_fetch_add(&q->size, 1, __ATOMIC_SEQ_CST);   /* BUG: after the unlock */
    return ok ? 0 : -1;
}

int queue_pop(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    int value = -1;
    if (q->count > 0) {
        value = q->items[q->head];
        q->head = (q->head + 1) % q->capacity;
        q->count--;
    }
    pthread_mutex_unlock(&q->lock);
    if (value != -1)
        __atomic_fetch_sub(&q->size, 1, __ATOMIC_SEQ_CST);   /* BUG: after the unlock */
    return value;
}

long queue_size(struct queue *q)
{
    return __atomic_load_n(&q->size, __ATOMIC_SEQ_CST);
}
