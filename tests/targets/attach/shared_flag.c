/* shared_flag: CORRECT. A thread spins on a flag in memory shared with a
 * child process (MAP_SHARED), which sets it after SECONDS (argv[1],
 * default 30); main waits to join the spinner. The spin stores nothing
 * and its registers repeat, but another process can change what it
 * reads: it is not a livelock. The child dies with its parent. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int *flag;

static void *spinner(void *arg)
{
    (void)arg;
    while (!*flag) {
        /* the child sets it */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flag == MAP_FAILED)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 30);
        *flag = 1;
        _exit(0);
    }
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    pthread_join(t, NULL);
    waitpid(child, NULL, 0);
    puts("set");
    return 0;
}
