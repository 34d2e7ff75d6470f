/* refcount_ok.c - correct: a shared block with an atomic reference count;
 * each thread drops its reference and the one that dropped the last frees
 * it (it tests what the decrement returned). Expected mdat verdict: no
 * failure under every strategy. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { THREADS = 3 };

struct shared {
    atomic_int refs;
    int data[4];
};

static struct shared *make(void)
{
    struct shared *s = malloc(sizeof *s);
    atomic_init(&s->refs, THREADS);
    for (int i = 0; i < 4; i++)
        s->data[i] = i;
    return s;
}

static void *user(void *arg)
{
    struct shared *s = arg;
    int sum = s->data[0] + s->data[3];
    if (atomic_fetch_sub(&s->refs, 1) == 1)
        free(s);
    return (void *)(long)sum;
}

int main(void)
{
    struct shared *s = make();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, user, s);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
