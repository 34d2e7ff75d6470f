/* philosophers.c N [naive] - N dining philosophers (2..8, default 3), each
 * eating once, every one taking the lower-numbered of its two forks first
 * (the fixed version), or with "naive" its left fork first.
 *
 * Fixed: CORRECT, no deadlock (the global fork order breaks every cycle), and no
 * two neighbours eat at once (asserted). Each fork is taken by its two
 * neighbours in one of 2 orders; of the 2^N combinations exactly 2 are
 * cyclic (everyone before their right neighbour, or everyone after) and
 * cannot happen, so 2^N - 2 classes: 6, 14, 30 for 3, 4, 5 (issue 26's
 * GenMC figures).
 * Naive: BUGGY, a deadlock when every philosopher holds its left fork.
 * Without arguments: -DPHILOSOPHERS=N and -DNAIVE=1 at compile time, the
 * defaults 3 and 0 otherwise (GenMC runs main without arguments:
 * scripts/dpor-bench).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PHILOSOPHERS
#define PHILOSOPHERS 3
#endif
#ifndef NAIVE
#define NAIVE 0
#endif

enum { MAX_PHILOSOPHERS = 8 };

static pthread_mutex_t fork_lock[MAX_PHILOSOPHERS];
static int eating[MAX_PHILOSOPHERS];
static int n = PHILOSOPHERS;
static int id[MAX_PHILOSOPHERS];
static int naive;

static void *philosopher(void *arg)
{
    int i = *(int *)arg;
    int left = i, right = (i + 1) % n;
    int first = naive || left < right ? left : right;
    int second = naive || left < right ? right : left;
    pthread_mutex_lock(&fork_lock[first]);
    pthread_mutex_lock(&fork_lock[second]);
    eating[i] = 1;
    assert(!eating[(i + n - 1) % n] && !eating[(i + 1) % n]);
    eating[i] = 0;
    pthread_mutex_unlock(&fork_lock[second]);
    pthread_mutex_unlock(&fork_lock[first]);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    naive = argc > 2 ? strcmp(argv[2], "naive") == 0 : NAIVE;
    if (n < 2 || n > MAX_PHILOSOPHERS) {
        fprintf(stderr, "usage: philosophers [N 2..%d] [naive]\n", MAX_PHILOSOPHERS);
        return 2;
    }
    pthread_t t[MAX_PHILOSOPHERS];
    for (int i = 0; i < n; i++)
        pthread_mutex_init(&fork_lock[i], NULL);
    for (int i = 0; i < n; i++) {
        id[i] = i;
        pthread_create(&t[i], NULL, philosopher, &id[i]);
    }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("%d philosophers ate\n", n);
    return 0;
}
