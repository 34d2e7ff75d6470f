/* prodcons.c - bounded buffer (producer/consumer), CORRECT version
 * (one mutex, two condition variables).
 *
 * Problem: PRODUCERS threads put items into a buffer of SLOTS places,
 * CONSUMERS threads take them out.  A producer must wait while the buffer is
 * full, a consumer while it is empty; every item is consumed exactly once.
 *
 * Structure: put() and get() form a monitor: `lock` guards the buffer,
 * `not_full` and `not_empty` are waited on in while loops.  Each producer
 * puts ITEMS items (argv[1], default 2), each consumer takes as many, so
 * everything produced is consumed.  check_buffer() asserts the buffer's
 * invariant after every change, and main asserts that the sum of the items
 * consumed is the sum of the items produced.
 *
 *   ./prodcons [ITEMS]
 *   mdat run ./prodcons
 *
 * Expected: exits 0 in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define SLOTS 2
#define EMPTY (-1)                      /* marks a free slot */

int buffer[SLOTS] = {EMPTY, EMPTY};
int count = 0, in = 0, out = 0;         /* items in the buffer, next slot to fill / to empty */
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
int items = 2;                          /* items per producer (and per consumer) */
long consumed_sum = 0;

static void check_buffer(void)
{
    assert(count >= 0 && count <= SLOTS);
}

static void put(int item)
{
    pthread_mutex_lock(&lock);
    while (count == SLOTS)              /* full: wait for a consumer */
        pthread_cond_wait(&not_full, &lock);
    buffer[in] = item;
    in = (in + 1) % SLOTS;
    count++;
    check_buffer();
    pthread_cond_signal(&not_empty);    /* one item: one consumer may go on */
    pthread_mutex_unlock(&lock);
}

static int get(void)
{
    pthread_mutex_lock(&lock);
    while (count == 0)                  /* empty: wait for a producer */
        pthread_cond_wait(&not_empty, &lock);
    int item = buffer[out];
    buffer[out] = EMPTY;
    out = (out + 1) % SLOTS;
    count--;
    check_buffer();
    consumed_sum += item;
    pthread_cond_signal(&not_full);     /* one free slot: one producer may go on */
    pthread_mutex_unlock(&lock);
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
