/* peterson_nofence.c - Peterson's algorithm on plain volatile variables.
 *
 * CORRECT under sequential consistency, BUGGY on x86: a thread's store of
 * its flag can wait in the store buffer while it reads the other's flag, so
 * both enter the critical section.  `inside` counts the threads in it.
 * Expected mdat verdict: no failure with --memory-model sc (--races=off:
 * the flags are plain variables, a data race by the C standard); an
 * assertion failure with --memory-model tso.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

volatile int flag[2];
volatile int turn;
volatile int inside;

static void lock(int me)
{
    int other = 1 - me;
    flag[me] = 1;
    turn = other;
    while (flag[other] && turn == other)
        ;
}

static void unlock(int me)
{
    flag[me] = 0;
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    lock(me);
    inside = inside + 1;
    assert(inside == 1);                /* FAILS: both threads inside under store buffering */
    inside = inside - 1;
    unlock(me);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)0);
    pthread_create(&b, NULL, worker, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("done\n");
    return 0;
}
