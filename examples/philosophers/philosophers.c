/* philosophers.c - dining philosophers, CORRECT version (forks taken in a
 * global order).
 *
 * Problem: N philosophers sit around a table with one fork between each two
 * neighbours.  A philosopher thinks, then eats, which needs BOTH forks next
 * to them, for MEALS rounds (argv[1], default 2).  Neighbours never eat at
 * the same time, and nobody may wait forever.
 *
 * Structure: one mutex per fork.  Philosopher i uses forks i and (i+1) % N.
 * Each thread runs MEALS rounds of think (remainder section), pick up forks
 * (entry), eat (critical section), put down forks (exit).  While eating, a
 * philosopher asserts that neither neighbour is eating.
 *
 * Deadlock freedom: every philosopher picks up the LOWER-numbered of their two
 * forks first.  Then no cycle of "holds one fork, waits for the next" can
 * form: the last philosopher (forks N-1 and 0) starts with fork 0 like
 * philosopher 0, so they cannot both hold one fork and wait for the other.
 *
 *   ./philosophers [MEALS]
 *   mdat run ./philosophers
 *
 * Expected: exits 0 in every schedule.
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
    int first = left < right ? left : right;     /* lower-numbered fork first */
    int second = left < right ? right : left;

    for (int m = 0; m < meals; m++) {
        usleep(100);                                 /* think */
        pthread_mutex_lock(&fork_lock[first]);       /* pick up forks */
        pthread_mutex_lock(&fork_lock[second]);
        eating[i] = 1;                               /* eat */
        assert(!eating[(i + N - 1) % N] && !eating[(i + 1) % N]);
        usleep(100);
        eating[i] = 0;
        pthread_mutex_unlock(&fork_lock[second]);    /* put down forks */
        pthread_mutex_unlock(&fork_lock[first]);
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
