/* lock_order.c [ordered] - two threads take two mutexes.
 *
 * BUGGY with no argument: they take them in opposite orders, and when each
 * holds its first the program deadlocks. Outcomes: deadlock, "done".
 * CORRECT with "ordered": both take a before b; one outcome, "done".
 * For the dpor/dfs differential (scripts/dpor-vs-dfs).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int ordered;

static void *ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return NULL;
}

static void *ba(void *arg)
{
    (void)arg;
    pthread_mutex_t *first = ordered ? &a : &b, *second = ordered ? &b : &a;
    pthread_mutex_lock(first);
    pthread_mutex_lock(second);     /* BUG: the other order; WAIT: the other holds it */
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
    return NULL;
}

int main(int argc, char **argv)
{
    ordered = argc > 1 && strcmp(argv[1], "ordered") == 0;
    pthread_t t1, t2;
    pthread_create(&t1, NULL, ab, NULL);
    pthread_create(&t2, NULL, ba, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    puts("done");
    return 0;
}
