/* omp_reduction.c - an OpenMP parallel for with a reduction.
 *
 * CORRECT.  Three threads sum 1..200 with reduction(+ : sum); every
 * schedule prints "sum 20100" and passes its assert, and nothing races.
 */
#include <assert.h>
#include <omp.h>
#include <stdio.h>

#define N 200

int main(void)
{
    long sum = 0;
    omp_set_num_threads(3);
#pragma omp parallel for reduction(+ : sum)
    for (int i = 1; i <= N; i++)
        sum += i;
    printf("sum %ld\n", sum);
    assert(sum == (long)N * (N + 1) / 2);
    return 0;
}
