/* peterson_fence.c - Peterson's algorithm with a full fence after the
 * stores, as x86 needs.
 *
 * CORRECT under sequential consistency and on x86: __sync_synchronize()
 * (mfence) waits until the flag and the turn have left the store buffer
 * before the other's flag is read.
 * Expected mdat verdict: no failure with --memory-model sc or tso
 * (--races=off: the flags are plain variables).
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
    __sync_synchronize();
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
    assert(inside == 1);
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
