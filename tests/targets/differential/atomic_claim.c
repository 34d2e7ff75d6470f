/* atomic_claim.c - two threads claim a flag with a C11 atomic exchange;
 * the one that finds it clear records itself as the winner.
 *
 * CORRECT; two outcomes: "winner 1" and "winner 2". For the dpor/dfs
 * differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int taken;
static atomic_int winner;

static void *claim(void *arg)
{
    if (atomic_exchange(&taken, 1) == 0)
        atomic_store(&winner, (int)(long)arg);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, claim, (void *)1L);
    pthread_create(&b, NULL, claim, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("winner %d\n", atomic_load(&winner));
    return 0;
}
