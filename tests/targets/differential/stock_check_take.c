/* stock_check_take.c - two buyers take items from an atomic stock of 3,
 * two rounds each. "racy" checks the stock and then takes one in two
 * atomic steps (a check-then-act race: both can see the last item); the
 * default takes with a compare-and-swap. Each sale is counted under a
 * mutex, and sold items are rounded down by a plain add (`sold++': one
 * read-modify-write instruction, two steps under mdat).
 *
 * CORRECT by default; one outcome: "sold 3 left 0".
 * "racy": FAILURE exit status 1 in some interleavings ("left -1"), which
 * needs a preemption between a buyer's check and its take in the second
 * round. At -O2 gcc peels the loop, so the second round's check is another
 * instruction than the first's. Issue 23's false proof: the spin watch
 * took the thread stopped between the load and the store of `sold++' for
 * one that had come back to where it was (a spin), and dpor and dfs did
 * not branch on it any more.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int stock = 3;
static pthread_mutex_t sales_lock = PTHREAD_MUTEX_INITIALIZER;
static int sold;
static int racy;

static int take_one(void)
{
    if (racy) {
        if (atomic_load(&stock) <= 0)
            return 0;
        atomic_fetch_sub(&stock, 1);
        return 1;
    }
    int seen = atomic_load(&stock);
    while (seen > 0 && !atomic_compare_exchange_weak(&stock, &seen, seen - 1))
        ;
    return seen > 0;
}

static void *buyer(void *arg)
{
    (void)arg;
    for (int round = 0; round < 2; round++) {
        if (!take_one())
            continue;
        pthread_mutex_lock(&sales_lock);
        sold++;
        pthread_mutex_unlock(&sales_lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    pthread_t buyers[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&buyers[i], NULL, buyer, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(buyers[i], NULL);
    int left = atomic_load(&stock);
    printf("sold %d left %d\n", sold, left);
    return left < 0;
}
