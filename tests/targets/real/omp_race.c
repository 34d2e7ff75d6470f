/* omp_race.c - an OpenMP parallel for that forgets its reduction.
 *
 * BUGGY (race; with --races off, an assertion in some schedules).  Three
 * threads add into the shared sum without reduction, atomic or critical.
 */
#include <assert.h>
#include <omp.h>
#include <stdio.h>

#define N 200

int main(void)
{
    long sum = 0;
    omp_set_num_threads(3);
#pragma omp parallel for
    for (int i = 1; i <= N; i++)
        sum += i; /* BUG: no reduction(+ : sum), atomic or critical */
    printf("sum %ld\n", sum);
    assert(sum == (long)N * (N + 1) / 2); /* FAILS: an update was lost */
    return 0;
}
