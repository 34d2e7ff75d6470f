/* dekker_plain.c - Dekker's algorithm on plain variables: CORRECT on a
 * sequentially consistent machine, BUGGY on x86.
 *
 * Problem: mutual exclusion for two threads using only loads and stores (no
 * atomic read-modify-write): threads 0 and 1 each enter a critical section
 * ROUNDS times (argv[1], default 2), never both at once.
 *
 * Structure: the first mutual exclusion algorithm ever published (Dekker,
 * 1965).  flag[i] says "thread i wants to enter"; turn says who insists
 * when both want to.  To enter, thread i raises its flag and looks at the
 * other's.  While the other also wants in, the thread whose turn it is not
 * lowers its flag, waits for its turn, and raises the flag again.  On the
 * way out a thread gives the turn away and lowers its flag.  In every
 * interleaving this is right: whoever reads the other's flag last sees it
 * raised.  On an x86 CPU `flag[me] = 1` can still sit in the store buffer
 * when the same thread reads `flag[other]`, so both threads read 0 and
 * both enter (mdat run --memory-model tso shows it).
 * In the critical section each thread counts itself into `inside` and
 * asserts it is alone.
 *
 *   ./dekker_plain [ROUNDS]
 *   mdat run --races=off ./dekker_plain                      (no failure)
 *   mdat run --races=off --memory-model tso ./dekker_plain   (assertion)
 *
 * Expected: exits 0 in every schedule of a sequentially consistent
 * machine; the assertion fails under x86-TSO.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile int flag[2];                   /* flag[i]: thread i wants to enter */
volatile int turn;                      /* who insists when both want to */
int inside = 0;
int total = 0;
int rounds = 2;

static void dekker_lock(int me)
{
    int other = 1 - me;
    flag[me] = 1;                       /* BUG: may wait in the store buffer ... */
    while (flag[other]) {               /* ... while this reads the other's flag */
        if (turn != me) {
            flag[me] = 0;               /* give way until it is my turn */
            while (turn != me)
                ;
            flag[me] = 1;
        }
    }
}

static void dekker_unlock(int me)
{
    turn = 1 - me;
    flag[me] = 0;
}

static void *worker(void *arg)
{
    int me = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        dekker_lock(me);                /* entry section */
        inside++;                       /* critical section */
        assert(inside == 1);            /* FAILS: under x86-TSO both can be here */
        total++;
        inside--;
        dekker_unlock(me);              /* exit section */
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
