/* two_stages.c - a value published in two locked stages, checked by one
 * reader among many writers: the bug needs one preemption at one place.
 *
 * BUGGY.  Each of WRITERS threads sets first = 1 under one lock and then
 * second = first + 1 under another; the reader, created last, expects
 * second == first + 1 whenever it sees first set.  Only a schedule where
 * the reader runs after the first writer's first stage and before any
 * writer's second stage fails: with no preemption every writer finishes
 * before the reader starts, and a preemption elsewhere or to another
 * writer changes nothing.  SCTBench's twostage_100 in miniature: random
 * schedules rarely meet it (the preemption at one step of the first writer
 * to run, to the one thread of twenty that differs); the schedules with one
 * preemption, taken in order from the start, reach it after about thirty
 * (the writers being alike).  Run with --races off.
 */
#include <assert.h>
#include <pthread.h>

enum { WRITERS = 20 };

static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second_lock = PTHREAD_MUTEX_INITIALIZER;
static int first, second;

static void *writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&first_lock);
    first = 1;
    pthread_mutex_unlock(&first_lock);
    pthread_mutex_lock(&second_lock);
    second = first + 1;
    pthread_mutex_unlock(&second_lock);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&first_lock);
    int seen_first = first;
    pthread_mutex_unlock(&first_lock);
    if (!seen_first)
        return NULL;
    pthread_mutex_lock(&second_lock);
    int seen_second = second;
    pthread_mutex_unlock(&second_lock);
    assert(seen_second == seen_first + 1);  /* FAILS: read between a writer's stages */
    return NULL;
}

int main(void)
{
    pthread_t writers[WRITERS], r;
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&writers[i], NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(writers[i], NULL);
    pthread_join(r, NULL);
    return 0;
}
