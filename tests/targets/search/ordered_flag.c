/* ordered_flag.c - a message handed over through a flag, read too early in
 * one interleaving of few.
 *
 * BUGGY.  The consumer checks the flag once; when it sees it set it expects
 * the data.  The producer sets the flag BEFORE it writes the data, so the
 * consumer can see the flag and read the old data: the assert fails.  Only
 * an interleaving where the consumer runs exactly between the producer's
 * two stores fails: every strategy must find it, dpor in its first few
 * classes.  Run with --races off (the race is the lesson's cause).
 */
#include <assert.h>
#include <pthread.h>

int data;
int ready;

static void *producer(void *arg)
{
    (void)arg;
    ready = 1;      /* BUG: published before the data is written */
    data = 42;
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    if (ready)
        assert(data == 42);     /* FAILS: ready seen, data not yet written */
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
