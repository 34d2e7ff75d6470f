/* own_page_uaf.c - a worker fills a buffer of its own, frees it and then
 * reads it again. The page holding the buffer is touched only by the
 * worker, so under page ownership it runs there natively: the read after
 * the free must still be judged. BUGGY in every schedule. Expected mdat
 * verdict: heap-error, a use after free by the thread that freed the
 * block, naming the block (malloc at its line) and the free's line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int total;

static void *worker(void *arg)
{
    (void)arg;
    int *buf = malloc(64 * sizeof *buf);        /* ALLOC */
    for (int i = 0; i < 64; i++)
        buf[i] = i;
    free(buf);                                  /* FREE */
    int sixth = buf[5];                         /* BUG: read after its own free */
    __atomic_fetch_add(&total, sixth, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    __atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
    pthread_join(t, NULL);
    printf("total %d\n", total);
    return 0;
}
