/* Target for the take-over's visible steps (tests/e2e/attach.sh
 * takeover_counter): after a long sleep, one thread adds to counter
 * without a lock while another reads it (a data race), so that mdat
 * attaches before either has started and the steps show the reads and
 * writes of counter at its line. Let go, it must finish as if mdat had
 * never been there: "counter 5" and exit status 0 (an int3 left behind
 * would kill it with SIGTRAP). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { GATE_SECONDS = 30, ADDS = 5 };

static int counter;
static int seen;

static void *adder(void *arg)
{
    (void)arg;
    sleep(GATE_SECONDS);
    for (int i = 0; i < ADDS; i++)
        counter++;                  /* ADD: */
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    sleep(GATE_SECONDS);
    seen = counter;                 /* READ: */
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, adder, NULL);
    pthread_create(&t[1], NULL, reader, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("counter %d\n", counter);
    return 0;
}
