/* tail_lock.c - two threads take two mutexes in opposite orders through a
 * helper whose last act is the lock: at -O2 a tail call (jmp
 * pthread_mutex_lock@plt), after which the only return address on the
 * stack is the caller's. DEADLOCK: each blocked lock must be told at the
 * helper's line, where the user's code locks, not at the caller's. */
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void take(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);      // TAKE: the lock a thread blocks in
}

static void *forward(void *arg)
{
    (void)arg;
    take(&first);
    take(&second);              // CALLER: forward's call of take
    pthread_mutex_unlock(&second);
    pthread_mutex_unlock(&first);
    return NULL;
}

static void *backward(void *arg)
{
    (void)arg;
    take(&second);
    take(&first);               // CALLER: backward's call of take
    pthread_mutex_unlock(&first);
    pthread_mutex_unlock(&second);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, forward, NULL);
    pthread_create(&b, NULL, backward, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
