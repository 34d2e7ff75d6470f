/* store_buffering.c - the store-buffering litmus test (SB).
 *
 * CORRECT under sequential consistency, BUGGY on x86.  Each thread stores
 * 1 to its own flag and then reads the other's.  Some thread's load comes
 * after both stores in every interleaving, so r0 == r1 == 0 cannot happen on
 * a sequentially consistent machine; on x86 each store may still wait in
 * its core's store buffer when the other thread loads, and both read 0.
 * Expected mdat verdict: no failure with --memory-model sc; an assertion
 * failure with --memory-model tso.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0 = -1, r1 = -1;

static void *first(void *arg)
{
    (void)arg;
    x = 1;
    r0 = y;
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    y = 1;
    r1 = x;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("r0 = %d, r1 = %d\n", r0, r1);
    assert(r0 == 1 || r1 == 1);         /* FAILS: only under store buffering */
    return 0;
}
