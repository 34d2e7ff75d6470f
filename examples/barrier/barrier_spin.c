/* barrier_spin.c - a barrier by busy-waiting on a counter, BUGGY: the
 * counter loses an arrival and everybody spins forever (livelock).
 *
 * Problem and structure: as barrier.c (THREADS threads, ROUNDS rounds, a
 * barrier at the end of each round; each thread asserts after the barrier
 * that all THREADS arrived in this round).  Instead of semaphores this
 * student uses one counter per round and spins until it reaches THREADS
 * ("no semaphores, no deadlock").
 *
 * The bug: the arrival `at_barrier[r] = at_barrier[r] + 1` is an
 * unprotected read-add-write.  When two threads read the same value, one
 * arrival is lost, the counter stops at THREADS - 1, and every thread spins
 * in the while loop forever - nobody is blocked, so it is not a deadlock,
 * but nobody makes progress either:
 *   T1: reads at_barrier[0] (0)
 *   T2: reads at_barrier[0] (0), writes 1
 *   T1: writes 1                              <- T2's arrival is lost
 *   T3: writes 2; T1, T2, T3 spin while at_barrier[0] < 3, forever
 *
 *   ./barrier_spin [ROUNDS]
 *   mdat run --max-steps 20000 ./barrier_spin
 *
 * Expected mdat verdict: step-limit (more than --max-steps visible steps,
 * all threads spinning at the line marked FAILS).  Give a small --max-steps:
 * with the default (1,000,000) the run hits the --timeout first.
 * Natively: hangs now and then, burning CPU.
 * Fix: count arrivals under a mutex (or with an atomic increment) - and
 * better, block instead of spinning (barrier.c or pthread_barrier_wait).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3
#define MAX_ROUNDS 100

volatile int at_barrier[MAX_ROUNDS];    /* how many threads reached the barrier of round r */

int arrived[MAX_ROUNDS];                /* the test: who reached the barrier in round r */
pthread_mutex_t arrived_lock = PTHREAD_MUTEX_INITIALIZER;
int rounds = 3;

static void barrier_wait(int r)
{
    at_barrier[r] = at_barrier[r] + 1;  /* BUG: read-add-write without a lock: an arrival can be lost */
    while (at_barrier[r] < THREADS)     /* FAILS: spins forever when an arrival was lost */
        ;                               /* busy-wait until everybody is here */
}

static void *worker(void *arg)
{
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&arrived_lock);      /* the work of round r */
        arrived[r]++;
        pthread_mutex_unlock(&arrived_lock);

        barrier_wait(r);

        pthread_mutex_lock(&arrived_lock);      /* everybody finished round r */
        assert(arrived[r] == THREADS);
        pthread_mutex_unlock(&arrived_lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS];

    if (argc > 1)
        rounds = atoi(argv[1]);
    if (rounds > MAX_ROUNDS)
        rounds = MAX_ROUNDS;
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("%d threads passed %d barriers\n", THREADS, rounds);
    return 0;
}
