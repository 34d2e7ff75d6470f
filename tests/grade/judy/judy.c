/* judy.c - sample submission built by mdat grade --build make: CORRECT.
 *
 * The account assignment (see ../alice.c), handed in as a directory with a
 * Makefile: judy guards the critical section with a binary semaphore and
 * keeps the thread handles in a struct. Expected verdict: ok, once built.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

enum { WORKERS = 2, DEPOSITS = 3, AMOUNT = 10 };

struct worker {
    pthread_t thread;
    int number;
};

static sem_t guard;
static long balance;

static void deposit(int number)
{
    sem_wait(&guard);
    printf("enter %d\n", number);
    balance += AMOUNT;
    printf("exit %d\n", number);
    sem_post(&guard);
}

static void *run(void *arg)
{
    const struct worker *w = arg;
    for (int d = 0; d < DEPOSITS; d++)
        deposit(w->number);
    return NULL;
}

int main(void)
{
    struct worker workers[WORKERS];
    sem_init(&guard, 0, 1);
    for (int i = 0; i < WORKERS; i++) {
        workers[i].number = i + 1;
        pthread_create(&workers[i].thread, NULL, run, &workers[i]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(workers[i].thread, NULL);
    assert(balance == WORKERS * DEPOSITS * AMOUNT);
    printf("balance %ld\n", balance);
    return 0;
}
