/* omp_constructs.c - OpenMP's synchronizing constructs, used correctly.
 *
 * CORRECT.  One parallel region of three threads: worksharing loops with
 * dynamic and static schedules (their implicit barriers order the second
 * loop after the first), single, an omp_lock_t, sections, an ordered loop,
 * critical, atomic, and tasks with taskwait. Every schedule passes the
 * asserts and nothing races: libgomp's own locks and barriers order the
 * accesses although the program calls no pthread function.
 */
#include <assert.h>
#include <omp.h>
#include <stdio.h>

#define N 64
int a[N], b[N];
long total;
int criticals, atomics;
omp_lock_t lk;
int order_seen[N], next_slot;

int main(void)
{
    omp_init_lock(&lk);
    omp_set_num_threads(3);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < N; i++)
            a[i] = i;
        /* implicit barrier: every a[] is written */
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            b[i] = a[N - 1 - i] * 2;
#pragma omp single
        total = 0;
#pragma omp for
        for (int i = 0; i < N; i++) {
            omp_set_lock(&lk);
            total += b[i];
            omp_unset_lock(&lk);
        }
#pragma omp for
        for (int i = 0; i < N; i++) {
#pragma omp critical
            criticals++;
#pragma omp atomic
            atomics++;
        }
#pragma omp sections
        {
#pragma omp section
            a[0] = -1;
#pragma omp section
            a[1] = -2;
        }
#pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 8; i++) {
#pragma omp ordered
            order_seen[next_slot++] = i;
        }
#pragma omp master
        {
#pragma omp task
            b[0] = 7;
#pragma omp task
            b[1] = 9;
#pragma omp taskwait
            b[2] = b[0] + b[1];
        }
    }
    omp_destroy_lock(&lk);
    assert(total == (long)N * (N - 1));
    assert(criticals == N && atomics == N);
    assert(a[0] == -1 && a[1] == -2 && b[2] == 16);
    for (int i = 0; i < 8; i++)
        assert(order_seen[i] == i);
    printf("ok\n");
    return 0;
}
