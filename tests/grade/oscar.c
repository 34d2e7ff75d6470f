/* oscar.c - sample submission of the second assignment: RACE, and a wrong
 * sum in many schedules.
 *
 * The assignment (check_sum.sh checks the output): two threads each add 1
 * to a shared sum ROUNDS times; main joins them and prints "sum: N", which
 * must be 2 * ROUNDS. Oscar adds without a lock: two threads may both load
 * the same sum and store the same next value, losing an update.
 * Expected verdict: race or checker by the schedule, with --gradescope the
 * points of "no data race" and of "output correct in every schedule" lost
 * (the race does not stop the execution: the checker still sees the sum).
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 4

static int sum;

static void *adder(void *arg)
{
    for (int i = 0; i < ROUNDS; i++)
        sum = sum + 1;                  /* BUG: a load and a store, another thread may come between */
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, adder, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("sum: %d\n", sum);
    return 0;
}
