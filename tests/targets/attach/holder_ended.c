/* holder_ended: BUGGY. A worker locks the mutex and ends without unlocking
 * it; main then waits for the mutex for good. mdat attach -p must say that
 * main waits on mutex config_lock held by a thread that has ended. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;

static void *loader(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    return NULL; /* BUG: returns still holding config_lock */
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, loader, NULL);
    pthread_join(t, NULL);
    pthread_mutex_lock(&config_lock); /* WAIT: main */
    puts("configured");
    return 0;
}
