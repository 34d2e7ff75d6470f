/* correct_counter.c - three threads increment a counter under a mutex.
 *
 * CORRECT.  3 threads x 3 increments, each increment inside
 * pthread_mutex_lock/unlock of counter_lock; main joins all and asserts
 * counter == 9.
 *
 * Expected mdat verdict: exit 0 ("counter = 9") in EVERY schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 3

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
int counter = 0;

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&counter_lock);
        counter = counter + 1;
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, incrementer, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter = %d\n", counter);
    assert(counter == THREADS * ROUNDS);
    return 0;
}
