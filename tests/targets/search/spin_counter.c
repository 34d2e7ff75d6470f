/* spin_counter.c N K [mutex] - N threads (default 3), each adding one to a
 * shared counter K times (default 3) under a spinlock made of a C11
 * atomic_flag (test-and-set in a loop), or with "mutex" under a pthread
 * mutex instead.
 *
 * CORRECT: prints "counter = N*K" and exits 0 in every interleaving. A
 * waiter's test-and-set finds the flag set and stores the 1 already there:
 * it makes no progress, and strategies prefer the thread that holds the
 * lock (engine/spin_watch.h), so an execution costs about what the mutex
 * version costs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 8 };

static atomic_flag spin = ATOMIC_FLAG_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int use_mutex;
static int counter;
static int k = 3;

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < k; i++) {
        if (use_mutex)
            pthread_mutex_lock(&lock);
        else
            while (atomic_flag_test_and_set(&spin))
                ;
        counter++;
        if (use_mutex)
            pthread_mutex_unlock(&lock);
        else
            atomic_flag_clear(&spin);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
    if (argc > 2)
        k = atoi(argv[2]);
    use_mutex = argc > 3 && strcmp(argv[3], "mutex") == 0;
    if (n < 1 || n > MAX_THREADS || k < 0) {
        fprintf(stderr, "usage: spin_counter [N 1..%d] [K] [mutex]\n", MAX_THREADS);
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
