/* locked_counter.c N K - N threads, each adding one to a shared counter K
 * times under one mutex.
 *
 * CORRECT: prints "counter = N*K" and exits 0 in every interleaving. What
 * tells one class from another is only the order in which the threads
 * take the mutex: N*K acquisitions, K of each thread, so (N*K)! / (K!)^N
 * classes (the multinomial): (2,1) 2, (2,2) 6, (2,3) 20, (3,1) 6,
 * (3,2) 90, (3,3) 1,680, (4,2) 2,520, as GenMC and Nidhugg count them
 * (issue 26). Defaults: N = 2, K = 2, or -DTHREADS=N -DINCREMENTS=K at
 * compile time (GenMC runs main without arguments: scripts/dpor-bench).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef THREADS
#define THREADS 2
#endif
#ifndef INCREMENTS
#define INCREMENTS 2
#endif

enum { MAX_THREADS = 8 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static int k = INCREMENTS;

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < k; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : THREADS;
    if (argc > 2)
        k = atoi(argv[2]);
    if (n < 1 || n > MAX_THREADS || k < 0) {
        fprintf(stderr, "usage: locked_counter [N 1..%d] [K]\n", MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, incrementer, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    return counter == n * k ? 0 : 1;
}
