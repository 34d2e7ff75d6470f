/* Benchmark (scripts/bench): a parallel sum of a 1M-int global array, each
 * of 4 threads summing its quarter, one locked add at the end. Correct;
 * with the argument "racy" the final add is unlocked: a race mdat reports
 * (both lines marked RACY). Prints the total. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N (1 << 20)
#define THREADS 4

static int data[N];
static long total;
static int racy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    long id = (long)arg, sum = 0;
    for (long i = id * (N / THREADS); i < (id + 1) * (N / THREADS); i++)
        sum += data[i];
    if (racy) {
        total += sum;   /* RACY: */
    } else {
        pthread_mutex_lock(&lock);
        total += sum;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    for (long i = 0; i < N; i++)
        data[i] = (int)(i % 7);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total %ld\n", total);
    return 0;
}
