/* mutex_trylock.c - two threads try a mutex once each and record whether
 * they got it.
 *
 * CORRECT; three outcomes: "got 1 1" (one was done before the other tried)
 * and "got 1 0", "got 0 1" (the other held it). For the dpor/dfs
 * differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int got[2];

static void *try(void *arg)
{
    int me = (int)(long)arg;
    if (pthread_mutex_trylock(&m) == 0) {
        got[me] = 1;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, try, (void *)0L);
    pthread_create(&b, NULL, try, (void *)1L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("got %d %d\n", got[0], got[1]);
    return 0;
}
