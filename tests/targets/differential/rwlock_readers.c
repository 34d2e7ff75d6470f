/* rwlock_readers.c - two readers hold the read lock and count how many are
 * inside at once; a writer then finds none inside.
 *
 * CORRECT; two outcomes: "most inside 1" (the readers took turns) and
 * "most inside 2" (they overlapped, which a read lock allows).
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int inside, most;

static void *reader(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw);
    int now = atomic_fetch_add(&inside, 1) + 1;
    if (now > atomic_load(&most))
        atomic_store(&most, now);
    atomic_fetch_sub(&inside, 1);
    pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, reader, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_rwlock_wrlock(&rw);
    assert(atomic_load(&inside) == 0);
    pthread_rwlock_unlock(&rw);
    printf("most inside %d\n", atomic_load(&most));
    return 0;
}
