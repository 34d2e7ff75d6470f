/* order_sleep_join.c - an ordering bug "fixed" with sleep(), BUGGY: main
 * sleeps instead of joining the workers.
 *
 * Problem and structure: as order.c (WORKERS workers wait on a semaphore
 * until main has filled in the table, each stores a partial sum in
 * result[w]; main adds the results up and asserts the total).
 *
 * The bug: instead of pthread_join, main sleeps one second "so the workers
 * are finished" and then adds up result[].  Natively the workers need a few
 * microseconds, so it always works.  Under mdat sleep() is only a scheduling
 * point that returns at once, and main may add up the results before a
 * worker stored its own:
 *   main:     posts table_ready twice, sleep(1) returns
 *   main:     total = result[0] + result[1] = 0 + ...  <- a worker has not run yet
 *
 *   ./order_sleep_join            (natively: takes 1 s and prints total = 36)
 *   mdat run ./order_sleep_join
 *
 * Expected mdat verdict: assertion failure `total == 36' in main (line
 * marked FAILS).
 * Fix: pthread_join each worker (order.c).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#define WORKERS 2
#define SIZE 4

int *table = NULL;                      /* filled in by main after the workers start */
int table_storage[WORKERS][SIZE];
int result[WORKERS];
sem_t table_ready;

static void *worker(void *arg)
{
    int w = *(int *)arg;
    sem_wait(&table_ready);             /* 1: wait until main has filled in the table */
    int sum = 0;
    for (int i = 0; i < SIZE; i++)
        sum += table[w * SIZE + i];
    result[w] = sum;
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    int id[WORKERS];

    sem_init(&table_ready, 0, 0);
    for (int w = 0; w < WORKERS; w++) {
        id[w] = w;
        pthread_create(&t[w], NULL, worker, &id[w]);
    }
    for (int w = 0; w < WORKERS; w++)   /* meanwhile, prepare the table */
        for (int i = 0; i < SIZE; i++)
            table_storage[w][i] = w * SIZE + i + 1;
    table = &table_storage[0][0];
    for (int w = 0; w < WORKERS; w++)   /* 1: the table is ready, one post per worker */
        sem_post(&table_ready);

    sleep(1);                           /* BUG: "the workers will surely be done in a second" */
    int total = 0;
    for (int w = 0; w < WORKERS; w++)
        total += result[w];
    printf("total = %d\n", total);
    assert(total == 36);                /* FAILS: a worker had not stored its result yet */
    return 0;
}
