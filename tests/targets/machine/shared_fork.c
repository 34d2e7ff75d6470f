/* shared_fork: CORRECT. A forked child stores into memory it shares with
 * its parent (MAP_SHARED | MAP_ANONYMOUS) while the parent spins on it: the
 * parent sees the child's store and goes on, as on the CPU, however long
 * the child takes to start. Prints "child said 42" and exits 0. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int *shared;

int main(void)
{
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return 2;
    pid_t child = fork();
    if (child < 0)
        return 2;
    if (child == 0) {
        usleep(20000);
        shared[1] = 42;
        shared[0] = 1;
        _exit(0);
    }
    while (shared[0] == 0)      /* the child's store ends the spin */
        ;
    int status;
    waitpid(child, &status, 0);
    printf("child said %d\n", shared[1]);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && shared[1] == 42 ? 0 : 1;
}
