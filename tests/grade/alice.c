/* alice.c - sample submission: CORRECT.
 *
 * The assignment every sample in tests/grade solves (or fails to): two
 * worker threads each make ROUNDS deposits into a shared account. A deposit
 * is a critical section that logs "enter N", adds to the balance, and logs
 * "exit N" (check_mutex_log.sh checks the log); main joins the workers, asserts
 * the balance and prints it.
 *
 * Alice holds one mutex around the whole critical section.
 * Expected verdict: ok (no failure found) in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        printf("enter %d\n", id);
        balance = balance + 10;
        printf("exit %d\n", id);
        pthread_mutex_unlock(&lock);
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
