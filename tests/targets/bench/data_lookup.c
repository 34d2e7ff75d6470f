/* Benchmark (scripts/bench): a read-mostly lookup table (64K entries, 256
 * KB) filled by main, then read by 4 threads that each hash 200,000 keys
 * through it and add their sums under a lock. Correct; "racy": one
 * worker also changes an entry every worker reads (RACY). Prints the
 * total. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ENTRIES (1 << 16)
#define THREADS 4
#define LOOKUPS 200000

static unsigned table[ENTRIES];
static unsigned long total;
static int racy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    unsigned long id = (unsigned long)arg, sum = 0;
    unsigned key = (unsigned)id * 2654435761u;
    sum += table[7];    /* RACY: the entry "racy" changes */
    for (int i = 0; i < LOOKUPS; i++) {
        key = key * 1103515245u + 12345u;
        sum += table[key % ENTRIES];    /* RACY: (some keys reach entry 7 too) */

    }
    if (racy && id == 0)
        table[7] = 0;   /* RACY: (written while the others may read it) */
    pthread_mutex_lock(&lock);
    total += sum;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    for (unsigned i = 0; i < ENTRIES; i++)
        table[i] = i * 2654435761u >> 16;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total %lu\n", total);
    return 0;
}
