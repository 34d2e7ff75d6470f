/* Unit tests for the packed choice list (engine/choices.c): whatever is
 * added reads back the same, through truncation, copies and growth, and
 * a long execution's choices take about a byte each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "supervisor/engine/choices.h"

/* The plain array the packed list must agree with. */
struct plain {
    struct choice at[4096];
    size_t n;
};

static void add_both(struct choice_list *l, struct plain *p, uint64_t step, char kind, int thread)
{
    choice_list_add(l, step, kind, thread);
    p->at[p->n++] = (struct choice){step, kind, thread};
}

static void assert_agrees(const struct choice_list *l, const struct plain *p)
{
    assert_int_equal(l->n, p->n);
    for (size_t i = 0; i < p->n; i++) {
        struct choice c = choice_list_at(l, i);
        assert_int_equal(c.step, p->at[i].step);
        assert_int_equal(c.kind, p->at[i].kind);
        assert_int_equal(c.thread, p->at[i].thread);
    }
}

/* A mix of every form: consecutive thread choices (one byte), wakes,
 * flushes (negative threads), gaps, repeated steps, big thread numbers and
 * a step that goes back (only a hand-written file has one). */
static void adds(struct choice_list *l, struct plain *p, unsigned seed, size_t count)
{
    srand(seed);
    uint64_t step = p->n ? p->at[p->n - 1].step : 0;
    static const int threads[] = {0, 1, 2, 3, 127, 128, 512, -1, -300, 2147483647, -2147483647 - 1};
    for (size_t i = 0; i < count && p->n < sizeof p->at / sizeof p->at[0]; i++) {
        int r = rand() % 100;
        if (r < 70)
            step += 1;
        else if (r < 80)
            step += (uint64_t)(rand() % 100000);
        else if (r < 85)
            step += 10000000000u;
        else if (r < 87 && step > 5)
            step -= 5;
        char kind = r % 7 == 0 ? CHOICE_WAKE : CHOICE_THREAD;
        int thread = r < 70 ? rand() % 130 : threads[rand() % (sizeof threads / sizeof threads[0])];
        add_both(l, p, step, kind, thread);
    }
}

static void reads_back_every_form(void **state)
{
    (void)state;
    static struct plain p;
    p.n = 0;
    struct choice_list l = {0};
    adds(&l, &p, 7, 3000);
    assert_agrees(&l, &p);
    choice_list_free(&l);
}

/* Truncating anywhere, in a block or at its edge, then adding again. */
static void truncates_and_grows_again(void **state)
{
    (void)state;
    static struct plain p;
    struct choice_list l = {0};
    p.n = 0;
    adds(&l, &p, 11, 1000);
    static const size_t cuts[] = {999, 640, 33, 32, 31, 1, 0};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        choice_list_truncate(&l, cuts[k]);
        p.n = cuts[k];
        assert_agrees(&l, &p);
        adds(&l, &p, 100 + (unsigned)k, 50);
        assert_agrees(&l, &p);
        choice_list_truncate(&l, cuts[k]);
        p.n = cuts[k];
    }
    choice_list_truncate(&l, 5000);     /* longer than the list: nothing */
    assert_agrees(&l, &p);
    choice_list_free(&l);
}

static void copies_are_independent(void **state)
{
    (void)state;
    static struct plain p, q;
    struct choice_list a = {0}, b = {0};
    p.n = 0;
    adds(&a, &p, 3, 500);
    choice_list_add(&b, 9, CHOICE_WAKE, 4);     /* what b held is replaced */
    choice_list_copy(&b, &a);
    q = p;
    assert_agrees(&b, &q);
    adds(&a, &p, 4, 100);
    adds(&b, &q, 5, 100);
    assert_agrees(&a, &p);
    assert_agrees(&b, &q);
    choice_list_free(&a);
    choice_list_free(&b);
}

/* A prefix copy at every kind of edge is the list truncated there, held in
 * room for itself alone, and grows on as the list would. */
static void prefix_copies_hold_only_the_prefix(void **state)
{
    (void)state;
    static struct plain p, q;
    struct choice_list a = {0}, b = {0};
    p.n = 0;
    adds(&a, &p, 13, 700);
    static const size_t cuts[] = {700, 699, 640, 64, 33, 32, 31, 1, 0, 5000};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        choice_list_free(&b);
        choice_list_copy_prefix(&b, &a, cuts[k]);
        q = p;
        q.n = cuts[k] < p.n ? cuts[k] : p.n;
        assert_agrees(&b, &q);
        assert_int_equal(b.cap_bytes, b.n_bytes);
        adds(&b, &q, 200 + (unsigned)k, 40);
        assert_agrees(&b, &q);
    }
    assert_agrees(&a, &p);      /* the source is untouched */
    choice_list_free(&a);
    choice_list_free(&b);
}

/* A move hands the choices over whole and leaves the source empty. */
static void moves_leave_the_source_empty(void **state)
{
    (void)state;
    static struct plain p, q;
    struct choice_list a = {0}, b = {0};
    p.n = q.n = 0;
    adds(&a, &p, 17, 300);
    adds(&b, &q, 19, 20);        /* what b held is freed */
    a.spins_judged = true;
    choice_list_move(&b, &a);
    assert_agrees(&b, &p);
    assert_true(b.spins_judged);
    assert_int_equal(a.n, 0);
    assert_null(a.bytes);
    choice_list_move(&b, &b);   /* onto itself: nothing */
    assert_agrees(&b, &p);
    choice_list_free(&a);
    choice_list_free(&b);
}

/* Ten million steps with a choice at each, two threads alternating in
 * runs as a random strategy makes them: a byte a choice, not sixteen. */
static void a_long_execution_takes_a_byte_a_choice(void **state)
{
    (void)state;
    struct choice_list l = {0};
    srand(1);
    int thread = 1;
    for (uint64_t step = 1; step <= 10000000; step++) {
        if (rand() % 4 == 0)
            thread = 3 - thread;
        choice_list_add(&l, step, CHOICE_THREAD, thread);
    }
    assert_int_equal(l.n, 10000000);
    size_t held = l.cap_bytes + l.cap_blocks * sizeof *l.blocks;
    assert_true(held < 10000000 * 2);
    assert_int_equal(choice_list_at(&l, 9999999).step, 10000000);
    assert_int_equal(choice_list_at(&l, 0).step, 1);
    choice_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_back_every_form),
        cmocka_unit_test(truncates_and_grows_again),
        cmocka_unit_test(copies_are_independent),
        cmocka_unit_test(prefix_copies_hold_only_the_prefix),
        cmocka_unit_test(moves_leave_the_source_empty),
        cmocka_unit_test(a_long_execution_takes_a_byte_a_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
