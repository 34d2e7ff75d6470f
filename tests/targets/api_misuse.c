/* api_misuse.c - five ways to misuse the pthread API, one per argument.
 *
 * BUGGY.  Each case is wrong in every schedule, yet glibc lets it pass
 * silently (or with an error code nobody checks):
 *   unlock-other   T2 unlocks a mutex that main holds.
 *   unlock-free    T2 unlocks a mutex nobody holds.
 *   cond-nolock    T2 waits on a condvar without holding its mutex (in the
 *                  schedules where it waits at all).
 *   destroy-held   main destroys a mutex while T2 holds it.
 *   sem-destroy    main destroys a semaphore T2 is waiting on (in the
 *                  schedules where T2 got to sem_wait first).
 *   double-join    main and T3 both join T2.
 * Expected mdat verdict: misuse, with the line marked for the case.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
sem_t items;
int flag;
pthread_t worker;

static void *unlock_other(void *arg)
{
    (void)arg;
    pthread_mutex_unlock(&lock);        /* UNLOCK_OTHER: */
    return NULL;
}

static void *unlock_free(void *arg)
{
    (void)arg;
    pthread_mutex_unlock(&lock);        /* UNLOCK_FREE: */
    return NULL;
}

static void *cond_nolock(void *arg)
{
    (void)arg;
    while (!flag)
        pthread_cond_wait(&ready, &lock);   /* COND_NOLOCK: */
    return NULL;
}

static void *hold_lock(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    flag = 1;
    return NULL;    /* returns still holding it */
}

static void *wait_item(void *arg)
{
    (void)arg;
    flag = 1;
    sem_wait(&items);
    return NULL;
}

static void *join_worker(void *arg)
{
    (void)arg;
    pthread_join(worker, NULL);         /* DOUBLE_JOIN: */
    return NULL;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (strcmp(which, "unlock-other") == 0) {
        pthread_mutex_lock(&lock);
        pthread_create(&worker, NULL, unlock_other, NULL);
        pthread_join(worker, NULL);
    } else if (strcmp(which, "unlock-free") == 0) {
        pthread_create(&worker, NULL, unlock_free, NULL);
        pthread_join(worker, NULL);
    } else if (strcmp(which, "cond-nolock") == 0) {
        pthread_create(&worker, NULL, cond_nolock, NULL);
        pthread_mutex_lock(&lock);
        flag = 1;
        pthread_cond_signal(&ready);
        pthread_mutex_unlock(&lock);
        pthread_join(worker, NULL);
    } else if (strcmp(which, "destroy-held") == 0) {
        pthread_create(&worker, NULL, hold_lock, NULL);
        pthread_join(worker, NULL);
        pthread_mutex_destroy(&lock);   /* DESTROY_HELD: */
    } else if (strcmp(which, "sem-destroy") == 0) {
        sem_init(&items, 0, 0);
        pthread_create(&worker, NULL, wait_item, NULL);
        while (!flag)
            sched_yield();
        sem_destroy(&items);            /* SEM_DESTROY: */
        sem_post(&items);
        pthread_join(worker, NULL);
    } else if (strcmp(which, "double-join") == 0) {
        pthread_t other;
        pthread_create(&worker, NULL, hold_lock, NULL);
        pthread_create(&other, NULL, join_worker, NULL);
        pthread_join(worker, NULL);     /* DOUBLE_JOIN_MAIN: */
        pthread_join(other, NULL);
    } else {
        fprintf(stderr, "usage: api_misuse unlock-other|unlock-free|cond-nolock|destroy-held|sem-destroy|double-join\n");
        return 2;
    }
    puts("done");
    return 0;
}
