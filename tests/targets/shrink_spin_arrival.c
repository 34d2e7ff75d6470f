/* shrink_spin_arrival.c - a barrier that spins on a counter incremented
 * without a lock (shrinking's test of the fewest preemptions on a spin).
 *
 * Two workers that read the count before either writes it lose an arrival;
 * the count never reaches THREADS and all of them spin for ever (livelock
 * at the line marked FAILS). One preemption is enough (a worker switched
 * out between its read and its write); the switches between threads that
 * spin are no preemptions, as every strategy that prefers progress makes
 * them.
 *
 * Expected: livelock in some schedules, at the line marked FAILS.
 */
#include <pthread.h>

#define THREADS 3

static volatile int count[2];

static void *worker(void *arg)
{
    for (int round = 0; round < 2; round++) {
        count[round] = count[round] + 1;    /* BUG: read and write apart */
        while (count[round] < THREADS)      /* FAILS: spins for ever */
            ;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
