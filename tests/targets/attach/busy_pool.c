/* busy_pool: CORRECT. A pool of four threads takes numbered tasks from a
 * shared counter under a mutex, sums 1000 numbers per task (with a short
 * sleep, so the threads block and wake often), adds into a shared total,
 * and main waits on a condvar until every task is done, then prints the
 * total: the sum of 0 .. TASKS*1000-1. Attaching and detaching any number
 * of times must not change that output. Usage: busy_pool [TASKS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WORKERS = 4, PER_TASK = 1000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static long next_task, tasks_done, n_tasks;
static unsigned long long total;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        long task = next_task < n_tasks ? next_task++ : -1;
        pthread_mutex_unlock(&lock);
        if (task < 0)
            return NULL;
        unsigned long long sum = 0;
        for (long i = task * PER_TASK; i < (task + 1) * PER_TASK; i++)
            sum += (unsigned long long)i;
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        total += sum;
        if (++tasks_done == n_tasks)
            pthread_cond_signal(&all_done);
        pthread_mutex_unlock(&lock);
    }
}

int main(int argc, char **argv)
{
    n_tasks = argc > 1 ? atol(argv[1]) : 10000;
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&lock);
    while (tasks_done < n_tasks)
        pthread_cond_wait(&all_done, &lock);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("total %llu\n", total);
    return 0;
}
