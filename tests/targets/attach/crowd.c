/* crowd: BUGGY. 300 threads wait on condvar go, which nobody signals;
 * main joins the first. mdat attach -p must read all 301 threads, report
 * the lost wake-up naming a few waiters and counting the rest. */
#include <pthread.h>

enum { THREADS = 300 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    pthread_cond_wait(&go, &lock); /* BUG: nobody signals go */
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    static pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, waiter, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
