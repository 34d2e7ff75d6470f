/* order_bug_sleep.c - an ordering bug "fixed" with sleep().
 *
 * BUGGY.  main creates the worker and only THEN sets the global pointer
 * `shared`.  The worker sleeps one second "to let main initialise it" and
 * dereferences it.  With real time main nearly always wins; under mdat
 * sleep() returns at once and is just a scheduling point, so in schedules
 * where the worker runs before main's assignment it reads shared == NULL.
 *
 * Expected mdat verdict: CRASH, SIGSEGV (NULL dereference, address 0) in the
 * worker thread at the line marked BUG, in some schedules; other schedules
 * exit 0 and print "value = 42".
 * Natively: exits 0 (after ~1 s).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

struct config {
    int value;
};

struct config *shared = NULL;
static struct config the_config;
int result = 0;

static void *worker(void *arg)
{
    (void)arg;
    sleep(1);                        /* "give main time to set shared" - not a synchronisation */
    result = shared->value;          /* BUG: shared may still be NULL */
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    the_config.value = 42;
    shared = &the_config;            /* initialised after the thread already exists */
    pthread_join(t, NULL);
    printf("value = %d\n", result);
    return 0;
}
