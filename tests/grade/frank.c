/* frank.c - sample submission: HANG (livelock, step limit).
 *
 * The account assignment (see alice.c) with "turns": each worker waits for
 * its turn by spinning on a shared variable, but the turn is handed to a
 * thread number that does not exist, so the other worker spins for ever,
 * reading memory at every iteration.
 * Expected verdict: hang (livelock), in every schedule.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 3

static volatile int turn = 1;
static int balance;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        while (turn != id)
            ;                           /* spins on shared memory */
        printf("enter %d\n", id);
        balance = balance + 10;
        printf("exit %d\n", id);
        turn = id + 2;                  /* BUG: should be the other thread, 3 - id */
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(balance == 2 * ROUNDS * 10);
    printf("balance %d\n", balance);
    return 0;
}
