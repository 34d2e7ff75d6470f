/* condvar_signal_lost.c - pthread_cond_signal where pthread_cond_broadcast is needed.
 *
 * BUGGY.  Two waiters wait (correctly, in a while loop) for the predicate
 * `go`.  main sets go = 1 and wakes them with pthread_cond_signal, which
 * wakes at most ONE waiter.
 *   - If both waiters are already blocked in pthread_cond_wait when main
 *     signals, one wakes and the other sleeps forever: DEADLOCK (the waiter
 *     blocked on cond `go_cond` at the line marked WAIT, main blocked in
 *     pthread_join).
 *   - If at least one waiter checks `go` only after main set it, that waiter
 *     never waits, the single signal is enough, and the program exits 0 with
 *     "woken = 2".
 *
 * Expected mdat verdict: DEADLOCK in some schedules, exit 0 in others.
 * BUG line: main's pthread_cond_signal.
 * Natively: usually exits 0; may hang if both waiters wait first.
 */
#include <pthread.h>
#include <stdio.h>

#define WAITERS 2

pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
int go = 0;
int woken = 0;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&go_lock);
    while (!go)
        pthread_cond_wait(&go_cond, &go_lock);   /* WAIT: a waiter may stay here forever */
    woken = woken + 1;
    pthread_mutex_unlock(&go_lock);
    return NULL;
}

int main(void)
{
    pthread_t t[WAITERS];
    for (int i = 0; i < WAITERS; i++)
        pthread_create(&t[i], NULL, waiter, NULL);

    pthread_mutex_lock(&go_lock);
    go = 1;
    pthread_cond_signal(&go_cond);   /* BUG: wakes one waiter; needs pthread_cond_broadcast */
    pthread_mutex_unlock(&go_lock);

    for (int i = 0; i < WAITERS; i++)
        pthread_join(t[i], NULL);
    printf("woken = %d\n", woken);
    return 0;
}
