/* condvar_queue.c - a producer puts two items into a one-place queue, a
 * consumer takes them; each waits on its condition variable in a while
 * loop.
 *
 * CORRECT; one outcome, "took 1 2". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int item, has_item, took[2];

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= 2; i++) {
        pthread_mutex_lock(&m);
        while (has_item)
            pthread_cond_wait(&not_full, &m);
        item = i;
        has_item = 1;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&m);
        while (!has_item)
            pthread_cond_wait(&not_empty, &m);
        took[i] = item;
        has_item = 0;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, producer, NULL);
    pthread_create(&b, NULL, consumer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("took %d %d\n", took[0], took[1]);
    return 0;
}
