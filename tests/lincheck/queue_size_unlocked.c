/* A queue whose size counter is updated after the lock is released: the
 * counter is atomic, so there is no data race, but size() can see a pop's
 * decrement before the push's increment and answer -1, which no serial
 * order gives. lincheck must find it (tests/e2e/lincheck.sh). */
#include <pthread.h>
#include <stdlib.h>
#include "queue_mutex.h"

struct queue {
    pthread_mutex_t lock;
    int *items;
    int capacity, head, count;
    long size;                  /* atomic, updated outside the lock: the bug */
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
        __atomic_fetch_add(&q->size, 1, __ATOMIC_SEQ_CST);
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
        __atomic_fetch_sub(&q->size, 1, __ATOMIC_SEQ_CST);
    return value;
}

long queue_size(struct queue *q)
{
    return __atomic_load_n(&q->size, __ATOMIC_SEQ_CST);
}
