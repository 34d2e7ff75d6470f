/* increments.c K - two threads, each incrementing one shared counter K
 * times as a read and a separate write (tmp = counter; counter = tmp + 1).
 *
 * BUGGY by design, with no verdict of its own: for outcome tables (mdat run
 * --outcomes --races off --watch counter). Under sequential consistency the
 * final values reachable are exactly 2 .. 2K for K >= 2 (1 and 2 for K = 1):
 * - at most 2K, every increment counted;
 * - at least 2: a thread's last write stores one more than its last read,
 *   which comes after its own earlier write of at least 1;
 * - 2 is reached: T1 reads 0; T2 runs K-1 increments; T1 writes 1; T2 reads
 *   1; T1 runs its other K-1 increments; T2 writes 2;
 * - every value between: the lost updates can be chosen one by one
 *   (counter = 2K - lost for lost = 0 .. 2K-2).
 * Prints "counter = N" and exits 0 in every interleaving.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int counter;
static int k = 2;

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < k; i++) {
        int tmp = counter;
        counter = tmp + 1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        k = atoi(argv[1]);
    pthread_t a, b;
    pthread_create(&a, NULL, incrementer, NULL);
    pthread_create(&b, NULL, incrementer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter = %d\n", counter);
    return 0;
}
