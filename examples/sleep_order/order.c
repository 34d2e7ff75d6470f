/* order.c - making one thread wait for another, CORRECT version
 * (a semaphore for "the data is ready", pthread_join for "the work is done").
 *
 * Problem: main starts WORKERS threads that each compute a part of a sum.
 * The workers need a table that main fills in AFTER starting them (say it
 * is read from a file meanwhile), and main needs their results before it
 * adds them up.  Two ordering constraints:
 *   1. a worker reads the table only after main has filled it in
 *   2. main adds up the results only after every worker has stored its own
 *
 * Structure: constraint 1 is a semaphore `table_ready` that starts at 0:
 * each worker waits on it, main posts it once per worker when the table is
 * complete.  Constraint 2 is pthread_join.  main asserts the total.
 *
 *   ./order
 *   mdat run ./order
 *
 * Expected: exits 0 in every schedule, printing "total = 36".
 * The two buggy versions replace these with sleep():
 * order_sleep_init.c (constraint 1) and order_sleep_join.c (constraint 2).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

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

    for (int w = 0; w < WORKERS; w++)   /* 2: wait until every worker is done */
        pthread_join(t[w], NULL);
    int total = 0;
    for (int w = 0; w < WORKERS; w++)
        total += result[w];
    printf("total = %d\n", total);
    assert(total == 36);
    return 0;
}
