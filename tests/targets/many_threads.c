/* many_threads.c - 100 threads, each does one locked increment.
 *
 * CORRECT.  main creates 100 threads (all alive at once unless they have
 * already finished), each locks counter_lock, increments counter, unlocks;
 * main joins them all and asserts counter == 100.  Exercises thread
 * bookkeeping at scale, not interleavings (the schedule space is huge, but
 * every schedule passes).
 *
 * Expected mdat verdict: exit 0 ("counter = 100") in EVERY schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 100

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
int counter = 0;

static void *incrementer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&counter_lock);
    counter = counter + 1;
    pthread_mutex_unlock(&counter_lock);
    return NULL;
}

int main(void)
{
    static pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        int rc = pthread_create(&t[i], NULL, incrementer, NULL);
        assert(rc == 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    assert(counter == THREADS);
    return 0;
}
