/* carol.c - sample submission: ASSERTION.
 *
 * The account assignment (see alice.c): the log lines are locked, but the
 * balance is read and written outside the lock, so deposits get lost.
 * Expected verdict: assertion (main's assert on the balance).
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
        int seen = balance;             /* BUG: read and write outside the lock */
        pthread_mutex_lock(&lock);
        printf("enter %d\n", id);
        printf("exit %d\n", id);
        pthread_mutex_unlock(&lock);
        balance = seen + 10;
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
    assert(balance == 2 * ROUNDS * 10);     /* FAILS: deposits lost */
    printf("balance %d\n", balance);
    return 0;
}
