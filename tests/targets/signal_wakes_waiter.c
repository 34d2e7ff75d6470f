/* signal_wakes_waiter.c - a signal handler releases the thread it
 * interrupts.
 *
 * CORRECT.  main waits on a semaphore; the worker sends main SIGUSR1, whose
 * handler posts that semaphore (sem_post is async-signal-safe). Natively
 * the signal interrupts main's wait, the handler posts, and sem_wait returns.
 * A supervisor that keeps main "blocked" without delivering the signal
 * would report a deadlock that cannot happen.
 * Expected mdat verdict: exit 0 in every schedule, "woken".
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

sem_t wake;
pthread_t main_thread;
volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
    (void)sig;
    handled = 1;
    sem_post(&wake);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_kill(main_thread, SIGUSR1);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sem_init(&wake, 0, 0);
    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (sem_wait(&wake) != 0)                /* WAIT: */
        ;
    pthread_join(t, NULL);
    puts(handled ? "woken" : "not woken");
    return 0;
}
