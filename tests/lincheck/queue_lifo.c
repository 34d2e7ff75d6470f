/* A "queue" that is a correct, mutex-protected stack: pop takes the value
 * pushed last. Judged against its own serial runs (Line-Up) it is
 * linearizable, since it is a fine stack; judged against queue_seq.c's
 * FIFO (queue_lifo.lc's seq lines) it is wrong even with one thread. */
#include <pthread.h>
#include <stdlib.h>
#include "queue_mutex.h"

struct queue {
    pthread_mutex_t lock;
    int *items;
    int capacity, count;
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
    if (ok)
        q->items[q->count++] = value;
    pthread_mutex_unlock(&q->lock);
    return ok ? 0 : -1;
}

int queue_pop(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    int value = q->count > 0 ? q->items[--q->count] : -1;
    pthread_mutex_unlock(&q->lock);
    return value;
}

long queue_size(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    long n = q->count;
    pthread_mutex_unlock(&q->lock);
    return n;
}
