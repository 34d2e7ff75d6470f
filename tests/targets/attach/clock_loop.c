/* clock_loop: CORRECT. A thread waits for a moment SECONDS (argv[1],
 * default 30) ahead by reading the clock in a loop (clock_gettime, no
 * sleep), main waits to join it. The loop's state repeats but for the
 * time it reads: attached while it waits, it is not a livelock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct timespec until;

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *waiter(void *arg)
{
    (void)arg;
    struct timespec now;
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while (before(&now, &until));
    return NULL;
}

int main(int argc, char **argv)
{
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += argc > 1 ? atoi(argv[1]) : 30;
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL);
    puts("time");
    return 0;
}
