/* takeover_spawn: correct, for the take-over of `mdat attach -p PID`
 * (key t) with threads made while mdat holds the process. main makes a
 * short-lived worker, joins it, sleeps 20 ms, for ever; each worker adds
 * one to made and writes to /dev/null. Stepped through pthread_create, the
 * new worker must be held like the others (it never runs free), and the
 * program goes on making workers once let go. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int devnull;
static volatile long made;

static void *worker(void *arg)
{
    (void)arg;
    made++;
    if (write(devnull, "w\n", 2) != 2) /* WORKER: */
        return NULL;
    return NULL;
}

int main(void)
{
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    for (;;) {
        pthread_t w;
        if (pthread_create(&w, NULL, worker, NULL) != 0) /* SPAWN: */
            return 1;
        pthread_join(w, NULL);
        struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL); /* NAP: */
    }
}
