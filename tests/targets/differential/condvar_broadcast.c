/* condvar_broadcast.c [signal] - two waiters wait in a while loop for a
 * flag that main sets under the mutex before waking them.
 *
 * CORRECT with no argument: main broadcasts; one outcome, "woken 2".
 * BUGGY with "signal": main signals once; when both are waiting one is
 * never woken and the program deadlocks.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, woken;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!go)
        pthread_cond_wait(&cv, &m);     /* WAIT: the one signal woke the other */
    woken++;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    int signal_once = argc > 1 && strcmp(argv[1], "signal") == 0;
    pthread_t a, b;
    pthread_create(&a, NULL, waiter, NULL);
    pthread_create(&b, NULL, waiter, NULL);
    pthread_mutex_lock(&m);
    go = 1;
    if (signal_once)
        pthread_cond_signal(&cv);       /* BUG: wakes one of two waiters */
    else
        pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("woken %d\n", woken);
    return 0;
}
