/* atomic_sb.c - store buffering with C11 atomics: each thread stores to its
 * variable and loads the other's. Built with -DORDER=memory_order_seq_cst
 * (the default) and -DORDER=memory_order_relaxed.
 *
 * CORRECT; three outcomes under sequential consistency: "r0 0 r1 1",
 * "r0 1 r1 0", "r0 1 r1 1". The relaxed build may also give "r0 0 r1 0"
 * on real hardware (a store waiting in the store buffer); mdat runs one
 * step at a time, which is sequential consistency, so neither dfs nor dpor
 * reports it: the differential compares the two searches, not mdat with
 * the CPU (--memory-model tso, with a randomized strategy, explores that).
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#ifndef ORDER
#define ORDER memory_order_seq_cst
#endif

static atomic_int x, y;
static int r0, r1;

static void *left(void *arg)
{
    (void)arg;
    atomic_store_explicit(&x, 1, ORDER);
    r0 = atomic_load_explicit(&y, ORDER);
    return NULL;
}

static void *right(void *arg)
{
    (void)arg;
    atomic_store_explicit(&y, 1, ORDER);
    r1 = atomic_load_explicit(&x, ORDER);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, left, NULL);
    pthread_create(&b, NULL, right, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("r0 %d r1 %d\n", r0, r1);
    return 0;
}
