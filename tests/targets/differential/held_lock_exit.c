/* held_lock_exit.c [fail] - main starts a thread that takes a mutex to
 * print a line, then takes the mutex itself and returns holding it: the
 * thread's line comes out only when it got the mutex first.
 *
 * CORRECT; two outputs: "main in" alone, or "worker in" before it.
 * "fail": main asserts, holding the mutex, that the worker got it first:
 * FAILURE assertion in the interleavings where it did not.
 * dpor once explored one class: the worker's lock, blocked until the end,
 * was never made, so no event of the trace raced with main's.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int worker_was_in;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    worker_was_in = 1;
    printf("worker in\n");
    fflush(stdout);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&m);
    printf("main in\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "fail") == 0)
        assert(worker_was_in);      /* FAILS when main got the mutex first */
    return 0;
}
