/* dave.c - sample submission: CHECKER VIOLATION.
 *
 * The account assignment (see alice.c): the balance is locked, but the log
 * lines are printed outside the lock, so the log can show both threads
 * inside at once; check_mutex_log.sh rejects it. The balance is always right.
 * Expected verdict (with --check check_mutex_log.sh): checker violation.
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
        printf("enter %d\n", id);       /* BUG: logged outside the critical section */
        pthread_mutex_lock(&lock);
        balance = balance + 10;
        pthread_mutex_unlock(&lock);
        printf("exit %d\n", id);
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
