/* ivan.c - sample submission: FORKS A LOT.
 *
 * Before doing the account assignment correctly (see alice.c), ivan forks
 * FORKS children that each block in pause(2) for ever. Under mdat every
 * child is traced and killed with the execution, and none may outlive the
 * grading. As an ordinary user, mdat grade's process limit (--max-procs)
 * makes a fork fail first: ivan then reports it on stderr and aborts. As
 * root the kernel ignores that limit, all children start, and the rest of
 * the program is correct. Bounded on purpose: a real fork bomb run as root
 * would take the test machine down.
 * Expected verdict: crash (SIGABRT, "fork: Resource temporarily
 * unavailable") as an ordinary user with a low --max-procs; ok as root.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 3
#define FORKS 150

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        printf("enter %d\n", id);
        balance = balance + 10;
        printf("exit %d\n", id);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    for (int i = 0; i < FORKS; i++) {
        pid_t pid = fork();             /* BUG: forks without need */
        if (pid < 0) {
            perror("fork");
            abort();
        }
        if (pid == 0) {
            for (;;)
                pause();
        }
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(balance == 2 * ROUNDS * 10);
    printf("balance %d\n", balance);
    return 0;
}
