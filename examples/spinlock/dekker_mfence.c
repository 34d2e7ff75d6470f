/* dekker_mfence.c - Dekker's algorithm on plain variables with full
 * fences: CORRECT on a sequentially consistent machine and on x86.
 *
 * Problem: mutual exclusion for two threads using only loads and stores (no
 * atomic read-modify-write): threads 0 and 1 each enter a critical section
 * ROUNDS times (argv[1], default 2), never both at once.
 *
 * Structure: as dekker_plain.c (flag[i]: thread i wants to enter; turn:
 * who insists when both want to), with __sync_synchronize() (an mfence)
 * after every store that raises a flag: the flag has left the store buffer
 * before the other thread's flag is read, so of two threads that both want
 * in, the one that reads last sees the other's flag raised.
 * In the critical section each thread counts itself into `inside` and
 * asserts it is alone.
 *
 *   ./dekker_mfence [ROUNDS]
 *   mdat run --races=off --memory-model tso ./dekker_mfence
 *
 * Expected: exits 0 in every schedule, under sequential consistency and
 * under x86-TSO.
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

static void raise_flag(int me)
{
    flag[me] = 1;
    __sync_synchronize();               /* the flag reaches memory before the other's is read */
}

static void dekker_lock(int me)
{
    int other = 1 - me;
    raise_flag(me);
    while (flag[other]) {
        if (turn != me) {
            flag[me] = 0;               /* give way until it is my turn */
            while (turn != me)
                ;
            raise_flag(me);
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
        assert(inside == 1);
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
