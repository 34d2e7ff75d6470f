/* signals.c - a SIGUSR1 handler run in two different threads.
 *
 * CORRECT.  main installs a SIGUSR1 handler (sigaction, SA_RESTART) that
 * increments `hits`, a thread-local volatile sig_atomic_t, so each thread
 * counts the signals it handled itself and no variable is shared between a
 * handler and another thread.  The worker
 *   1. raise(SIGUSR1): the handler runs in the worker before raise returns,
 *      so the worker asserts its hits == 1 and publishes it in worker_hits
 *      (read by main after pthread_join);
 *   2. pthread_kill(main_thread, SIGUSR1): delivered to main, which is in or
 *      about to be in pthread_join (the join must survive the interruption).
 * After the join the signal to main has been sent, so it is delivered at the
 * latest on return from main's next system call: main calls sched_yield()
 * while its hits < 1 (bounded to 100 times), then asserts hits == 1 and
 * worker_hits == 1.
 *
 * Expected mdat verdict: exit 0 ("worker hits = 1, main hits = 1") in EVERY
 * schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>

static _Thread_local volatile sig_atomic_t hits = 0;   /* per thread */
int worker_hits = 0;
pthread_t main_thread;

static void on_usr1(int sig)
{
    (void)sig;
    hits = hits + 1;
}

static void *worker(void *arg)
{
    (void)arg;
    raise(SIGUSR1);
    assert(hits == 1);
    worker_hits = hits;
    pthread_kill(main_thread, SIGUSR1);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);

    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < 100 && hits < 1; i++)
        sched_yield();
    printf("worker hits = %d, main hits = %d\n", worker_hits, (int)hits);
    assert(worker_hits == 1);
    assert(hits == 1);
    return 0;
}
