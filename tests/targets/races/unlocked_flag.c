/* unlocked_flag.c - a "done" flag and its result handed over without any
 * synchronization.
 *
 * RACY.  The worker writes `result` and then `done`, both plain ints; main
 * spins on `done` and reads `result`.  Under a sequentially consistent
 * schedule the output is always right, so no assert or checker catches it:
 * only a race detector does (the compiler may hoist the load of `done` out
 * of the loop, and reorder the stores).
 * Expected mdat verdict: race on done (or result), at the lines marked.
 */
#include <pthread.h>
#include <stdio.h>

static int result;
static int done;

static void *worker(void *arg)
{
    (void)arg;
    result = 42;
    done = 1;                           /* BUG: a plain store hands nothing over */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!done)                       /* FAILS: races with the worker's store */
        ;
    printf("result = %d\n", result);
    pthread_join(t, NULL);
    return 0;
}
