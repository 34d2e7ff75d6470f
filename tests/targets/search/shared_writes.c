/* shared_writes.c K - two threads, each writing one shared variable K times.
 *
 * CORRECT (a data race by design: run it with --races off).  Every write
 * conflicts with every write of the other thread, so each interleaving of
 * the 2K writes is its own class: C(2K, K) classes (K=1: 2, K=2: 6, K=3:
 * 20).  The other steps mdat sees (main's creates, joins and exit, each
 * thread's start, its reads of k, written by main before the creates)
 * conflict with no write of the other thread; the loop counter lives on
 * the thread's own stack, which is no visible step.
 */
#include <pthread.h>
#include <stdlib.h>

int shared;
static int k = 2;

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < k; i++)
        shared = i;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        k = atoi(argv[1]);
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, writer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
