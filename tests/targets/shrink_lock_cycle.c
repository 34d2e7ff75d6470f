/* shrink_lock_cycle.c - three movers each lock their own account and then
 * the next one's, and an auditor locks all three in order (shrinking's test
 * of the fewest preemptions).
 *
 * Mover i locks account i, then account i + 1 (mod 3): when each holds its
 * first lock, each waits for the next one's, a cycle. One preemption is
 * enough (the first mover switched out holding its first lock, when the
 * others run in the right order); random's schedules have twenty, and
 * editing them one preemption at a time stops at several.
 *
 * Expected: deadlock in some schedules, movers waiting at the line marked BUG.
 */
#include <pthread.h>

#define ACCOUNTS 3

static pthread_mutex_t account[ACCOUNTS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                            PTHREAD_MUTEX_INITIALIZER};
static int balance[ACCOUNTS] = {100, 100, 100};

static void *mover(void *arg)
{
    int from = *(int *)arg, to = (from + 1) % ACCOUNTS;
    for (int round = 0; round < 2; round++) {
        pthread_mutex_lock(&account[from]);
        pthread_mutex_lock(&account[to]);       /* BUG: not in one global order */
        balance[from] -= 10;
        balance[to] += 10;
        pthread_mutex_unlock(&account[to]);
        pthread_mutex_unlock(&account[from]);
    }
    return NULL;
}

static void *auditor(void *arg)
{
    int total = 0;
    for (int i = 0; i < ACCOUNTS; i++)
        pthread_mutex_lock(&account[i]);
    for (int i = 0; i < ACCOUNTS; i++)
        total += balance[i];
    for (int i = ACCOUNTS - 1; i >= 0; i--)
        pthread_mutex_unlock(&account[i]);
    return (void *)(long)total;
}

int main(void)
{
    pthread_t a, t[ACCOUNTS];
    int ids[ACCOUNTS] = {0, 1, 2};
    pthread_create(&a, NULL, auditor, NULL);
    for (int i = 0; i < ACCOUNTS; i++)
        pthread_create(&t[i], NULL, mover, &ids[i]);
    for (int i = 0; i < ACCOUNTS; i++)
        pthread_join(t[i], NULL);
    pthread_join(a, NULL);
    return 0;
}
