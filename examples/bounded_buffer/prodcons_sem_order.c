/* prodcons_sem_order.c - bounded buffer with semaphores, BUGGY: the
 * producer takes the mutex before waiting for a free slot (deadlock).
 *
 * Problem and structure: as prodcons_sem.c (semaphores empty_slots,
 * full_slots and mutex).  The consumer is right: full_slots, then mutex.
 *
 * The bug: the producer does sem_wait(&mutex) and THEN sem_wait(&empty_slots).
 * When the buffer is full, a producer sleeps on empty_slots while holding the
 * mutex, and the consumers, who would free a slot, wait for that mutex:
 *   P1, P2: fill both slots (the consumers have not run yet)
 *   P1: takes mutex, buffer full, waits on empty_slots  (line marked BUG)
 *   C1: an item is there (full_slots), waits on mutex   (line marked WAIT)
 *
 *   ./prodcons_sem_order [ITEMS]
 *   mdat run ./prodcons_sem_order
 *
 * Expected mdat verdict: deadlock: a producer waiting on semaphore
 * empty_slots, consumers waiting on semaphore mutex, main in pthread_join.
 * Fix: wait for the resource first, then for the mutex (prodcons_sem.c).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define SLOTS 2
#define EMPTY (-1)

int buffer[SLOTS] = {EMPTY, EMPTY};
int count = 0, in = 0, out = 0;
sem_t empty_slots, full_slots, mutex;
int items = 2;                          /* items per producer (and per consumer) */
long consumed_sum = 0;

static void check_buffer(void)
{
    assert(count >= 0 && count <= SLOTS);
}

static void put(int item)
{
    sem_wait(&mutex);                   /* take the buffer ... */
    sem_wait(&empty_slots);             /* BUG: ... then wait for a free slot, holding the mutex */
    buffer[in] = item;
    in = (in + 1) % SLOTS;
    count++;
    check_buffer();
    sem_post(&mutex);
    sem_post(&full_slots);              /* one more item */
}

static int get(void)
{
    sem_wait(&full_slots);              /* wait for an item ... */
    sem_wait(&mutex);                   /* WAIT: ... then for the buffer */
    int item = buffer[out];
    buffer[out] = EMPTY;
    out = (out + 1) % SLOTS;
    count--;
    check_buffer();
    consumed_sum += item;
    sem_post(&mutex);
    sem_post(&empty_slots);             /* one more free slot */
    return item;
}

static void *producer(void *arg)
{
    int id = *(int *)arg;
    for (int i = 1; i <= items; i++)
        put(id * 100 + i);
    return NULL;
}

static void *consumer(void *arg)
{
    for (int i = 0; i < items; i++)
        get();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t p[PRODUCERS], c[CONSUMERS];
    int id[PRODUCERS];
    long expected = 0;

    if (argc > 1)
        items = atoi(argv[1]);
    sem_init(&empty_slots, 0, SLOTS);
    sem_init(&full_slots, 0, 0);
    sem_init(&mutex, 0, 1);
    for (int i = 0; i < PRODUCERS; i++) {
        id[i] = i + 1;
        for (int k = 1; k <= items; k++)
            expected += id[i] * 100 + k;
        pthread_create(&p[i], NULL, producer, &id[i]);
    }
    for (int i = 0; i < CONSUMERS; i++)
        pthread_create(&c[i], NULL, consumer, NULL);
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(p[i], NULL);
    for (int i = 0; i < CONSUMERS; i++)
        pthread_join(c[i], NULL);
    printf("consumed sum = %ld (expected %ld)\n", consumed_sum, expected);
    assert(consumed_sum == expected);
    return 0;
}
