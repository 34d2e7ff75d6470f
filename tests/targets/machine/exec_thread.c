/* exec_thread: CORRECT. A second thread replaces the program with execve
 * while main waits in pthread_join (which never returns: the exec ends
 * every other thread). Prints "exec from a thread" (from /bin/echo) and
 * exits 0. */
#include <pthread.h>
#include <unistd.h>

static void *exec_echo(void *arg)
{
    (void)arg;
    char *argv[] = {"echo", "exec from a thread", NULL};
    char *envp[] = {NULL};
    execve("/bin/echo", argv, envp);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, exec_echo, NULL);
    pthread_join(t, NULL);
    return 1;       /* only when execve failed */
}
