/* cancel_wait.c - main cancels a thread that waits on a condition variable.
 *
 * CORRECT.  The waiter holds the mutex, then waits for ever; main waits
 * until it started, cancels it and joins it. The cancel is a step ("cancel
 * T2"), the wait it ends says so ("cancelled (pthread_cancel)"), and the
 * cleanup handler that gives the mutex back runs before the thread ends.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int started;
static void cleanup(void *a) { pthread_mutex_unlock(&m); }
static void *waiter(void *a)
{
    pthread_mutex_lock(&m);
    started = 1;
    pthread_cleanup_push(cleanup, NULL);
    for (;;)
        pthread_cond_wait(&c, &m);
    pthread_cleanup_pop(1);
    return NULL;
}
int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    for (;;) { pthread_mutex_lock(&m); int s = started; pthread_mutex_unlock(&m); if (s) break; usleep(100); }
    pthread_cancel(t); /* CANCEL: */
    pthread_join(t, NULL);
    puts("ok");
    return 0;
}
