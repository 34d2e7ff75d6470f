/* counter_split_lock.c - a shared counter, BUGGY: the read and the write
 * are each locked, but not together (lost update).
 *
 * Problem and structure: as counter.c (THREADS threads, INCREMENTS
 * increments each, main asserts the total).
 *
 * The bug: the student put every ACCESS to the counter under the mutex -
 * read_counter() and write_counter() each lock and unlock - and believes the
 * counter is protected.  But the increment is read-then-write, and the lock
 * is released in between: another thread can read the same value, and one
 * of the two increments is lost, exactly as with no lock at all
 * (counter_nolock.c).  Locking each access is not enough: the whole
 * read-modify-write has to be one critical section.
 *
 *   ./counter_split_lock [INCREMENTS]
 *   mdat run ./counter_split_lock
 *
 * Expected mdat verdict: assertion failure in main (line marked FAILS).
 * Fix: lock; counter = counter + 1; unlock (counter.c).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 2

int counter = 0;
pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
int increments = 3;

static int read_counter(void)
{
    pthread_mutex_lock(&counter_lock);
    int value = counter;
    pthread_mutex_unlock(&counter_lock);
    return value;
}

static void write_counter(int value)
{
    pthread_mutex_lock(&counter_lock);
    counter = value;
    pthread_mutex_unlock(&counter_lock);
}

static void *worker(void *arg)
{
    for (int i = 0; i < increments; i++) {
        int value = read_counter();
        write_counter(value + 1);       /* BUG: the lock was released after the read; the value may be stale */
    }
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
