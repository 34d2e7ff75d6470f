/* bank_deadlock: BUGGY. Two transfers lock the two accounts in opposite
 * orders; a barrier makes sure each holds its first lock before it asks
 * for the second, so the program deadlocks every time it runs natively.
 * mdat attach -p must report: deadlock: T2 waits on mutex acct[1].lock
 * held by T3; T3 waits on mutex acct[0].lock held by T2 (T1 joins T2). */
#include <pthread.h>
#include <stdio.h>

struct account {
    pthread_mutex_t lock;
    long balance;
};

static struct account acct[2] = {{PTHREAD_MUTEX_INITIALIZER, 100}, {PTHREAD_MUTEX_INITIALIZER, 100}};
static pthread_barrier_t both_hold_one;

struct transfer {
    int from, to;
    long amount;
};

static void *transfer(void *arg)
{
    struct transfer *t = arg;
    pthread_mutex_lock(&acct[t->from].lock);
    pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(&acct[t->to].lock); /* BUG: the other transfer locks these in the other order */
    acct[t->from].balance -= t->amount;
    acct[t->to].balance += t->amount;
    pthread_mutex_unlock(&acct[t->to].lock);
    pthread_mutex_unlock(&acct[t->from].lock);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    struct transfer ab = {0, 1, 10}, ba = {1, 0, 20};
    pthread_barrier_init(&both_hold_one, NULL, 2);
    pthread_create(&a, NULL, transfer, &ab);
    pthread_create(&b, NULL, transfer, &ba);
    pthread_join(a, NULL); /* WAIT: main */
    pthread_join(b, NULL);
    printf("%ld %ld\n", acct[0].balance, acct[1].balance);
    return 0;
}
