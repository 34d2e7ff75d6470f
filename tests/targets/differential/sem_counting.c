/* sem_counting.c [one] - a semaphore used as a lock around a counter.
 *
 * BUGGY with no argument: the semaphore starts at 2, so both threads are
 * inside at once and an increment can be lost; the assertion in main fails
 * (run with --races off, else the race on the counter is the failure).
 * CORRECT with "one": it starts at 1; one outcome, "counter 2".
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static sem_t s;
static int counter;

static void *increment(void *arg)
{
    (void)arg;
    sem_wait(&s);
    int seen = counter;
    counter = seen + 1;     /* BUG: with two permits another thread is inside too */
    sem_post(&s);
    return NULL;
}

int main(int argc, char **argv)
{
    sem_init(&s, 0, argc > 1 && strcmp(argv[1], "one") == 0 ? 1 : 2);
    pthread_t a, b;
    pthread_create(&a, NULL, increment, NULL);
    pthread_create(&b, NULL, increment, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("counter %d\n", counter);
    assert(counter == 2);   /* FAILS: an increment was lost */
    return 0;
}
