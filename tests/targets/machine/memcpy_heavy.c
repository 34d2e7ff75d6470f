/* memcpy_heavy: correct. Four threads each copy a shared 16 KB source
 * into their own buffer again and again (glibc's memcpy, memset and
 * memcmp: their SSE, AVX2 or AVX-512 variants, whichever this CPU
 * selects), checking each copy, and add their count of good copies into
 * a total under a lock. Prints the total, the same natively and under
 * mdat. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 16384, ROUNDS = 40, THREADS = 4 };

static unsigned char source[SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long good;

static void *work(void *arg)
{
    unsigned char *mine = malloc(SIZE);
    long ok = 0;
    for (int r = 0; r < ROUNDS; r++) {
        memset(mine, r, SIZE);
        memcpy(mine, source, SIZE);
        ok += memcmp(mine, source, SIZE) == 0;
    }
    free(mine);
    pthread_mutex_lock(&lock);
    good += ok;
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void)
{
    for (int i = 0; i < SIZE; i++)
        source[i] = (unsigned char)(i * 31 + 7);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, NULL);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    printf("good copies %ld of %d\n", good, ROUNDS * THREADS);
    return 0;
}
