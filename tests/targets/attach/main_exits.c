/* main_exits: BUGGY. main starts two threads that deadlock (opposite lock
 * order, a barrier between) and ends with pthread_exit: the process lives
 * on with a zombie main thread. mdat attach -p must still read it (the
 * process's files and memory through a live thread) and report the cycle
 * between T2 and T3. */
#include <pthread.h>

static pthread_mutex_t left = PTHREAD_MUTEX_INITIALIZER, right = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *left_first(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&left);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&right); /* BUG: right_first takes them in the other order */
    return NULL;
}

static void *right_first(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&right);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&left); /* WAIT: right_first */
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_barrier_init(&both, NULL, 2);
    pthread_create(&a, NULL, left_first, NULL);
    pthread_create(&b, NULL, right_first, NULL);
    pthread_exit(NULL);
}
