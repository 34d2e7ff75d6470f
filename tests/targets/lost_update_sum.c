/* lost_update_sum.c - two threads add to a shared sum without a lock; main
 * prints the sum for an output checker.
 *
 * BUGGY.  Each thread adds 1, 2, ..., ROUNDS to `sum` with a plain
 * `sum = sum + i` (a load and a store).  When the other thread stores
 * between this thread's load and store, an addition is lost and the sum
 * ends below ROUNDS * (ROUNDS + 1).  The program prints
 *     rounds=10
 *     sum=110            <- or less, when an update was lost
 *     done
 * and always exits 0: only its output says something went wrong, which
 * check_sum.sh (reads it on stdin) judges: it prints
 * "expected sum=110, got sum=95" and exits 1 when the sum is short.
 *
 * Usage: lost_update_sum [ROUNDS]   (default 10: about 60 visible steps;
 * 100 gives a run of several hundred).
 *
 * Expected mdat verdict (with --check tests/targets/check_sum.sh): checker
 * failure in some schedules, the output and the checker's words in the
 * report; the two loads and two stores of `sum` are the root cause (line
 * marked BUG).  Without a checker: exit 0 always.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int sum = 0;

static void *adder(void *arg)
{
    int rounds = (int)(intptr_t)arg;
    for (int i = 1; i <= rounds; i++)
        sum = sum + i;               /* BUG: load and store, another thread's store in between is lost */
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    pthread_t a, b;
    pthread_create(&a, NULL, adder, (void *)(intptr_t)rounds);
    pthread_create(&b, NULL, adder, (void *)(intptr_t)rounds);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("rounds=%d\nsum=%d\ndone\n", rounds, sum);
    return 0;
}
