/* correct_semaphores.c - semaphores used as a mutex and as signals.
 *
 * CORRECT.  `start` (initially 0) holds the two workers until main posts it
 * twice; `mutex` (initially 1) protects counter; each worker posts `done`
 * (initially 0) after its two increments.  main waits on `done` twice, then
 * asserts counter == 4 BEFORE joining (the semaphores alone order it), then
 * joins.
 *
 * Expected mdat verdict: exit 0 ("counter = 4") in EVERY schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define WORKERS 2
#define ROUNDS 2

sem_t start, mutex, done;
int counter = 0;

static void *worker(void *arg)
{
    (void)arg;
    sem_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        sem_wait(&mutex);
        counter = counter + 1;
        sem_post(&mutex);
    }
    sem_post(&done);
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    sem_init(&start, 0, 0);
    sem_init(&mutex, 0, 1);
    sem_init(&done, 0, 0);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        sem_post(&start);
    for (int i = 0; i < WORKERS; i++)
        sem_wait(&done);
    assert(counter == WORKERS * ROUNDS);
    printf("counter = %d\n", counter);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    sem_destroy(&start);
    sem_destroy(&mutex);
    sem_destroy(&done);
    return 0;
}
