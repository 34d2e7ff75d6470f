/* grace.c - sample submission: HANG (blocked in a real system call).
 *
 * The account assignment (see alice.c), where a worker waits for a "go"
 * byte on a socket that nobody ever writes: it blocks in read(2). A socket
 * could be completed from outside the program, so mdat waits in real time
 * until --timeout before it calls this a hang (on a pipe of the program's
 * own, it would be a deadlock at once).
 * Expected verdict: hang (a read nobody completes), in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROUNDS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int balance;
static int go[2];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char c;
    if (read(go[0], &c, 1) != 1)        /* BUG: nobody writes the pipe */
        return NULL;
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
    pthread_t t[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, go) != 0)
        return 1;
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(balance == 2 * ROUNDS * 10);
    printf("balance %d\n", balance);
    return 0;
}
