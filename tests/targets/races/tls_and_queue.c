/* tls_and_queue.c - thread-local counters, and heap blocks handed from a
 * producer to a consumer through a mutex-protected queue.
 *
 * RACE-FREE.  Each thread counts in its own _Thread_local variable; the
 * producer fills a malloc'd item before putting it on the queue under the
 * lock, and the consumer reads and frees it after taking it off under the
 * lock.  pthread_once runs the initialisation once, before either reads
 * `queue_cap`.
 * Expected mdat verdict: no failure, no race, "consumed 4, sum 10".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct item {
    int value;
    struct item *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static struct item *head;
static _Thread_local int handled;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int queue_cap;

static void init_queue(void)
{
    queue_cap = 4;
}

static void *producer(void *arg)
{
    (void)arg;
    pthread_once(&once, init_queue);
    for (int i = 1; i <= queue_cap; i++) {
        struct item *it = malloc(sizeof *it);
        it->value = i;
        pthread_mutex_lock(&lock);
        it->next = head;
        head = it;
        pthread_cond_signal(&nonempty);
        pthread_mutex_unlock(&lock);
        handled++;
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    pthread_once(&once, init_queue);
    int sum = 0;
    for (int i = 0; i < queue_cap; i++) {
        pthread_mutex_lock(&lock);
        while (!head)
            pthread_cond_wait(&nonempty, &lock);
        struct item *it = head;
        head = it->next;
        pthread_mutex_unlock(&lock);
        sum += it->value;
        free(it);
        handled++;
    }
    pthread_join(t, NULL);
    printf("consumed %d, sum %d\n", handled, sum);
    return 0;
}
