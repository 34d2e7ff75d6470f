/* refcount_bug.c - a shared block with a reference count that is read
 * again after the decrement. BUGGY: when both decrements come before
 * either re-read, both threads see 0 and both free the block. Two threads
 * free it in two threads' caches, and glibc says nothing. Expected mdat
 * verdict: heap-error, a double free naming the block (malloc at its
 * line) and the first free. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct shared {
    atomic_int refs;
    int data[4];
};

static struct shared *shared_block;

static void *user(void *arg)
{
    (void)arg;
    struct shared *s = shared_block;
    atomic_fetch_sub(&s->refs, 1);
    if (atomic_load(&s->refs) == 0)    /* BUG: should test what fetch_sub returned */
        free(s);                        /* FAILS: the second free */
    return NULL;
}

int main(void)
{
    shared_block = malloc(sizeof *shared_block);   /* ALLOC */
    atomic_init(&shared_block->refs, 2);
    pthread_t a, b;
    pthread_create(&a, NULL, user, NULL);
    pthread_create(&b, NULL, user, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
