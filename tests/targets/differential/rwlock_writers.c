/* rwlock_writers.c - two writers increment a value under the write lock,
 * a reader records it under the read lock.
 *
 * CORRECT; three outcomes: "seen 0 x 2", "seen 1 x 2", "seen 2 x 2".
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int x, seen;

static void *writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rw);
    x++;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw);
    seen = x;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t a, b, c;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, writer, NULL);
    pthread_create(&c, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(c, NULL);
    printf("seen %d x %d\n", seen, x);
    return 0;
}
