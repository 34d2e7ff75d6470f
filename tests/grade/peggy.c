/* peggy.c - sample submission of the second assignment (see oscar.c):
 * HANG, never prints.
 *
 * Peggy adds under a lock, but main waits for a "done" flag that no thread
 * ever sets (an atomic: no data race), spinning for ever; the sum is never
 * printed. Expected verdict: hang (livelock, or a hang by the schedule and
 * the step budget): one bug, so with --gradescope only "ends in every
 * schedule" is lost for it, and "output correct in every schedule" because
 * no output was ever accepted.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define ROUNDS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int sum;
static atomic_int done;

static void *adder(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        sum = sum + 1;
        pthread_mutex_unlock(&lock);
    }
    return arg;                         /* BUG: done is never set */
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, adder, NULL);
    while (atomic_load(&done) < 2)
        ;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("sum: %d\n", sum);
    return 0;
}
