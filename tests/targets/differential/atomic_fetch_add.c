/* atomic_fetch_add.c - three threads take a ticket with a relaxed
 * atomic_fetch_add; main prints who got which.
 *
 * CORRECT; six outcomes, one per order of the three threads ("tickets 0 1
 * 2", "tickets 0 2 1", ...). For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int next;
static int ticket[3];

static void *take(void *arg)
{
    int me = (int)(long)arg;
    ticket[me] = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, take, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("tickets %d %d %d\n", ticket[0], ticket[1], ticket[2]);
    return 0;
}
