/* lost_wakeup: BUGGY. The waiter calls pthread_cond_wait without a
 * predicate, and main signals before the waiter has started: the signal
 * is lost and the waiter waits for good. mdat attach -p must report a
 * lost wake-up: T2 waits on condvar ready and no thread is left that could
 * signal it (T1 joins T2). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    pthread_cond_wait(&ready, &lock); /* BUG: no predicate: the signal came before */
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_mutex_lock(&lock);
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL); /* WAIT: main */
    puts("woken");
    return 0;
}
