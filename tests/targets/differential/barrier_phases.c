/* barrier_phases.c [early] - two threads each fill their slot, meet at a
 * pthread barrier, then read the other's slot.
 *
 * CORRECT with no argument: after the barrier each sees the other's slot;
 * one outcome, "seen 2 1".
 * BUGGY with "early": thread 1 reads before the barrier, so it may see 0;
 * the assertion in main fails in the interleavings where it does.
 * The slots are relaxed C11 atomics so that the early read is an assertion
 * failure, not a data race. For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static pthread_barrier_t barrier;
static atomic_int slot[2];
static int seen[2], early;

static void *phase(void *arg)
{
    int me = (int)(long)arg;
    atomic_store_explicit(&slot[me], me + 1, memory_order_relaxed);
    if (early && me == 1)
        seen[me] = atomic_load_explicit(&slot[1 - me], memory_order_relaxed);  /* BUG: before the barrier */
    pthread_barrier_wait(&barrier);
    if (!(early && me == 1))
        seen[me] = atomic_load_explicit(&slot[1 - me], memory_order_relaxed);
    return NULL;
}

int main(int argc, char **argv)
{
    early = argc > 1 && strcmp(argv[1], "early") == 0;
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_t a, b;
    pthread_create(&a, NULL, phase, (void *)0L);
    pthread_create(&b, NULL, phase, (void *)1L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("seen %d %d\n", seen[0], seen[1]);
    assert(seen[1] == 1);   /* FAILS: with "early", when thread 1 read first */
    return 0;
}
