/* bank_deadlock.c - transfers between bank accounts, BUGGY: lock-order
 * deadlock.
 *
 * Problem and structure: as bank.c (ACCOUNTS accounts with a mutex each,
 * TELLERS tellers transferring from account t to account t+1, an auditor
 * asserting that the total never changes).
 *
 * The bug: transfer(from, to) locks `from` first and then `to`.  Teller 0
 * moves money 0 -> 1, teller 1 moves 1 -> 2, teller 2 moves 2 -> 0: if each
 * of them gets its first lock before any gets its second, each waits for the
 * account the next teller holds - a cycle, DEADLOCK.  (Two tellers moving
 * money in opposite directions between the same two accounts deadlock the
 * same way.)  The auditor, which locks in id order, then blocks too.
 *   T0: lock(account 0)   T1: lock(account 1)   T2: lock(account 2)
 *   T0: lock(account 1) blocks, T1: lock(account 2) blocks, T2: lock(account 0) blocks
 *
 *   ./bank_deadlock [TRANSFERS]
 *   mdat run ./bank_deadlock
 *
 * Expected mdat verdict: deadlock, a wait cycle through the three tellers,
 * each waiting at the line marked BUG for a lock another teller holds.
 * Fix: lock the account with the smaller id first (bank.c).
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
    pthread_mutex_lock(&from->lock);
    pthread_mutex_lock(&to->lock);          /* BUG: locks in from/to order, not in a global order */
    from->balance -= amount;
    to->balance += amount;
    pthread_mutex_unlock(&to->lock);
    pthread_mutex_unlock(&from->lock);
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
