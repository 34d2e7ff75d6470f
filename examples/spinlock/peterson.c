/* peterson.c - Peterson's algorithm for two threads, CORRECT version.
 *
 * Problem: mutual exclusion for two threads using only loads and stores (no
 * atomic read-modify-write): threads 0 and 1 each enter a critical section
 * ROUNDS times (argv[1], default 2), never both at once.
 *
 * Structure: flag[i] says "thread i wants to enter"; turn says who has to
 * give way when both want to.  To enter, thread i raises its flag, THEN
 * gives the turn away, and waits while the other wants in and it is the
 * other's turn.  If both arrive together, the one that wrote `turn` LAST
 * waits.  The variables are C11 atomics (sequentially consistent): on a
 * real x86 CPU plain variables are not enough, because a store may be
 * delayed past the following load (mdat runs one thread at a time, so it
 * would not show that reordering anyway).
 * In the critical section each thread counts itself into `inside` and
 * asserts it is alone.
 *
 *   ./peterson [ROUNDS]
 *   mdat run ./peterson
 *
 * Expected: exits 0 in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

atomic_int flag[2];                     /* flag[i]: thread i wants to enter */
atomic_int turn;                        /* who gives way when both want to */
int inside = 0;
int total = 0;
int rounds = 2;

static void peterson_lock(int me)
{
    int other = 1 - me;
    atomic_store(&flag[me], 1);         /* I want to enter ... */
    atomic_store(&turn, other);         /* ... but you go first if you want to */
    while (atomic_load(&flag[other]) && atomic_load(&turn) == other)
        ;                               /* you want to and it is your turn: wait */
}

static void peterson_unlock(int me)
{
    atomic_store(&flag[me], 0);
}

static void *worker(void *arg)
{
    int me = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        peterson_lock(me);              /* entry section */
        inside++;                       /* critical section */
        assert(inside == 1);
        total++;
        inside--;
        peterson_unlock(me);            /* exit section */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];
    int id[2] = {0, 1};

    if (argc > 1)
        rounds = atoi(argv[1]);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &id[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("total = %d\n", total);
    assert(total == 2 * rounds);
    return 0;
}
