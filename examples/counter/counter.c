/* counter.c - a shared counter, CORRECT version (the increment under a mutex).
 *
 * Problem: THREADS threads each add 1 to a shared counter INCREMENTS times
 * (argv[1], default 3).  At the end the counter must be THREADS * INCREMENTS.
 *
 * Structure: `counter = counter + 1` is three steps for the CPU (read the
 * counter, add one, write it back).  The mutex makes the three one atomic
 * step as far as the other threads can tell.  main joins the threads and
 * asserts the total.
 *
 *   ./counter [INCREMENTS]
 *   mdat run ./counter
 *
 * Expected: exits 0 in every schedule, printing "counter = 6".
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2

int counter = 0;
pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
int increments = 3;

static void *worker(void *arg)
{
    for (int i = 0; i < increments; i++) {
        pthread_mutex_lock(&counter_lock);
        counter = counter + 1;          /* read, add, write: nobody else in between */
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS];

    if (argc > 1)
        increments = atoi(argv[1]);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    assert(counter == THREADS * increments);
    return 0;
}
