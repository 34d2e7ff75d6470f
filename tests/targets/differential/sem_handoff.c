/* sem_handoff.c - a producer hands two items to a consumer through a
 * one-slot buffer guarded by two semaphores (empty, full).
 *
 * CORRECT; one outcome, "got 1 2". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t empty, full;
static int slot, got[2];

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= 2; i++) {
        sem_wait(&empty);
        slot = i;
        sem_post(&full);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        sem_wait(&full);
        got[i] = slot;
        sem_post(&empty);
    }
    return NULL;
}

int main(void)
{
    sem_init(&empty, 0, 1);
    sem_init(&full, 0, 0);
    pthread_t a, b;
    pthread_create(&a, NULL, producer, NULL);
    pthread_create(&b, NULL, consumer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("got %d %d\n", got[0], got[1]);
    return 0;
}
