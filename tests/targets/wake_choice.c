/* wake_choice.c - two threads wait on one semaphore; main posts it twice.
 *
 * CORRECT.  Both workers block in sem_wait(&ready) (line marked WAIT) when
 * they run before main posts; each sem_post then wakes ONE of them, and
 * while both wait, which one wakes is a scheduling choice (a wake-up with
 * two candidate waiters: what `mdat attach` asks a person to pick).
 * Every schedule exits 0 and prints which worker woke first.
 *
 * Expected mdat verdict: no failure.  Natively: exits 0.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

sem_t ready;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int woken_first = 0;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    sem_wait(&ready); /* WAIT: both workers wait here */
    pthread_mutex_lock(&lock);
    if (woken_first == 0)
        woken_first = id;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    sem_init(&ready, 0, 0);
    pthread_create(&a, NULL, worker, (void *)1L);
    pthread_create(&b, NULL, worker, (void *)2L);
    sem_post(&ready);
    sem_post(&ready);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("woken first: worker %d\n", woken_first);
    return 0;
}
