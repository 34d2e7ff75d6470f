/* peterson_plain.c - Peterson's algorithm on plain variables: CORRECT on a
 * sequentially consistent machine, BUGGY on x86.
 *
 * Problem: mutual exclusion for two threads using only loads and stores (no
 * atomic read-modify-write): threads 0 and 1 each enter a critical section
 * ROUNDS times (argv[1], default 2), never both at once.
 *
 * Structure: flag[i] says "thread i wants to enter"; turn says who has to
 * give way when both want to.  To enter, thread i raises its flag, THEN
 * gives the turn away, and waits while the other wants in and it is the
 * other's turn.  If both arrive together, the one that wrote `turn` LAST
 * waits.  Here the variables are plain `volatile int`s: in every
 * interleaving the algorithm is right, but on an x86 CPU a thread's store
 * of its flag can still sit in its store buffer when it reads the other's
 * flag, so both read 0 and both enter (mdat run --memory-model tso shows
 * it).
 * In the critical section each thread counts itself into `inside` and
 * asserts it is alone.
 *
 *   ./peterson_plain [ROUNDS]
 *   mdat run --races=off ./peterson_plain                      (no failure)
 *   mdat run --races=off --memory-model tso ./peterson_plain   (assertion)
 *
 * Expected: exits 0 in every schedule of a sequentially consistent
 * machine; the assertion fails under x86-TSO.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile int flag[2];                   /* flag[i]: thread i wants to enter */
volatile int turn;                      /* who gives way when both want to */
int inside = 0;
int total = 0;
int rounds = 2;

static void peterson_lock(int me)
{
    int other = 1 - me;
    flag[me] = 1;                       /* BUG: may wait in the store buffer ... */
    turn = other;
    while (flag[other] && turn == other)    /* ... while this reads the other's flag */
        ;
}

static void peterson_unlock(int me)
{
    flag[me] = 0;
}

static void *worker(void *arg)
{
    int me = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        peterson_lock(me);              /* entry section */
        inside++;                       /* critical section */
        assert(inside == 1);            /* FAILS: under x86-TSO both can be here */
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
