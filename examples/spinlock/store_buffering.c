/* store_buffering.c - the store-buffering litmus test: which values can two
 * threads read, each after storing to its own variable?
 *
 * Problem: thread A stores x = 1 and then reads y; thread B stores y = 1
 * and then reads x.  main prints what each read: "r0 = R0, r1 = R1".
 *
 * Structure: in every interleaving of the four operations, some thread's
 * load comes after both stores, so at least one of r0, r1 is 1: the three
 * outcomes of a sequentially consistent machine are (1, 1), (0, 1) and
 * (1, 0).  On an x86 CPU a store waits in its core's store buffer while the
 * same core goes on to its load, so both loads can come first and read 0:
 * the fourth outcome, r0 = r1 = 0, the one store buffering adds.  Nothing
 * is asserted: the outcomes are the lesson.  check_sb.sh rejects the
 * fourth.
 *
 *   ./store_buffering
 *   mdat run --races=off --check ./check_sb.sh ./store_buffering
 *   mdat run --races=off --memory-model tso --check ./check_sb.sh ./store_buffering
 *
 * Expected: the checker is never violated under sequential consistency;
 * under x86-TSO some schedule prints r0 = 0, r1 = 0.
 */
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0 = -1, r1 = -1;

static void *thread_a(void *arg)
{
    (void)arg;
    x = 1;
    r0 = y;                             /* FAILS: reads 0 while x = 1 is still buffered */
    return NULL;
}

static void *thread_b(void *arg)
{
    (void)arg;
    y = 1;
    r1 = x;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, thread_a, NULL);
    pthread_create(&b, NULL, thread_b, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("r0 = %d, r1 = %d\n", r0, r1);
    return 0;
}
