/* counter_nolock.c - a shared counter, BUGGY: increments without a lock
 * (lost update).
 *
 * Problem and structure: as counter.c (THREADS threads, INCREMENTS
 * increments each, main asserts the total), without the mutex.
 *
 * The bug: `counter = counter + 1` is a read, an add and a write.  If the
 * other thread writes the counter between this thread's read and its write,
 * this thread writes back a stale value and the other's increment is lost:
 *   T1: reads counter (0)
 *   T2: reads counter (0), writes 1
 *   T1: writes 0 + 1 = 1                <- T2's increment is gone
 *
 *   ./counter_nolock [INCREMENTS]
 *   mdat run ./counter_nolock
 *
 * Expected mdat verdict: assertion failure in main (line marked FAILS);
 * the trace shows the two reads of `counter` before the two writes.
 * Natively: with a few increments it almost always prints the right total;
 * with millions it nearly never does.
 * Fix: a mutex around the increment (counter.c).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2

int counter = 0;
int increments = 3;

static void *worker(void *arg)
{
    for (int i = 0; i < increments; i++)
        counter = counter + 1;          /* BUG: read-add-write with no lock: updates get lost */
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS];

    if (argc > 1)
        increments = atoi(argv[1]);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    assert(counter == THREADS * increments);   /* FAILS: when an increment was lost */
    return 0;
}
