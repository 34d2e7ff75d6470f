/* rwlock_read.c - a writer sets a value under the write lock, a reader
 * prints it under the read lock.
 *
 * CORRECT; two outcomes: "x = 0" and "x = 1". For the dpor/dfs
 * differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int x;

static void *writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rw);
    x = 1;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw);
    printf("x = %d\n", x);
    pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
