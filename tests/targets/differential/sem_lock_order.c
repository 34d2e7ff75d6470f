/* sem_lock_order.c [buggy] - three threads take turns in a critical
 * section guarded by a semaphore used as a lock (initial value 1), each
 * writing its id into the next slot of a log; main prints the log.
 *
 * CORRECT; six outcomes, one per order of the three turns ("123" ...
 * "321"). dpor once found only the first: a wait after another thread's
 * post could not come before that post, and the race with the poster's own
 * earlier wait, which the post ordered, was never reversed ("exact: all 1
 * classes"). "buggy": a thread that finds the log already holding two
 * entries asserts (a stand-in for a check that depends on the order):
 * FAILURE assertion in the orders where thread 1 comes last.
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static sem_t turn;
static int log_of_turns[3];
static int entries;
static int buggy;

static void *take_turn(void *arg)
{
    int id = (int)(long)arg;
    sem_wait(&turn);
    assert(!(buggy && id == 1 && entries == 2));    /* FAILS with "buggy" */
    log_of_turns[entries++] = id;
    sem_post(&turn);
    return NULL;
}

int main(int argc, char **argv)
{
    buggy = argc > 1 && strcmp(argv[1], "buggy") == 0;
    sem_init(&turn, 0, 1);
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, take_turn, (void *)(i + 1));
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("%d%d%d\n", log_of_turns[0], log_of_turns[1], log_of_turns[2]);
    return 0;
}
