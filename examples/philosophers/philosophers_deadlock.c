/* philosophers_deadlock.c - dining philosophers, BUGGY: everybody picks up
 * the left fork first (deadlock).
 *
 * Problem: N philosophers, one fork between each two neighbours; eating needs
 * both forks (see philosophers.c).  Same structure as philosophers.c: one
 * mutex per fork, MEALS rounds of think / pick up / eat / put down.
 *
 * The bug: every philosopher picks up their LEFT fork (fork i), then their
 * RIGHT fork (fork (i+1) % N).  If all N pick up their left fork before
 * anyone picks up a right one, each waits for the fork their right-hand
 * neighbour holds: a cycle of N threads, DEADLOCK.
 *   P0: lock(fork 0)  P1: lock(fork 1)  ...  P4: lock(fork 4)
 *   P0: lock(fork 1) blocks ... P4: lock(fork 0) blocks
 * The thinking (usleep) before each meal is where the philosophers get out
 * of step; the deadlock needs all five to be between their two locks.
 *
 *   ./philosophers_deadlock [MEALS]
 *   mdat run ./philosophers_deadlock
 *
 * Expected mdat verdict: deadlock, wait cycle through all 5 philosophers,
 * each waiting on the next fork (line marked BUG) while holding their left
 * fork.  Natively it rarely hangs.
 * Fix: pick up the lower-numbered fork first (philosophers.c).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 5

pthread_mutex_t fork_lock[N];
int eating[N];                          /* philosopher i is eating */
int meals = 2;

static void *philosopher(void *arg)
{
    int i = *(int *)arg;
    int left = i, right = (i + 1) % N;

    for (int m = 0; m < meals; m++) {
        usleep(100);                                 /* think */
        pthread_mutex_lock(&fork_lock[left]);        /* pick up forks */
        pthread_mutex_lock(&fork_lock[right]);       /* BUG: all N may hold their left fork and wait here */
        eating[i] = 1;                               /* eat */
        assert(!eating[(i + N - 1) % N] && !eating[(i + 1) % N]);
        usleep(100);
        eating[i] = 0;
        pthread_mutex_unlock(&fork_lock[right]);     /* put down forks */
        pthread_mutex_unlock(&fork_lock[left]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[N];
    int id[N];

    if (argc > 1)
        meals = atoi(argv[1]);
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&fork_lock[i], NULL);
    for (int i = 0; i < N; i++) {
        id[i] = i;
        pthread_create(&t[i], NULL, philosopher, &id[i]);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    printf("all %d philosophers ate %d times\n", N, meals);
    return 0;
}
