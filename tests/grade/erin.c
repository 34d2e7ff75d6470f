/* erin.c - sample submission: CRASH.
 *
 * The account assignment (see alice.c), with the account allocated by main
 * after it starts the workers: a worker that runs first dereferences NULL.
 * Expected verdict: crash (SIGSEGV).
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

struct account {
    pthread_mutex_t lock;
    int balance;
};

static struct account *account;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&account->lock);     /* BUG: account may still be NULL */
        printf("enter %d\n", id);
        account->balance = account->balance + 10;
        printf("exit %d\n", id);
        pthread_mutex_unlock(&account->lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    struct account *a = malloc(sizeof *a);
    pthread_mutex_init(&a->lock, NULL);
    a->balance = 0;
    account = a;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(account->balance == 2 * ROUNDS * 10);
    printf("balance %d\n", account->balance);
    return 0;
}
