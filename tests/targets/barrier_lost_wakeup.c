/* barrier_lost_wakeup.c - a one-shot condition-variable barrier with a lost
 * wake-up (shrinking's test of the fewest preemptions).
 *
 * Each of three workers counts itself in under the lock, lets the lock go,
 * and then, unless it was the last, takes the lock again to wait. The wait
 * is not guarded by a re-check of the count: when the last worker
 * broadcasts in the gap between a waiter's unlock and its wait, the
 * broadcast wakes nobody and that waiter sleeps for ever (deadlock at the
 * WAIT: line). One preemption (the waiter switched out inside the gap) is
 * enough; a random schedule usually needs several more.
 *
 * Expected: deadlock in some schedules, at the line marked WAIT:.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_here = PTHREAD_COND_INITIALIZER;
static int arrived;

static void barrier_wait(void)
{
    pthread_mutex_lock(&lock);
    int me = ++arrived;
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
    if (me == THREADS)
        pthread_cond_broadcast(&all_here);
    else
        pthread_cond_wait(&all_here, &lock);    /* WAIT: no re-check of arrived */
    pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
    (void)arg;
    barrier_wait();
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    puts("all passed the barrier");
    return 0;
}
