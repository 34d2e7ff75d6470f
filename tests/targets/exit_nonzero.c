/* exit_nonzero.c - correct threads, but main returns 3.
 *
 * CORRECT threading (2 threads x 2 locked increments, assert counter == 4
 * always holds); main then returns 3 deliberately.
 *
 * Expected mdat verdict: exit status 3 in EVERY schedule; a failure only
 * with --fail-on-exit (at the line marked EXIT), otherwise a pass.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define ROUNDS 2

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
    assert(counter == THREADS * ROUNDS);
    printf("counter = %d, exiting with 3\n", counter);
    return 3;                        /* EXIT: deliberate non-zero exit status */
}
