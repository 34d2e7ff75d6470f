/* prodcons_if.c - bounded buffer, BUGGY: `if` instead of `while` around
 * pthread_cond_wait.
 *
 * Problem and structure: as prodcons.c (PRODUCERS producers and CONSUMERS
 * consumers, a buffer of SLOTS places, a mutex and two condition variables;
 * check_buffer() asserts 0 <= count <= SLOTS after every change).
 *
 * The bug: the waits are `if (count == 0) wait` instead of `while`.  Being
 * woken up only means the buffer WAS not empty when the producer signalled;
 * another consumer can take that item before the woken one gets the lock:
 *   C1: get(): buffer empty, waits on not_empty
 *   P1: put(): count = 1, signals not_empty (C1 becomes runnable), unlocks
 *   C2: get(): count == 1, takes the item, count = 0
 *   C1: gets the lock, does not re-check, takes from the empty buffer: count = -1
 * Producers have the mirror-image race: a producer woken because a slot
 * became free finds it filled again by the other producer, and count
 * becomes SLOTS + 1.  Either way check_buffer() fails.  (pthread_cond_wait
 * may also wake up spuriously, which `while` handles too.)
 *
 *   ./prodcons_if [ITEMS]
 *   mdat run ./prodcons_if
 *
 * Expected mdat verdict: assertion failure in check_buffer (line marked
 * FAILS), called from get() or put().  Natively: nearly always exits 0.
 * Fix: `while` around every pthread_cond_wait, as in prodcons.c.
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
    assert(count >= 0 && count <= SLOTS);   /* FAILS: count is -1 or SLOTS + 1 after a get() or put() that did not re-check */
}

static void put(int item)
{
    pthread_mutex_lock(&lock);
    if (count == SLOTS)                 /* full: wait for a consumer (same mistake) */
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
    if (count == 0)                     /* BUG: `if`: after waking up, the buffer may be empty again */
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
