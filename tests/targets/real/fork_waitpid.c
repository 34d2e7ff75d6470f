/* fork_waitpid.c - a worker thread forks a child that computes for a while
 * and exits with a status; the thread waits for it with waitpid while the
 * main thread keeps counting.
 *
 * CORRECT.  The child's exit status (42) comes back through waitpid
 * (asserted).  Under mdat, fork and waitpid are steps, the waiting thread
 * waits in mdat's model (waiting-io) until the child has ended, and the
 * other thread runs meanwhile.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long ticks;
static int child_status = -1;

static void *spawner(void *arg)
{
    (void)arg;
    pid_t pid = fork();
    if (pid == 0) {
        volatile long x = 0;
        for (long i = 0; i < 2000000; i++)
            x += i;
        _exit(42);
    }
    int status;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
        child_status = WEXITSTATUS(status);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spawner, NULL);
    for (int i = 0; i < 20; i++)
        ticks++;
    pthread_join(t, NULL);
    assert(child_status == 42);
    printf("child %d, ticks %ld\n", child_status, ticks);
    return 0;
}
