/* lost_update.c - two threads increment a global counter without a lock.
 *
 * BUGGY.  Each thread does  tmp = counter; tmp = tmp + 1; counter = tmp;
 * N = 2 times.  If the other thread writes counter between this thread's
 * read and write-back, an increment is lost and counter ends below 4.
 *
 * Expected mdat verdict: ASSERTION FAILURE (counter == 4) at the line marked
 * FAILS, in main, in some schedules; other schedules exit 0 with "counter = 4".
 * The root cause is the unprotected read-modify-write (lines marked READ and
 * BUG); a race detector should flag `counter`.
 * Natively: almost always exits 0.
 *
 * Also built as lost_update_nopie (-no-pie) and stripped_lost_update (-s).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define N 2

int counter = 0;

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < N; i++) {
        int tmp = counter;           /* READ: unprotected read of counter */
        tmp = tmp + 1;
        counter = tmp;               /* BUG: write-back may overwrite another thread's update */
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, incrementer, NULL);
    pthread_create(&t2, NULL, incrementer, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("counter = %d\n", counter);
    assert(counter == 2 * N);        /* FAILS: when an update was lost */
    return 0;
}
