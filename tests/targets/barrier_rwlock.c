/* barrier_rwlock.c - three threads in phases separated by a reused barrier,
 * sharing data through a reader-writer lock.
 *
 * CORRECT.  Thread i (1..3):
 *   phase 1: wrlock, slot[i-1] = i, total += i, unlock
 *   --- pthread_barrier_wait (3 parties) ---
 *   phase 2: rdlock, assert total == 6 and the slots sum to 6, unlock
 *   --- pthread_barrier_wait again (the barrier is reused) ---
 *   phase 3: wrlock, total += 10, unlock
 * Exactly one thread per barrier round gets PTHREAD_BARRIER_SERIAL_THREAD and
 * counts it.  main joins and asserts total == 36 and serial == 2.
 *
 * Expected mdat verdict: exit 0 ("total = 36") in EVERY schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 3

pthread_barrier_t phase_barrier;
pthread_rwlock_t data_lock = PTHREAD_RWLOCK_INITIALIZER;
int slot[THREADS];
int total = 0;
int serial = 0;                      /* written only by the serial thread of each round */

static void barrier(void)
{
    int rc = pthread_barrier_wait(&phase_barrier);
    assert(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
        serial = serial + 1;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;

    pthread_rwlock_wrlock(&data_lock);
    slot[id - 1] = id;
    total = total + id;
    pthread_rwlock_unlock(&data_lock);

    barrier();

    pthread_rwlock_rdlock(&data_lock);
    int seen = 0;
    for (int i = 0; i < THREADS; i++)
        seen += slot[i];
    assert(seen == 6);
    assert(total == 6);
    pthread_rwlock_unlock(&data_lock);

    barrier();

    pthread_rwlock_wrlock(&data_lock);
    total = total + 10;
    pthread_rwlock_unlock(&data_lock);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    pthread_barrier_init(&phase_barrier, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total = %d\n", total);
    assert(total == 36);
    assert(serial == 2);
    pthread_barrier_destroy(&phase_barrier);
    return 0;
}
