/* exit_before_worker.c [fail] - main starts a worker that prints a line,
 * and ends without joining it: whether the line comes out depends on
 * whether the worker ran before the process ended.
 *
 * CORRECT (no failure); two outcomes: "worker ran" printed or not.
 * "fail": main asserts that the worker has run before it ends: FAILURE
 * assertion in the interleavings where it has not, and exit 0 in the
 * others. dpor once explored one class here: the process's end (an exit or
 * a failed assertion) races with the next step of every thread that could
 * still run, which is no event of the trace when the thread never ran.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int worker_ran;

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&worker_ran, 1);
    printf("worker ran\n");
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_detach(t);
    if (argc > 1 && strcmp(argv[1], "fail") == 0)
        assert(atomic_load(&worker_ran));   /* FAILS when the worker has not run yet */
    fflush(stdout);
    return 0;
}
