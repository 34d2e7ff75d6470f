/* Unit tests for supervisor/strategies/priority_heap: what comes off the top,
 * in what order, against a sorted copy of what went in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "supervisor/strategies/priority_heap.h"
#include "supervisor/strategies/rng.h"

static int before(const void *a, const void *b)
{
    const struct heap_entry *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Random pushes and pops interleaved, many equal priorities among them:
 * every top is the highest priority, the lowest thread among equals. */
static void test_order_against_sort(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    struct priority_heap h = {0};
    struct heap_entry shadow[4096];
    size_t n = 0;
    for (int round = 0; round < 20000; round++) {
        if (n < 4096 && (n == 0 || rng_below(&r, 3) != 0)) {
            int64_t p = (int64_t)rng_below(&r, 50) - 25;
            int t = (int)rng_below(&r, 1000) + 1;
            priority_heap_push(&h, p, t);
            shadow[n++] = (struct heap_entry){p, t};
        } else {
            qsort(shadow, n, sizeof *shadow, before);
            const struct heap_entry *top = priority_heap_top(&h);
            assert_int_equal(top->priority, shadow[0].priority);
            assert_int_equal(top->thread, shadow[0].thread);
            priority_heap_pop(&h);
            shadow[0] = shadow[--n];
        }
        assert_int_equal(h.n, n);
    }
    priority_heap_clear(&h);
    assert_int_equal(h.n, 0);
    priority_heap_push(&h, 3, 9);
    assert_int_equal(priority_heap_top(&h)->thread, 9);
    priority_heap_free(&h);
    assert_null(h.e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_against_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
