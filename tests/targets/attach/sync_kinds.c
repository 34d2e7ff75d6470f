/* sync_kinds: BUGGY. Every thread waits for good on a different kind of
 * object, none of which anyone will release: T2 waits on semaphore items
 * (nobody posts), T3 on barrier gate (it waits for two, one comes), T4
 * wants rwlock table for writing while main holds it for reading, and main
 * joins T2. mdat attach -p must name each object by kind and say the
 * program hangs with no thread left to wake another. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t items;
static pthread_barrier_t gate;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;

static void *consumer(void *arg)
{
    (void)arg;
    sem_wait(&items); /* WAIT: semaphore */
    return NULL;
}

static void *arriver(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&gate); /* WAIT: barrier */
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&table); /* WAIT: rwlock */
    pthread_rwlock_unlock(&table);
    return NULL;
}

int main(void)
{
    pthread_t c, a, w;
    sem_init(&items, 0, 0);
    pthread_barrier_init(&gate, NULL, 2);
    pthread_rwlock_rdlock(&table);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&a, NULL, arriver, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(c, NULL); /* BUG: nobody posts items, the barrier waits for two, main holds the read lock */
    pthread_rwlock_unlock(&table);
    return 0;
}
