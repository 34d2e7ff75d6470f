/* peterson_swapped.c - Peterson's algorithm, BUGGY: the two stores of the
 * entry section in the wrong order.
 *
 * Problem and structure: as peterson.c (threads 0 and 1, flag[2] and turn,
 * a critical section that asserts its thread is alone in it).
 *
 * The bug: the thread gives the turn away BEFORE raising its flag.  The
 * order matters: in between, the other thread can see "thread 0 does not
 * want to enter", walk in, and then thread 0 walks in too because the turn
 * is now its own:
 *   T0: turn = 1
 *   T1: turn = 0, flag[1] = 1; flag[0] == 0: enters
 *   T0: flag[0] = 1; flag[1] == 1 but turn == 0 (mine): enters  <- both inside
 *
 *   ./peterson_swapped [ROUNDS]
 *   mdat run ./peterson_swapped
 *
 * Expected mdat verdict: assertion failure `inside == 1' in worker() (line
 * marked FAILS).
 * Fix: flag first, then turn (peterson.c).
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
    atomic_store(&turn, other);         /* you go first if you want to ... */
    atomic_store(&flag[me], 1);         /* BUG: ... and I want to enter: flag raised AFTER giving the turn away */
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
        assert(inside == 1);            /* FAILS: both threads inside */
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
