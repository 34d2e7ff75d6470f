/* unlocked_counter.c - two threads increment one counter without a lock
 * (a load and a store each); main prints it.
 *
 * BUGGY by design, with no verdict of its own (run with --races off):
 * outcomes "counter = 1" (a lost update) and "counter = 2". For the
 * dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static volatile int counter;

static void *increment(void *arg)
{
    (void)arg;
    int tmp = counter;
    counter = tmp + 1;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, increment, NULL);
    pthread_create(&b, NULL, increment, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter = %d\n", counter);
    return 0;
}
