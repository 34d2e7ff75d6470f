/* semaphore_misuse.c - bounded buffer with semaphores; the consumer takes
 * the mutex semaphore before waiting for an item.
 *
 * BUGGY.  Classic producer/consumer with sem_t empty (free slots), full
 * (items) and mutex (binary).  The producer correctly does
 * sem_wait(&empty); sem_wait(&mutex).  The consumer does them in the wrong
 * order: sem_wait(&mutex); sem_wait(&full).  If the consumer gets `mutex`
 * while the buffer is empty, it blocks on `full` holding `mutex`, and the
 * producer blocks on `mutex`: DEADLOCK.
 *   consumer: holds mutex, blocked in sem_wait(&full)   (line marked BUG)
 *   producer: blocked in sem_wait(&mutex)               (line marked WAIT)
 *   main:     blocked in pthread_join
 * If the producer stays ahead of the consumer, the program exits 0 and
 * prints "sum = 3".
 *
 * Expected mdat verdict: DEADLOCK in some schedules, exit 0 in others.
 * Natively: usually exits 0; may hang if the consumer starts first.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define ITEMS 2
#define SLOTS 2

int buffer[SLOTS];
int in_pos = 0, out_pos = 0;
int sum = 0;
sem_t empty, full, mutex;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        sem_wait(&empty);
        sem_wait(&mutex);            /* WAIT: producer blocks here while consumer holds mutex */
        buffer[in_pos] = i;
        in_pos = (in_pos + 1) % SLOTS;
        sem_post(&mutex);
        sem_post(&full);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i++) {
        sem_wait(&mutex);
        sem_wait(&full);             /* BUG: waits for an item while holding mutex (order swapped) */
        sum = sum + buffer[out_pos];
        out_pos = (out_pos + 1) % SLOTS;
        sem_post(&mutex);
        sem_post(&empty);
    }
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    sem_init(&empty, 0, SLOTS);
    sem_init(&full, 0, 0);
    sem_init(&mutex, 0, 1);
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    printf("sum = %d\n", sum);
    return 0;
}
