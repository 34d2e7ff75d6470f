/* thread_ends.c - the ways a thread or the program can end, each correct.
 *
 * "main-first": main makes two workers and leaves with pthread_exit while
 * they run; the last worker to finish prints the total. The program ends
 * when both workers have (exit status 0).
 * "worker-exit": a worker calls exit(4) while main waits to join it: the
 * whole program ends with status 4, main never returns from the join.
 * "cancel": main cancels a worker blocked on a condition variable and joins
 * it (the worker's cleanup handler unlocks the mutex).
 *
 * Expected mdat verdict: no failure in any schedule (with --fail-on-exit,
 * "worker-exit" fails with exit status 4 at the line marked EXIT).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKERS 2
#define ROUNDS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int total, finished;

static void *counting_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        total++;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    if (++finished == WORKERS)
        printf("total %d\n", total);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *exiting_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    total = 4;
    pthread_mutex_unlock(&lock);
    exit(total);                    /* EXIT: ends every thread */
}

static void unlock_on_cancel(void *m)
{
    pthread_mutex_unlock(m);
}

static void *waiting_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    pthread_cleanup_push(unlock_on_cancel, &lock);
    for (;;)
        pthread_cond_wait(&never, &lock);
    pthread_cleanup_pop(1);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "main-first";
    pthread_t t[WORKERS];
    if (strcmp(mode, "worker-exit") == 0) {
        pthread_create(&t[0], NULL, exiting_worker, NULL);
        pthread_join(t[0], NULL);
        puts("not reached");
        return 1;
    }
    if (strcmp(mode, "cancel") == 0) {
        pthread_create(&t[0], NULL, waiting_worker, NULL);
        pthread_cancel(t[0]);
        void *res;
        pthread_join(t[0], &res);
        printf("cancelled %d\n", res == PTHREAD_CANCELED);
        return 0;
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, counting_worker, NULL);
    pthread_exit(NULL);
}
