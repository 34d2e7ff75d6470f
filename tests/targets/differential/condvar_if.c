/* condvar_if.c [locked] - a lost wake-up: the waiter tests the flag once
 * with `if` under the mutex, the notifier sets it and signals.
 *
 * BUGGY with no argument: the flag is set without the mutex, so it can be
 * set and signalled between the waiter's test and its wait, which then
 * waits forever. Outcomes: deadlock, or "woken" and exit 0.
 * CORRECT with "locked": the flag is set under the mutex; one outcome.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, locked;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    if (!ready)
        pthread_cond_wait(&cv, &m);     /* WAIT: the signal came before */
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *notifier(void *arg)
{
    (void)arg;
    if (locked)
        pthread_mutex_lock(&m);
    ready = 1;  /* BUG: without the mutex the waiter tests the flag under */
    if (locked)
        pthread_mutex_unlock(&m);
    pthread_cond_signal(&cv);
    return NULL;
}

int main(int argc, char **argv)
{
    locked = argc > 1 && strcmp(argv[1], "locked") == 0;
    pthread_t a, b;
    pthread_create(&a, NULL, waiter, NULL);
    pthread_create(&b, NULL, notifier, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    puts("woken");
    return 0;
}
