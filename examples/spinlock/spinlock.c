/* spinlock.c - mutual exclusion by busy-waiting, CORRECT version
 * (test-and-set with an atomic exchange).
 *
 * Problem: build a lock from nothing but shared memory: THREADS threads
 * each enter a critical section ROUNDS times (argv[1], default 2); never
 * two threads inside at once.
 *
 * Structure: `locked` is 0 when the lock is free.  spin_lock() atomically
 * swaps in a 1 and looks at what was there: 0 means "it was free and now it
 * is mine", 1 means "someone holds it, try again".  Testing and setting in
 * ONE atomic instruction is the whole point (see spinlock_flag.c).  In the
 * critical section each thread counts itself into `inside` and asserts it
 * is alone.
 *
 *   ./spinlock [ROUNDS]
 *   mdat run ./spinlock
 *
 * Expected: exits 0 in every schedule.  (Spinning costs mdat many steps: a
 * waiting thread re-reads `locked` until the holder gets to run again.)
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2

atomic_int locked = 0;                  /* 0 free, 1 held */
int inside = 0;                         /* threads in the critical section */
int total = 0;
int rounds = 2;

static void spin_lock(void)
{
    while (atomic_exchange(&locked, 1) == 1)   /* test and set, atomically */
        ;                                       /* held by someone else: spin */
}

static void spin_unlock(void)
{
    atomic_store(&locked, 0);
}

static void *worker(void *arg)
{
    for (int r = 0; r < rounds; r++) {
        spin_lock();                    /* entry section */
        inside++;                       /* critical section */
        assert(inside == 1);
        total++;
        inside--;
        spin_unlock();                  /* exit section */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS];

    if (argc > 1)
        rounds = atoi(argv[1]);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total = %d\n", total);
    assert(total == THREADS * rounds);
    return 0;
}
