/* A queue that is sequentially consistent but not linearizable: push only
 * parks the value in the calling thread's own pending slot, and a thread's
 * parked values reach the shared queue when that same thread next pops or
 * asks the size. Used by one thread it is a plain FIFO; across threads a
 * push can return long before another thread's pop can see its value, so
 * a pop that begins after the push ended still finds the queue empty. Only
 * the real-time order tells this apart (tests/e2e/lincheck.sh lazy_*). */
#include <pthread.h>
#include <stdlib.h>
#include "queue_mutex.h"

enum { PENDING_MAX = 8 };

struct queue {
    pthread_mutex_t lock;
    int *items;
    int capacity, head, count;
};

/* Per thread, so parking needs no lock and races with nobody. */
static __thread int pending[PENDING_MAX];
static __thread int npending;

struct queue *queue_new(int capacity)
{
    struct queue *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    q->items = calloc((size_t)capacity, sizeof *q->items);
    q->capacity = capacity;
    return q;
}

/* Moves this thread's parked values into the queue; the lock is held. */
static void flush_pending(struct queue *q)
{
    for (int i = 0; i < npending && q->count < q->capacity; i++) {
        q->items[(q->head + q->count) % q->capacity] = pending[i];
        q->count++;
    }
    npending = 0;
}

int queue_push(struct queue *q, int value)
{
    (void)q;
    if (npending == PENDING_MAX)
        return -1;
    pending[npending++] = value;
    return 0;
}

int queue_pop(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    flush_pending(q);
    int value = -1;
    if (q->count > 0) {
        value = q->items[q->head];
        q->head = (q->head + 1) % q->capacity;
        q->count--;
    }
    pthread_mutex_unlock(&q->lock);
    return value;
}

long queue_size(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    flush_pending(q);
    long n = q->count;
    pthread_mutex_unlock(&q->lock);
    return n;
}
