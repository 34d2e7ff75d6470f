/* timer_spin: CORRECT. Threads spin on flags that only signal handlers
 * set: a timer of setitimer (SIGALRM after 20 ms) and of alarm (1 s). The
 * signals arrive while the threads spin, as on the CPU. Then main waits on
 * a semaphore that only a handler posts (setitimer, 50 ms): every thread
 * waits, and the timer still comes (no deadlock). Prints "itimer fired",
 * "alarm fired" and "wait ended" and exits 0. */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t fired;
static volatile int spins_done;

static void on_alarm(int sig)
{
    (void)sig;
    fired = 1;
}

static sem_t posted;

static void post_on_alarm(int sig)
{
    (void)sig;
    sem_post(&posted);
}

static void *spinner(void *arg)
{
    (void)arg;
    while (!fired)              /* only the handler ends this */
        ;
    spins_done = 1;
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);

    struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 20000}};
    setitimer(ITIMER_REAL, &it, NULL);
    while (!fired)              /* main spins: the timer interrupts it */
        ;
    printf("itimer fired\n");

    fired = 0;
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    alarm(1);
    pthread_join(t, NULL);      /* a thread spins: the alarm still comes */
    printf("alarm fired\n");

    sem_init(&posted, 0, 0);
    sa.sa_handler = post_on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    it.it_value.tv_usec = 50000;
    setitimer(ITIMER_REAL, &it, NULL);
    while (sem_wait(&posted) != 0)  /* EINTR: the handler ran first */
        ;
    printf("wait ended\n");
    return spins_done ? 0 : 1;
}
