/* Target for the take-over's visible steps (tests/e2e/attach.sh
 * takeover_deadlock): two threads that take lock_a and lock_b in opposite
 * orders, each after a long sleep, so that mdat attaches while nothing
 * has happened yet and the user's steps make the deadlock: lock, the
 * shared balance read and written, then the second lock blocks. Run
 * natively to its end (nobody steps it) it may finish or hang. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { GATE_SECONDS = 30 };

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int balance;

static void *forward(void *arg)
{
    (void)arg;
    sleep(GATE_SECONDS);
    pthread_mutex_lock(&lock_a);    /* FORWARD_A: */
    balance = balance + 1;          /* FORWARD_BALANCE: */
    pthread_mutex_lock(&lock_b);    /* FORWARD_B: */
    pthread_mutex_unlock(&lock_b);
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static void *backward(void *arg)
{
    (void)arg;
    sleep(GATE_SECONDS);
    pthread_mutex_lock(&lock_b);    /* BACKWARD_B: */
    balance = balance - 1;
    pthread_mutex_lock(&lock_a);    /* BACKWARD_A: */
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, forward, NULL);
    pthread_create(&t[1], NULL, backward, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("balance %d\n", balance);
    return 0;
}
