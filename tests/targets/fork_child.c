/* fork_child.c - a multithreaded parent that forks two children.
 *
 * CORRECT.  The parent runs two threads doing locked increments of `counter`
 * (2 threads x 2 rounds under counter_lock) and, while they may be running,
 * forks:
 *   child 1: does its own threaded work.  It inherits a copy of the parent's
 *            memory in whatever state it was at fork time - counter_lock may
 *            be "held" by a parent thread that does not exist in the child -
 *            so the child never touches counter_lock/counter.  It uses
 *            child_lock (which the parent never locks, so it is always
 *            inherited unlocked), creates one thread, both increment
 *            child_counter under child_lock, it writes "child: ok" with
 *            write(2) and _exit(7) if child_counter == 2 (else _exit(1)).
 *   child 2: execl("/bin/true") - exit status 0 (127 if exec failed).
 * The parent joins its threads, waitpid()s both children, and asserts
 * counter == 4, child 1 exited with 7 and child 2 with 0.
 *
 * Expected mdat verdict: exit 0 in EVERY schedule; output contains
 * "child: ok" and "parent: ok counter = 4".
 * mdat has to cope with fork (children inherit breakpoints), threads in a
 * forked child, exec in a child, and waitpid blocking in the parent.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2
#define ROUNDS 2

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
int counter = 0;

pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;  /* used only in child 1 */
int child_counter = 0;

static void *parent_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&counter_lock);
        counter = counter + 1;
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

static void child_increment(void)
{
    pthread_mutex_lock(&child_lock);
    child_counter = child_counter + 1;
    pthread_mutex_unlock(&child_lock);
}

static void *child_worker(void *arg)
{
    (void)arg;
    child_increment();
    return NULL;
}

static void child_main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, child_worker, NULL) != 0)
        _exit(2);
    child_increment();
    pthread_join(t, NULL);
    const char *msg = child_counter == 2 ? "child: ok\n" : "child: BAD\n";
    (void)!write(1, msg, strlen(msg));
    _exit(child_counter == 2 ? 7 : 1);
}

int main(void)
{
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, parent_worker, NULL);

    fflush(stdout);                  /* nothing buffered must be duplicated into the children */
    pid_t worker_child = fork();
    assert(worker_child >= 0);
    if (worker_child == 0)
        child_main();

    pid_t exec_child = fork();
    assert(exec_child >= 0);
    if (exec_child == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }

    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);

    int status = 0;
    pid_t r = waitpid(worker_child, &status, 0);
    assert(r == worker_child);
    assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    r = waitpid(exec_child, &status, 0);
    assert(r == exec_child);
    assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    assert(counter == WORKERS * ROUNDS);
    printf("parent: ok counter = %d\n", counter);
    return 0;
}
