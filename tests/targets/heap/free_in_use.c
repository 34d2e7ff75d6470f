/* free_in_use.c - a block freed while another thread is in the middle of
 * using it: a worker sums a table of readings, and main, once the worker
 * has said it started, frees the table without waiting for the sum.
 * BUGGY: in the schedules where main's free comes between two of the
 * worker's reads, the next read is a use after free (nothing crashes: the
 * memory is still mapped). Expected mdat verdict: heap-error, a use after
 * free naming the block (malloc at its line), who freed it (thread, step,
 * line) and who used it after. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { READINGS = 4 };

static atomic_int started;

static void *summer(void *arg)
{
    const int *table = arg;
    atomic_store(&started, 1);
    long sum = 0;
    for (int i = 0; i < READINGS; i++)
        sum += table[i];                /* USE: may read after main freed it */
    printf("sum %ld\n", sum);
    return NULL;
}

int main(void)
{
    int *table = malloc(READINGS * sizeof *table);     /* ALLOC */
    for (int i = 0; i < READINGS; i++)
        table[i] = 10 * (i + 1);
    pthread_t t;
    pthread_create(&t, NULL, summer, table);
    while (!atomic_load(&started))
        ;
    free(table);                        /* BUG: the summer may still be reading it */
    pthread_join(t, NULL);
    return 0;
}
