/* vfork_children.c - children that share the program's memory until they exec.
 *
 * CORRECT.  A second thread increments `counter` under a lock while main
 * runs three children whose memory is the program's own until they exec:
 *   vfork() from user code: the child stores to `child_ran` (shared: the
 *            parent sees it) and execs /bin/sh -c 'exit 0';
 *   system("echo hi"): glibc's posix_spawn, clone(CLONE_VM|CLONE_VFORK);
 *   posix_spawn of /bin/echo.
 * main asserts each child exited 0 and child_ran == 1.
 *
 * Expected mdat verdict: no failure in every schedule, "hi" and "spawned" on
 * stdout.  Such a child runs through mdat's breakpoints (the same pages):
 * it must step over them as the program would, not die of SIGSEGV. */
#include <assert.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static int child_ran;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static int exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);

    char *sh[] = {"/bin/sh", "-c", "exit 0", NULL};
    pid_t pid = vfork();
    if (pid == 0) {
        child_ran = 1;
        execv(sh[0], sh);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert(exit_code(status) == 0 && child_ran == 1);

    assert(system("echo hi") == 0);

    char *echo[] = {"/bin/echo", "spawned", NULL};
    assert(posix_spawn(&pid, echo[0], NULL, NULL, echo, environ) == 0);
    waitpid(pid, &status, 0);
    assert(exit_code(status) == 0);

    pthread_join(t, NULL);
    assert(counter == 3);
    printf("counter = %d\n", counter);
    return 0;
}
