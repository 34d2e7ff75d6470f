/* thread_pool.c - a fixed-size thread pool in the style of course code.
 *
 * CORRECT.  Four workers take tasks from a circular queue guarded by one
 * mutex and three condition variables; main submits 40 tasks (more than
 * the queue holds, so it waits for room), waits until every task is done,
 * shuts the pool down and checks the results. No schedule may fail, and
 * nothing races.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 4
#define QSIZE 8
#define TASKS 40

typedef struct { void (*fn)(long); long arg; } task_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full, all_done;
    task_t q[QSIZE];
    int head, tail, count, pending;
    int shutdown;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };

static long results[TASKS];

static void square(long i) { results[i] = i * i; }

static void *worker(void *unused)
{
    for (;;) {
        pthread_mutex_lock(&pool.lock);
        while (pool.count == 0 && !pool.shutdown)
            pthread_cond_wait(&pool.not_empty, &pool.lock);
        if (pool.count == 0 && pool.shutdown) {
            pthread_mutex_unlock(&pool.lock);
            return NULL;
        }
        task_t t = pool.q[pool.head];
        pool.head = (pool.head + 1) % QSIZE;
        pool.count--;
        pthread_cond_signal(&pool.not_full);
        pthread_mutex_unlock(&pool.lock);
        t.fn(t.arg);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0)
            pthread_cond_broadcast(&pool.all_done);
        pthread_mutex_unlock(&pool.lock);
    }
}

static void submit(void (*fn)(long), long arg)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.count == QSIZE)
        pthread_cond_wait(&pool.not_full, &pool.lock);
    pool.q[pool.tail] = (task_t){fn, arg};
    pool.tail = (pool.tail + 1) % QSIZE;
    pool.count++;
    pool.pending++;
    pthread_cond_signal(&pool.not_empty);
    pthread_mutex_unlock(&pool.lock);
}

int main(void)
{
    pthread_t tid[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (long i = 0; i < TASKS; i++)
        submit(square, i);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending > 0)
        pthread_cond_wait(&pool.all_done, &pool.lock);
    pool.shutdown = 1;
    pthread_cond_broadcast(&pool.not_empty);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(tid[i], NULL);
    long sum = 0;
    for (int i = 0; i < TASKS; i++)
        sum += results[i];
    printf("sum of squares %ld\n", sum);
    assert(sum == (long)(TASKS - 1) * TASKS * (2 * TASKS - 1) / 6);
    return 0;
}
