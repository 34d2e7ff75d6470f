/* barrier.c - a reusable barrier built from semaphores, CORRECT version
 * (two turnstiles).
 *
 * Problem: THREADS threads work in ROUNDS rounds (argv[1], default 3).  No
 * thread may start round r+1 before every thread has finished round r: at
 * the end of each round they all meet at a barrier, and the same barrier is
 * used again in the next round.
 *
 * Structure: the barrier has a counter, a mutex semaphore and two
 * "turnstiles" (semaphores that start at 0):
 *   phase 1: count up; the LAST to arrive posts turnstile1 THREADS times;
 *            everybody passes turnstile1.
 *   phase 2: count down; the LAST to leave posts turnstile2 THREADS times;
 *            everybody passes turnstile2.
 * Phase 2 is what makes the barrier reusable: a fast thread cannot get back
 * to turnstile1 while slower ones are still on their way through it - it
 * would have to pass turnstile2 first, which opens only when everybody has
 * left turnstile1.
 * The test: each thread counts itself into arrived[r] before the barrier
 * and asserts after it that all THREADS have arrived in round r.
 *
 *   ./barrier [ROUNDS]
 *   mdat run ./barrier
 *
 * Expected: exits 0 in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3
#define MAX_ROUNDS 100

int count = 0;                          /* threads inside the barrier */
sem_t mutex, turnstile1, turnstile2;

int arrived[MAX_ROUNDS];                /* the test: who reached the barrier in round r */
pthread_mutex_t arrived_lock = PTHREAD_MUTEX_INITIALIZER;
int rounds = 3;

static void barrier_wait(void)
{
    sem_wait(&mutex);
    count++;
    if (count == THREADS)               /* last to arrive: open turnstile 1 for everybody */
        for (int i = 0; i < THREADS; i++)
            sem_post(&turnstile1);
    sem_post(&mutex);
    sem_wait(&turnstile1);

    sem_wait(&mutex);
    count--;
    if (count == 0)                     /* last to leave: open turnstile 2 for everybody */
        for (int i = 0; i < THREADS; i++)
            sem_post(&turnstile2);
    sem_post(&mutex);
    sem_wait(&turnstile2);
}

static void *worker(void *arg)
{
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&arrived_lock);      /* the work of round r */
        arrived[r]++;
        pthread_mutex_unlock(&arrived_lock);

        barrier_wait();

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
    sem_init(&mutex, 0, 1);
    sem_init(&turnstile1, 0, 0);
    sem_init(&turnstile2, 0, 0);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("%d threads passed %d barriers\n", THREADS, rounds);
    return 0;
}
