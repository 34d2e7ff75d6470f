/* prodcons_sem.c - bounded buffer (producer/consumer) with POSIX semaphores,
 * CORRECT version.
 *
 * Problem: as prodcons.c: PRODUCERS producers, CONSUMERS consumers, a buffer
 * of SLOTS places; every item is consumed exactly once.
 *
 * Structure: the classic three semaphores:
 *   empty_slots  counts free places  (starts at SLOTS)  - producers wait on it
 *   full_slots   counts items        (starts at 0)      - consumers wait on it
 *   mutex        binary semaphore guarding the buffer indexes
 * Each side FIRST waits for its resource (a slot or an item) and only THEN
 * takes the mutex.  check_buffer() asserts the invariant under the mutex and
 * main checks the sum of the items.
 *
 *   ./prodcons_sem [ITEMS]
 *   mdat run ./prodcons_sem
 *
 * Expected: exits 0 in every schedule.
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
    sem_wait(&empty_slots);             /* wait for a free slot ... */
    sem_wait(&mutex);                   /* ... then for the buffer */
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
    sem_wait(&mutex);                   /* ... then for the buffer */
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
