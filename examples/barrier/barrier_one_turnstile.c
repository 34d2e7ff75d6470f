/* barrier_one_turnstile.c - a reusable barrier from semaphores, BUGGY: a
 * single turnstile lets a fast thread lap the others.
 *
 * Problem and structure: as barrier.c (THREADS threads, ROUNDS rounds, the
 * same barrier every round; each thread asserts after the barrier that all
 * THREADS arrived in this round).
 *
 * The bug: the barrier has only ONE phase.  The last thread to arrive resets
 * the count and posts the turnstile THREADS times, one post per thread - but
 * a post is not addressed to anyone.  A thread that gets through quickly
 * can run its next round, arrive at the barrier again, and take a post meant
 * for a slower thread still on its way to the turnstile; it passes the
 * barrier of round r+1 alone:
 *   T3: arrives last in round 0: count = 0, posts turnstile 3 times
 *   T1: passes (post 1), works round 1, arrives: count = 1, passes (post 2!)
 *   T1: asserts arrived[1] == 3                 <- fails: only T1 is in round 1
 *   (T2 and T3 then fight over the one post that is left.)
 *
 *   ./barrier_one_turnstile [ROUNDS]
 *   mdat run ./barrier_one_turnstile
 *
 * Expected mdat verdict: assertion failure in worker() (line marked FAILS).
 * Fix: a second phase with a second turnstile (barrier.c), which keeps
 * everybody out of turnstile 1 until all have left it.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3
#define MAX_ROUNDS 100

int count = 0;                          /* threads that arrived at the barrier */
sem_t mutex, turnstile;

int arrived[MAX_ROUNDS];                /* the test: who reached the barrier in round r */
pthread_mutex_t arrived_lock = PTHREAD_MUTEX_INITIALIZER;
int rounds = 3;

static void barrier_wait(void)
{
    sem_wait(&mutex);
    count++;
    if (count == THREADS) {             /* last to arrive: let everybody through */
        count = 0;                      /* and reset the count for the next round */
        for (int i = 0; i < THREADS; i++)
            sem_post(&turnstile);
    }
    sem_post(&mutex);
    sem_wait(&turnstile);               /* BUG: a fast thread back here next round can take a slow thread's post */
}

static void *worker(void *arg)
{
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&arrived_lock);      /* the work of round r */
        arrived[r]++;
        pthread_mutex_unlock(&arrived_lock);

        barrier_wait();

        pthread_mutex_lock(&arrived_lock);      /* everybody finished round r */
        assert(arrived[r] == THREADS);          /* FAILS: a thread lapped the others */
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
    sem_init(&turnstile, 0, 0);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("%d threads passed %d barriers\n", THREADS, rounds);
    return 0;
}
