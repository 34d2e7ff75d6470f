/* many_increments.c - 64 threads, each incrementing a shared counter 10,000
 * times under a mutex: 640,000 lock/increment/unlock rounds, millions of
 * visible steps.
 *
 * CORRECT.  The final count is always 640000 (asserted).  Under mdat's
 * default options this must never be a FAILURE: it is long, not stuck.
 * Threads and rounds can be given: many_increments THREADS ROUNDS.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static long rounds = 10000;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

static void *increment(void *arg)
{
    (void)arg;
    for (long i = 0; i < rounds; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 64;
    if (argc > 2)
        rounds = atol(argv[2]);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int i = 0; i < threads; i++)
        pthread_create(&tids[i], NULL, increment, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    assert(counter == threads * rounds);
    printf("counter %ld\n", counter);
    free(tids);
    return 0;
}
