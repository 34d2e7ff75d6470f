/* use_after_free.c - a worker reads a request that main frees as soon as
 * it has handed it over, without waiting for the worker to be done with
 * it. BUGGY: in the schedules where main's free comes before the worker's
 * read, the read is a use after free (nothing crashes: the memory is
 * still mapped). Expected mdat verdict: heap-error, a use after free
 * naming the block (malloc at its line), who freed it and where. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct request {
    int id;
    int size;
};

static void *worker(void *arg)
{
    struct request *r = arg;
    int size = r->size;                 /* FAILS: may read after main freed it */
    printf("request %d\n", size);
    return NULL;
}

int main(void)
{
    struct request *r = malloc(sizeof *r);     /* ALLOC */
    r->id = 1;
    r->size = 64;
    pthread_t t;
    pthread_create(&t, NULL, worker, r);
    free(r);                            /* BUG: the worker may not have read it yet */
    pthread_join(t, NULL);
    return 0;
}
