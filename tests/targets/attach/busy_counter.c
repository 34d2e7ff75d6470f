/* busy_counter: CORRECT. A thread counts to LIMIT in memory (volatile:
 * every step a load and a store), main waits to join it, then prints the
 * count and how many SIGUSR1 it received. Busy, never blocked, and never
 * the same state twice: attached while it counts, it is not a livelock,
 * it still counts to LIMIT, and no signal sent meanwhile is lost. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define LIMIT 600000000UL

static volatile unsigned long count;
static volatile sig_atomic_t signals;

static void count_signal(int sig)
{
    (void)sig;
    signals++;
}

static void *counter(void *arg)
{
    (void)arg;
    while (count < LIMIT)
        count = count + 1;
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, counter, NULL);
    pthread_join(t, NULL);
    printf("count %lu signals %d\n", count, (int)signals);
    return 0;
}
