/* A correct queue: every operation under one mutex. lincheck must find
 * nothing here (tests/e2e/lincheck.sh). */
#include <pthread.h>
#include <stdlib.h>
#include "queue_mutex.h"

struct queue {
    pthread_mutex_t lock;
    int *items;
    int capacity, head, count;
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
    return value;
}

long queue_size(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    long n = q->count;
    pthread_mutex_unlock(&q->lock);
    return n;
}
