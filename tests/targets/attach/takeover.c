/* takeover: BUGGY, for `mdat attach -p PID` and its take-over (key t). Two
 * transfers deadlock on two locks taken in opposite orders, while a third
 * thread goes on ticking: a write to /dev/null, then a 50 ms sleep, for
 * ever. Taken over, the ticker can be stepped from call to call; the two
 * transfers cannot (each waits on a lock the other holds). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;
static long ticks;

static void *transfer(void *arg)
{
    pthread_mutex_t *first = arg ? &a : &b, *second = arg ? &b : &a;
    pthread_mutex_lock(first);
    pthread_barrier_wait(&both_hold_one);
    pthread_mutex_lock(second); /* BUG: the other transfer takes these in the other order */
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
    return NULL;
}

static void *ticker(void *arg)
{
    (void)arg;
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    for (;;) {
        ticks++;
        if (write(fd, "tick\n", 5) != 5) /* TICK: */
            return NULL;
        struct timespec nap = {0, 50000000};
        nanosleep(&nap, NULL); /* NAP: */
    }
}

int main(void)
{
    pthread_t t1, t2, t3;
    pthread_barrier_init(&both_hold_one, NULL, 2);
    pthread_create(&t1, NULL, transfer, &t1);
    pthread_create(&t2, NULL, transfer, NULL);
    pthread_create(&t3, NULL, ticker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("done\n");
    return 0;
}
