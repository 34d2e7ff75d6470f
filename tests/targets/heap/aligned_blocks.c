/* aligned_blocks.c - blocks from the C aligned allocators, misused
 * across threads. BUGGY, one mistake per argument:
 *   double-free     two workers drop a shared posix_memalign block,
 *                   each freeing it when the count it reads again is 0:
 *                   when both decrements come first, both free it.
 *   use-after-free  main frees an aligned_alloc block it has handed to
 *                   a worker before the worker has read it.
 *   memalign        the same with memalign, valloc the same with valloc.
 * Expected mdat verdict: heap-error naming the block (posix_memalign,
 * aligned_alloc, memalign or valloc at its line), who freed it, at which
 * step and line. */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The count is kept beside the block, not in it: the second free is the
 * first use of the block after the first. */
static atomic_int users = 2;
static int *shared_block;

static void *drop(void *arg)
{
    (void)arg;
    atomic_fetch_sub(&users, 1);
    if (atomic_load(&users) == 0)       /* BUG: should test what fetch_sub returned */
        free(shared_block);             /* FREE2: the second free */
    return NULL;
}

static int double_free(void)
{
    void *p;
    if (posix_memalign(&p, 64, 16 * sizeof(int)) != 0)    /* POSIX_MEMALIGN: */
        return 2;
    shared_block = p;
    pthread_t a, b;
    pthread_create(&a, NULL, drop, NULL);
    pthread_create(&b, NULL, drop, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

struct request {
    int id;
    int size;
};

static void *serve(void *arg)
{
    struct request *r = arg;
    int size = r->size;                 /* USE: may read after main freed it */
    printf("request %d\n", size);
    return NULL;
}

static int hand_over(struct request *r)
{
    r->id = 1;
    r->size = 64;
    pthread_t t;
    pthread_create(&t, NULL, serve, r);
    free(r);                            /* FREE: the worker may not have read it yet */
    pthread_join(t, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    if (strcmp(how, "double-free") == 0)
        return double_free();
    if (strcmp(how, "use-after-free") == 0)
        return hand_over(aligned_alloc(32, sizeof(struct request)));   /* ALIGNED_ALLOC: */
    if (strcmp(how, "memalign") == 0)
        return hand_over(memalign(128, sizeof(struct request)));       /* BY_MEMALIGN: */
    if (strcmp(how, "valloc") == 0)
        return hand_over(valloc(sizeof(struct request)));              /* VALLOC: */
    fprintf(stderr, "usage: %s double-free|use-after-free|memalign|valloc\n", argv[0]);
    return 2;
}
