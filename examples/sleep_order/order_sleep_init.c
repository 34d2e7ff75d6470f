/* order_sleep_init.c - an ordering bug "fixed" with sleep(), BUGGY: the
 * workers sleep instead of waiting for main to fill in the table.
 *
 * Problem and structure: as order.c (main starts WORKERS workers, then fills
 * in the table they read; main joins them and asserts the total).
 *
 * The bug: the worker used to crash now and then (table == NULL); the
 * student added sleep(1) before reading the table, "to give main time", and
 * it never crashed again on their machine: one second is plenty for main to
 * fill in 8 numbers.  But sleep() orders nothing - it makes the bad
 * interleaving rare, not impossible (a loaded machine, a slow disk, a
 * debugger...).  mdat treats sleep() as a mere scheduling point that returns
 * at once, so the "fix" does not hide the bug:
 *   main:   pthread_create(worker 0)
 *   worker: sleep(1) returns, reads table[0]: table is NULL -> SIGSEGV
 *
 *   ./order_sleep_init            (natively: takes 1 s and prints total = 36)
 *   mdat run ./order_sleep_init
 *
 * Expected mdat verdict: crash, SIGSEGV (NULL pointer dereference) in
 * worker() at the line marked BUG.
 * Fix: a semaphore main posts when the table is ready (order.c).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define WORKERS 2
#define SIZE 4

int *table = NULL;                      /* filled in by main after the workers start */
int table_storage[WORKERS][SIZE];
int result[WORKERS];

static void *worker(void *arg)
{
    int w = *(int *)arg;
    sleep(1);                           /* 1: "main will surely be done in a second" */
    int sum = 0;
    for (int i = 0; i < SIZE; i++)
        sum += table[w * SIZE + i];     /* BUG: table may still be NULL: sleep() is not synchronisation */
    result[w] = sum;
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    int id[WORKERS];

    for (int w = 0; w < WORKERS; w++) {
        id[w] = w;
        pthread_create(&t[w], NULL, worker, &id[w]);
    }
    for (int w = 0; w < WORKERS; w++)   /* meanwhile, prepare the table */
        for (int i = 0; i < SIZE; i++)
            table_storage[w][i] = w * SIZE + i + 1;
    table = &table_storage[0][0];

    for (int w = 0; w < WORKERS; w++)   /* 2: wait until every worker is done */
        pthread_join(t[w], NULL);
    int total = 0;
    for (int w = 0; w < WORKERS; w++)
        total += result[w];
    printf("total = %d\n", total);
    assert(total == 36);
    return 0;
}
