/* prodcons_signal.c - bounded buffer, BUGGY: pthread_cond_signal on a
 * condition variable that producers AND consumers wait on (lost wake-up).
 *
 * Problem and structure: as prodcons.c, but with a buffer of ONE slot and a
 * single condition variable `changed` for "the buffer changed".  The waits
 * are correct while loops.
 *
 * The bug: pthread_cond_signal wakes ONE waiter, any of them.  When a
 * consumer takes the item and signals, the waiter it wakes may be the other
 * consumer, which finds the buffer empty and waits again: the wake-up meant
 * for a producer is lost.  With two producers and two consumers everybody
 * can end up waiting:
 *   C1, C2: buffer empty, wait
 *   P1: puts, signals (wakes C1); P1 and P2 find the buffer full, wait
 *   C1: takes the item, signals (wakes C2, not a producer); C1 waits again
 *   C2: buffer empty, waits                   -> nobody left to signal
 *
 *   ./prodcons_signal [ITEMS]
 *   mdat run ./prodcons_signal
 *
 * Expected mdat verdict: deadlock; all four workers wait on condvar
 * `changed` (lines marked WAIT), main waits in pthread_join.
 * Fix: pthread_cond_broadcast, or (better) two condition variables
 * not_full / not_empty as in prodcons.c.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define SLOTS 1
#define EMPTY (-1)                      /* marks a free slot */

int buffer[SLOTS] = {EMPTY};
int count = 0, in = 0, out = 0;         /* items in the buffer, next slot to fill / to empty */
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t changed = PTHREAD_COND_INITIALIZER;  /* "the buffer changed": producers AND consumers wait here */
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
        pthread_cond_wait(&changed, &lock);   /* WAIT: producers */
    buffer[in] = item;
    in = (in + 1) % SLOTS;
    count++;
    check_buffer();
    pthread_cond_signal(&changed);      /* BUG: may wake a producer, not a consumer */
    pthread_mutex_unlock(&lock);
}

static int get(void)
{
    pthread_mutex_lock(&lock);
    while (count == 0)                  /* empty: wait for a producer */
        pthread_cond_wait(&changed, &lock);   /* WAIT: consumers */
    int item = buffer[out];
    buffer[out] = EMPTY;
    out = (out + 1) % SLOTS;
    count--;
    check_buffer();
    consumed_sum += item;
    pthread_cond_signal(&changed);      /* same mistake: may wake a consumer */
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
