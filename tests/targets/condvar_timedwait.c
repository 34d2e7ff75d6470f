/* condvar_timedwait.c - pthread_cond_timedwait in a predicate loop.
 *
 * CORRECT.  No clock is read; deadlines are fixed absolute CLOCK_REALTIME
 * times:
 *   1. main, still single-threaded, waits on `never_cond` (nobody ever
 *      signals it) with a deadline in 1970: must return ETIMEDOUT.
 *   2. the waiter waits for `ready` with pthread_cond_timedwait and a
 *      deadline in 2100, in a while loop; a timeout (ETIMEDOUT) is tolerated
 *      and just re-checks the predicate.  The signaller sets ready = 1 and
 *      signals under the lock, so the waiter always finishes.
 * main joins both and asserts the waiter saw ready.
 *
 * Expected mdat verdict: exit 0 ("ready seen") in EVERY schedule, whether or
 * not mdat lets timed waits time out.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
pthread_cond_t never_cond = PTHREAD_COND_INITIALIZER;
int ready = 0;
int seen = 0;
int timeouts = 0;

static const struct timespec long_ago = { .tv_sec = 1, .tv_nsec = 0 };           /* 1970 */
static const struct timespec far_future = { .tv_sec = 4102444800, .tv_nsec = 0 }; /* 2100-01-01 */

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!ready) {
        int rc = pthread_cond_timedwait(&ready_cond, &lock, &far_future);
        assert(rc == 0 || rc == ETIMEDOUT);
        if (rc == ETIMEDOUT)
            timeouts = timeouts + 1;
    }
    seen = 1;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_signal(&ready_cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_mutex_lock(&lock);
    int rc = pthread_cond_timedwait(&never_cond, &lock, &long_ago);
    pthread_mutex_unlock(&lock);
    assert(rc == ETIMEDOUT);

    pthread_t w, s;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    assert(seen == 1);
    printf("ready seen\n");
    return 0;
}
