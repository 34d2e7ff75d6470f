/* sb_litmus.c - the store-buffering litmus test (SB) without a verdict of
 * its own, for outcome tables (mdat run --outcomes --watch r0 --watch r1).
 *
 * Each thread stores 1 to its own flag and then reads the other's. Under
 * sequential consistency the reachable outcomes are (r0, r1) = (0, 1),
 * (1, 0) and (1, 1); under x86-TSO a store may still wait in its thread's
 * store buffer when the other thread loads, and (0, 0) is reachable too.
 * Expected mdat verdict: no failure under either model.
 */
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
    return 0;
}
