/* spinlock_flag.c - mutual exclusion by busy-waiting, BUGGY: test, then set
 * (not atomic).
 *
 * Problem and structure: as spinlock.c (THREADS threads, ROUNDS rounds, a
 * critical section that asserts its thread is alone in it).
 *
 * The bug: spin_lock() waits until `locked` is 0 and THEN sets it to 1.  The
 * test and the set are two separate memory operations, and another thread
 * can run between them:
 *   T1: reads locked == 0, leaves the loop
 *   T2: reads locked == 0, leaves the loop, locked = 1, enters: inside = 1
 *   T1: locked = 1, enters: inside = 2        <- assertion fails
 * `volatile` does not help: it makes the compiler re-read the variable, it
 * does not make two operations one.
 *
 *   ./spinlock_flag [ROUNDS]
 *   mdat run ./spinlock_flag
 *
 * Expected mdat verdict: assertion failure `inside == 1' in worker() (line
 * marked FAILS).
 * Fix: an atomic test-and-set (atomic_exchange, spinlock.c), or a mutex.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2

volatile int locked = 0;                /* 0 free, 1 held */
int inside = 0;                         /* threads in the critical section */
int total = 0;
int rounds = 2;

static void spin_lock(void)
{
    while (locked)                      /* wait until the lock is free ... */
        ;
    locked = 1;                         /* BUG: ... and take it - but another thread may have seen it free too */
}

static void spin_unlock(void)
{
    locked = 0;
}

static void *worker(void *arg)
{
    for (int r = 0; r < rounds; r++) {
        spin_lock();                    /* entry section */
        inside++;                       /* critical section */
        assert(inside == 1);            /* FAILS: two threads inside */
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
