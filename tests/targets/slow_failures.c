/* slow_failures.c - failures after a long run, for what stops mdat midway
 * (tests/e2e/safety.sh: keep_going_kill, stop_fast, full_disk).
 *
 * usage: slow_failures ROUNDS MODE
 * Two workers each make ROUNDS locked increments (the long, correct part).
 * MODE two: then each takes two locks in its own order (a deadlock in some
 * schedules) and adds to a plain counter (a lost update: main's assertion
 * fails in others): two failures of different kinds and places.
 * MODE always: main's assertion fails in every schedule, at the end. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER, a = PTHREAD_MUTEX_INITIALIZER,
                       b = PTHREAD_MUTEX_INITIALIZER;
static long rounds, count;
static int plain;
static int two;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (long i = 0; i < rounds; i++) {
        pthread_mutex_lock(&count_lock);
        count++;
        pthread_mutex_unlock(&count_lock);
    }
    if (two) {
        pthread_mutex_t *first = id == 1 ? &a : &b, *second = id == 1 ? &b : &a;
        pthread_mutex_lock(first);
        pthread_mutex_lock(second);     /* DEADLOCK: each holds the lock the other wants */
        pthread_mutex_unlock(second);
        pthread_mutex_unlock(first);
        plain = plain + 1;              /* a load and a store: an update may be lost */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 100;
    two = argc > 2 && strcmp(argv[2], "two") == 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (two)
        assert(plain == 2);             /* ASSERT: fails when an update was lost */
    else
        assert(count == -1);            /* ALWAYS: fails in every schedule */
    printf("count %ld\n", count);
    return 0;
}
