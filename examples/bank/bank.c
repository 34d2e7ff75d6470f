/* bank.c - transfers between bank accounts with one lock per account,
 * CORRECT version (locks taken in account-id order).
 *
 * Problem: ACCOUNTS accounts start with 100 each.  TELLERS threads each make
 * TRANSFERS transfers (argv[1], default 2) of 10 from one account to
 * another, while an auditor thread adds up all balances.  Money is neither
 * created nor destroyed: every audit, and the final total, must be
 * ACCOUNTS * 100 (the conservation-of-money invariant).
 *
 * Structure: each account has its own mutex, so transfers between different
 * accounts run in parallel.  A transfer locks BOTH accounts, moves the money
 * and unlocks.  To avoid deadlock, both locks are taken in a global order:
 * the account with the smaller id first.  The auditor locks every account
 * (in id order), sums, asserts the total, and unlocks.
 * Teller t transfers from account t to account t+1 (the last one to
 * account 0), so every pair of accounts is used in both directions.
 *
 *   ./bank [TRANSFERS]
 *   mdat run ./bank
 *
 * Expected: exits 0 in every schedule.
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
    struct account *first = from->id < to->id ? from : to;    /* lower id first */
    struct account *second = from->id < to->id ? to : from;
    pthread_mutex_lock(&first->lock);
    pthread_mutex_lock(&second->lock);
    from->balance -= amount;
    to->balance += amount;
    pthread_mutex_unlock(&second->lock);
    pthread_mutex_unlock(&first->lock);
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
        assert(audit() == ACCOUNTS * INITIAL);  /* no money created or lost */
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
