/* disjoint.c - two threads, each writing only its own variable.
 *
 * CORRECT.  No step of one thread conflicts with a step of the other: every
 * interleaving is equivalent to every other, so `mdat run --strategy dpor`
 * explores exactly 1 class.  What mdat sees (mdat run --trace): main's
 * start, two creates, two joins and its exit; each thread's start and its
 * two writes.  None of them conflicts across threads (the joins are
 * ordered after the threads' ends, the starts after the creates).
 */
#include <pthread.h>

int x, y;

static void *write_x(void *arg)
{
    (void)arg;
    x = 1;
    x = 2;
    return NULL;
}

static void *write_y(void *arg)
{
    (void)arg;
    y = 1;
    y = 2;
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, write_x, NULL);
    pthread_create(&b, NULL, write_y, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return x + y == 4 ? 0 : 1;
}
