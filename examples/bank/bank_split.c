/* bank_split.c - transfers between bank accounts, BUGGY: the "fix" for the
 * deadlock that breaks the conservation of money.
 *
 * Problem and structure: as bank.c (ACCOUNTS accounts with a mutex each,
 * TELLERS tellers, an auditor that locks ALL accounts and asserts that the
 * total is ACCOUNTS * 100).
 *
 * The bug: after meeting bank_deadlock.c, the student decided never to hold
 * two locks at once: transfer() withdraws under the `from` lock, unlocks, and
 * then deposits under the `to` lock.  There is no deadlock any more, and each
 * balance is always updated under its lock - but the transfer is no longer
 * atomic.  Between the unlock and the deposit the money is in no account,
 * and the auditor, correctly locking everything, can see a total 10 short:
 *   T0: lock(0), balance0 -= 10, unlock(0)
 *   auditor: locks 0, 1, 2, adds up 290, asserts  <- fails
 *   T0: lock(1), balance1 += 10, unlock(1)
 *
 *   ./bank_split [TRANSFERS]
 *   mdat run ./bank_split
 *
 * Expected mdat verdict: assertion failure in the auditor (line marked FAILS).
 * Fix: hold both locks for the whole transfer, taken in id order (bank.c).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ACCOUNTS 3
#define TELLERS 3
#define INITIAL 100

struct account {
    int id;
    int balance;
    pthread_mutex_t lock;
};

struct account bank[ACCOUNTS];
int transfers = 2;

static void transfer(struct account *from, struct account *to, int amount)
{
    pthread_mutex_lock(&from->lock);        /* never hold two locks: no deadlock */
    from->balance -= amount;
    pthread_mutex_unlock(&from->lock);      /* BUG: the money is in neither account until the deposit */
    pthread_mutex_lock(&to->lock);
    to->balance += amount;
    pthread_mutex_unlock(&to->lock);
}

static int audit(void)
{
    int total = 0;
    for (int i = 0; i < ACCOUNTS; i++)         /* same order as transfer() */
        pthread_mutex_lock(&bank[i].lock);
    for (int i = 0; i < ACCOUNTS; i++)
        total += bank[i].balance;
    for (int i = ACCOUNTS - 1; i >= 0; i--)
        pthread_mutex_unlock(&bank[i].lock);
    return total;
}

static void *teller(void *arg)
{
    int t = *(int *)arg;
    for (int i = 0; i < transfers; i++)
        transfer(&bank[t], &bank[(t + 1) % ACCOUNTS], 10);
    return NULL;
}

static void *auditor(void *arg)
{
    for (int i = 0; i < transfers; i++)
        assert(audit() == ACCOUNTS * INITIAL);  /* FAILS: sees a withdrawal without its deposit */
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[TELLERS], a;
    int id[TELLERS];

    if (argc > 1)
        transfers = atoi(argv[1]);
    for (int i = 0; i < ACCOUNTS; i++) {
        bank[i].id = i;
        bank[i].balance = INITIAL;
        pthread_mutex_init(&bank[i].lock, NULL);
    }
    pthread_create(&a, NULL, auditor, NULL);
    for (int i = 0; i < TELLERS; i++) {
        id[i] = i;
        pthread_create(&t[i], NULL, teller, &id[i]);
    }
    for (int i = 0; i < TELLERS; i++)
        pthread_join(t[i], NULL);
    pthread_join(a, NULL);
    printf("total = %d\n", audit());
    assert(audit() == ACCOUNTS * INITIAL);
    return 0;
}
