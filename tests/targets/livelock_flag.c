/* livelock_flag.c - a thread busy-waits on a flag that nobody ever sets.
 *
 * BUGGY (never terminates).  The waiter spins on `volatile int ready`,
 * reading it every iteration (a visible memory read each time).  The helper
 * was supposed to set `ready` but sets `started` instead (and does a little
 * locked work), so `ready` stays 0 forever in every schedule.
 *
 * Expected mdat verdict: STEP LIMIT EXCEEDED (livelock / spin loop) with the
 * waiter spinning at the line marked BUG, in EVERY schedule.  Not a
 * deadlock (the waiter is always runnable), not a watchdog timeout (it
 * keeps doing visible reads).
 * Natively: hangs (check with `timeout 2`).
 */
#include <pthread.h>
#include <stdio.h>

volatile int ready = 0;
volatile int started = 0;
pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
int work = 0;

static void *waiter(void *arg)
{
    (void)arg;
    while (!ready) { }               /* BUG: busy-waits on a flag that is never set */
    pthread_mutex_lock(&work_lock);
    work = work + 1;
    pthread_mutex_unlock(&work_lock);
    return NULL;
}

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&work_lock);
    work = work + 1;
    pthread_mutex_unlock(&work_lock);
    started = 1;                     /* meant to be `ready = 1` */
    return NULL;
}

int main(void)
{
    pthread_t w, h;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&h, NULL, helper, NULL);
    pthread_join(h, NULL);
    pthread_join(w, NULL);
    printf("unreachable: work = %d\n", work);
    return 0;
}
