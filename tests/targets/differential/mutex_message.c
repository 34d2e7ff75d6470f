/* mutex_message.c - a value passed under a mutex: the writer sets x and
 * then y under the lock, the reader reads both under the lock.
 *
 * CORRECT; two outcomes: "0 0" (the reader first) and "1 2" (the writer
 * first); the lock makes "1 0" impossible in either search. For the
 * dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int x, y, seen_x = -1, seen_y = -1;

static void *writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    x = 1;
    y = 2;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    seen_x = x;
    seen_y = y;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%d %d\n", seen_x, seen_y);
    return 0;
}
