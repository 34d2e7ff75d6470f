/* long_compute.c - one thread computes for a while on values it alone
 * holds (no visible operation for about a second of CPU time), then adds
 * its result to a total under a mutex.
 *
 * CORRECT: prints "total 1" and exits 0. Its one long step must not be a
 * hang on a busy machine: --timeout counts the CPU time the step uses
 * (e2e.timeout_loaded runs it on a CPU shared with busy loops).
 * argv[1]: millions of iterations (default 700, about 1.2 s natively).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *compute(void *arg)
{
    long millions = (long)arg;
    unsigned long x = 1;
    for (long i = 0; i < millions * 1000000L; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    pthread_mutex_lock(&total_lock);
    total += (long)(x & 1);
    pthread_mutex_unlock(&total_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    long millions = argc > 1 ? atol(argv[1]) : 700;
    pthread_t worker;
    pthread_create(&worker, NULL, compute, (void *)millions);
    pthread_join(worker, NULL);
    printf("total %ld\n", total);
    return 0;
}
