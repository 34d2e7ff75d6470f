/* heap_queue.c - a bounded queue that lives on the heap, reached through the
 * global pointer `q`; its mutex and condition variables are members.
 *
 * CORRECT.  One producer, one consumer, while-loops around every wait.
 * Exists so that tests can check how mdat names heap memory: through the
 * global pointer (q->count, q->lock) when DWARF says what q points to, else
 * by the allocation (heap#2 (malloc at heap_queue.c:LINE) for `note`).
 * Expected mdat verdict: exit 0 in every schedule, "sum = 6".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 2
#define ITEMS 3

struct queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    int items[SLOTS];
    int head, tail, count;
};

struct queue *q;
int sum;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        int *note = malloc(sizeof *note);       /* NOTE: only a local points here */
        *note = i;
        free(note);
        pthread_mutex_lock(&q->lock);
        while (q->count == SLOTS)
            pthread_cond_wait(&q->not_full, &q->lock);
        q->items[q->tail] = i;                  /* PUT: */
        q->tail = (q->tail + 1) % SLOTS;
        q->count++;
        pthread_cond_signal(&q->not_empty);
        pthread_mutex_unlock(&q->lock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i++) {
        pthread_mutex_lock(&q->lock);
        while (q->count == 0)
            pthread_cond_wait(&q->not_empty, &q->lock);   /* WAIT_NOT_EMPTY: */
        sum += q->items[q->head];
        q->head = (q->head + 1) % SLOTS;
        q->count--;
        pthread_cond_signal(&q->not_full);
        pthread_mutex_unlock(&q->lock);
    }
    return NULL;
}

int main(void)
{
    q = calloc(1, sizeof *q);                   /* ALLOC: */
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    printf("sum = %d\n", sum);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
    free(q);
    return 0;
}
