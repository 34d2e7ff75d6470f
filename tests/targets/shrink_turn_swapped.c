/* shrink_turn_swapped.c - Peterson's lock with its two stores in the wrong
 * order (shrinking's test of the fewest preemptions).
 *
 * Each of two workers gives the turn away before it raises its flag. A
 * worker switched out between the two stores lets the other one in (its
 * flag is still down), and then comes in too, since the other gave the turn
 * back: two preemptions, one in each worker, swap the roles the workers
 * play in a random schedule's failure; dfs --preemption-bound 1 finds none.
 *
 * Expected: assertion failure at the line marked FAILS in some schedules.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int wants[2];
static atomic_int turn;
static int holders;

static void enter(int me)
{
    int other = 1 - me;
    atomic_store(&turn, other);
    atomic_store(&wants[me], 1);    /* BUG: raised after the turn was given away */
    while (atomic_load(&wants[other]) && atomic_load(&turn) == other)
        ;
}

static void *worker(void *arg)
{
    int me = *(int *)arg;
    for (int round = 0; round < 2; round++) {
        enter(me);
        holders++;
        assert(holders == 1);       /* FAILS: both inside */
        holders--;
        atomic_store(&wants[me], 0);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    int ids[2] = {0, 1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &ids[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
