/* Benchmark (scripts/bench): 4 threads, each filling a private malloc'd
 * 4 KB buffer over and over, adding a checksum to a shared total under a
 * lock every 10 rounds. Correct; "racy": the adds are unlocked (RACY).
 * Prints the total. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 2000
#define SIZE 4096

static long total;
static int racy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void add(long value)
{
    if (racy) {
        total += value;     /* RACY: */
        return;
    }
    pthread_mutex_lock(&lock);
    total += value;
    pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
    long id = (long)arg, acc = 0;
    unsigned char *buf = malloc(SIZE);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < SIZE; i++)
            buf[i] = (unsigned char)(i + round + id);
        for (int i = 0; i < SIZE; i += 64)
            acc += buf[i];
        if (round % 10 == 9) {
            add(acc);
            acc = 0;
        }
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total %ld\n", total);
    return 0;
}
