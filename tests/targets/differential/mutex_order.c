/* mutex_order.c - two threads each append their digit to a number under
 * one mutex; main prints it.
 *
 * CORRECT; two outcomes: "12" and "21". For the dpor/dfs differential
 * (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int order;

static void *append(void *arg)
{
    pthread_mutex_lock(&m);
    order = order * 10 + (int)(long)arg;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, append, (void *)1L);
    pthread_create(&b, NULL, append, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d\n", order);
    return 0;
}
