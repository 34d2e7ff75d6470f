/* double_checked.c - double-checked initialisation with a plain pointer.
 *
 * RACY.  The first check of `instance` reads it without the lock while
 * another thread may be writing it under the lock.
 * Expected mdat verdict: race on instance.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct config {
    int size;
};

static struct config *instance;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct config *get_config(void)
{
    if (!instance) {                    /* BUG: unlocked read of instance */
        pthread_mutex_lock(&lock);
        if (!instance) {
            struct config *c = malloc(sizeof *c);
            c->size = 8;
            instance = c;
        }
        pthread_mutex_unlock(&lock);
    }
    return instance;
}

static void *user(void *arg)
{
    (void)arg;
    return (void *)(long)get_config()->size;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, user, NULL);
    pthread_create(&b, NULL, user, NULL);
    void *ra, *rb;
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("sizes %ld %ld\n", (long)ra, (long)rb);
    return 0;
}
