/* bob.c - sample submission: DEADLOCK.
 *
 * The account assignment (see alice.c) with two mutexes, one for the log and
 * one for the balance, that the two workers take in opposite orders.
 * Expected verdict: deadlock, in a good share of the schedules.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 3

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t balance_lock = PTHREAD_MUTEX_INITIALIZER;
static int balance;
static int attempts[3];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    pthread_mutex_t *first = id == 1 ? &log_lock : &balance_lock;
    pthread_mutex_t *second = id == 1 ? &balance_lock : &log_lock;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(first);
        for (int k = 0; k < 4; k++)
            attempts[id]++;             /* counts its tries, holding the first lock */
        pthread_mutex_lock(second);     /* BUG: lock order differs between the threads */
        printf("enter %d\n", id);
        balance = balance + 10;
        printf("exit %d\n", id);
        pthread_mutex_unlock(second);
        pthread_mutex_unlock(first);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(balance == 2 * ROUNDS * 10);
    printf("balance %d\n", balance);
    return 0;
}
