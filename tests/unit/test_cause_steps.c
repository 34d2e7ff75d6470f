/* Unit tests for supervisor/detect/cause_steps.h and cause_book.h: the steps each kind of
 * failure points at, from hand-made traces shaped like mdat's (a lost
 * update far back behind unrelated steps, a lock-order deadlock with a
 * join outside its cycle, a race, an invariant, a crash through a pointer
 * another thread wrote), and the book that keeps a running execution's
 * events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/detect/cause_book.h"
#include "supervisor/detect/cause_steps.h"

enum { MAX_EVENTS = 1024 };

struct trace {
    struct trace_event ev[MAX_EVENTS];
    size_t n;
};

static void add(struct trace *t, int thread, const char *op, const char *object, const char *outcome)
{
    struct trace_event *e = &t->ev[t->n];
    memset(e, 0, sizeof *e);
    e->step = t->n + 1;
    e->thread = thread;
    snprintf(e->op, sizeof e->op, "%s", op);
    snprintf(e->object, sizeof e->object, "%s", object);
    snprintf(e->outcome, sizeof e->outcome, "%s", outcome);
    t->n++;
}

/* The steps (1-based) cause_steps_find picks, as "3 4 5 6". */
static void picked_steps(const struct exec_result *res, const struct trace *t, char *buf, size_t len)
{
    size_t at[EXEC_CAUSE_STEPS];
    int n = cause_steps_find(res, t->ev, t->n, at, EXEC_CAUSE_STEPS);
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%llu", i ? " " : "", (unsigned long long)t->ev[at[i]].step);
}

/* The lost update of lost_update.c: both loads read 0, both stores write
 * 1; thirty steps on other data follow before main's assertion. */
static void test_assertion_lost_update(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 1, "start", "main", "");
    add(&t, 2, "R", "counter", "");           /* 2 */
    add(&t, 3, "R", "counter", "");           /* 3 */
    add(&t, 3, "W", "counter", "");           /* 4: lost */
    add(&t, 2, "W", "counter", "");           /* 5: overwrites it */
    for (int i = 0; i < 30; i++)
        add(&t, 2 + i % 2, "W", "other", "");
    add(&t, 1, "R", "counter", "");
    struct exec_result res = {.kind = FAIL_ASSERTION, .thread = 1};
    snprintf(res.message, sizeof res.message, "T1: assertion `counter == 2 * N' failed at lost_update.c:30 in main");
    char steps[128];
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "2 3 4 5");
}

/* Without a lost update, the last write of each thread to each variable
 * the expression names; a member and a macro are no variables. */
static void test_assertion_last_writes(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 2, "W", "q.count", "");           /* 1 */
    add(&t, 2, "W", "q.count", "");           /* 2: T2's last */
    add(&t, 3, "RMW", "total", "");           /* 3: T3's last */
    add(&t, 2, "W", "count", "");             /* 4: another variable named like the member */
    add(&t, 1, "R", "q.count", "");
    struct exec_result res = {.kind = FAIL_ASSERTION, .thread = 1};
    snprintf(res.message, sizeof res.message, "T1: assertion `q.count == MAX && total > 0' failed at q.c:9 in main");
    char steps[128];
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "2 3");
}

/* The acquisitions in the cycle and the attempts that blocked; T1's join
 * is outside the cycle. */
static void test_deadlock_cycle(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 1, "create", "thread_one", "");
    add(&t, 2, "lock", "lock_a", "");                                     /* 2 */
    add(&t, 3, "lock", "lock_b", "");                                     /* 3 */
    add(&t, 2, "R", "shared", "");
    add(&t, 2, "lock", "lock_b", "blocks on mutex lock_b (held by T3)");  /* 5 */
    add(&t, 3, "lock", "lock_a", "blocks on mutex lock_a (held by T2)");  /* 6 */
    add(&t, 1, "join", "T2", "blocks on join T2");
    struct failure_thread threads[3] = {
        {.id = 1, .state = "waiting-join", .waiting_on = "join T2"},
        {.id = 2, .state = "waiting-lock", .waiting_on = "mutex lock_b (held by T3)"},
        {.id = 3, .state = "waiting-lock", .waiting_on = "mutex lock_a (held by T2)"},
    };
    struct exec_result res = {.kind = FAIL_DEADLOCK, .threads = threads, .n_threads = 3};
    snprintf(res.message, sizeof res.message, "3 threads blocked, none can run; wait cycle T2 -> T3 -> T2");
    char steps[128];
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "2 3 5 6");
}

static void test_race_invariant_crash(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 3, "W", "p", "");                 /* 1: the pointer another thread wrote */
    add(&t, 2, "W", "limit", "");             /* 2 */
    add(&t, 3, "W", "limit", "");             /* 3 */
    add(&t, 2, "R", "p", "");                 /* 4: the load of the pointer */
    add(&t, 2, "W", "0x0", "");               /* 5: the access that crashed */
    struct exec_result res = {.kind = FAIL_RACE, .thread = 2};
    snprintf(res.message, sizeof res.message, "race on limit: T2 writes at c.c:9 in f (step 2), T3 writes at c.c:9 in f "
             "(step 3)");
    char steps[128];
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "2 3");

    res.kind = FAIL_INVARIANT;
    snprintf(res.message, sizeof res.message, "invariant limit <= 1 broken: limit = 2");
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "2 3");

    res.kind = FAIL_CRASH;
    snprintf(res.message, sizeof res.message, "T2 crashed: SIGSEGV at c.c:12 in f");
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "1 4 5");

    res.kind = FAIL_HANG;
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "");
}

/* A checker's verdict names no variable: the lost update on any. */
static void test_checker_lost_update(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 2, "R", "sum", "");               /* 1 */
    add(&t, 2, "W", "sum", "");               /* 2: no other thread between */
    add(&t, 3, "R", "sum", "");               /* 3 */
    add(&t, 2, "R", "sum", "");               /* 4 */
    add(&t, 2, "W", "sum", "");               /* 5: lost */
    add(&t, 3, "W", "sum", "");               /* 6 */
    struct exec_result res = {.kind = FAIL_CHECKER};
    snprintf(res.message, sizeof res.message, "checker \"./check.sh\" rejected the output (exit 1)");
    char steps[128];
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "3 4 5 6");
    res.kind = FAIL_NONE;
    picked_steps(&res, &t, steps, sizeof steps);
    assert_string_equal(steps, "");

    /* Many objects before it (the table grows), each loaded and stored by
     * one thread only: no lost update among them. */
    struct trace big = {.n = 0};
    for (int i = 0; i < 300; i++) {
        char name[32];
        snprintf(name, sizeof name, "a[%d]", i);
        add(&big, 2 + i % 2, "R", name, "");
        add(&big, 2 + i % 2, "W", name, "");
    }
    for (size_t i = 0; i < t.n; i++) {
        big.ev[big.n] = t.ev[i];
        big.ev[big.n].step = big.n + 1;
        big.n++;
    }
    res.kind = FAIL_CHECKER;
    picked_steps(&res, &big, steps, sizeof steps);
    assert_string_equal(steps, "603 604 605 606");
}

/* The book keeps the execution's events; an execution run again (steps
 * from 1) starts it over; its cause steps land in the result. */
static void test_book(void **state)
{
    (void)state;
    struct trace t = {.n = 0};
    add(&t, 2, "R", "counter", "");
    add(&t, 3, "R", "counter", "");
    add(&t, 3, "W", "counter", "");
    add(&t, 2, "W", "counter", "");
    struct cause_book *b = cause_book_new();
    assert_non_null(b);
    struct trace_event junk = {.step = 1, .thread = 9};
    snprintf(junk.op, sizeof junk.op, "W");
    snprintf(junk.object, sizeof junk.object, "counter");
    cause_book_event(b, &junk, NULL);
    junk.step = 2;
    cause_book_event(b, &junk, NULL);
    for (size_t i = 0; i < t.n; i++)
        cause_book_event(b, &t.ev[i], NULL);
    struct exec_result res = {.kind = FAIL_ASSERTION};
    snprintf(res.message, sizeof res.message, "T1: assertion `counter == 2' failed at a.c:3 in main");
    cause_book_fill(b, &res);
    assert_int_equal(res.n_cause, 4);
    assert_int_equal(res.cause[0].thread, 2);
    assert_int_equal(res.cause[3].step, 4);
    res.kind = FAIL_NONE;
    cause_book_fill(b, &res);
    assert_int_equal(res.n_cause, 0);
    cause_book_free(b);
}

/* A ring that wrapped (more events than it keeps, at any offset): put
 * in order in place, the causes are the same as from a short book, and the
 * book goes on taking events after. */
static void test_book_wrapped(void **state)
{
    (void)state;
    static const size_t extra[] = {0, 1, 7, CAUSE_BOOK_EVENTS - 3, CAUSE_BOOK_EVENTS};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        struct cause_book *b = cause_book_new();
        assert_non_null(b);
        struct trace_event ev = {.thread = 9};
        snprintf(ev.op, sizeof ev.op, "R");
        snprintf(ev.object, sizeof ev.object, "other");
        uint64_t step = 0;
        for (size_t i = 0; i < CAUSE_BOOK_EVENTS + extra[k]; i++) {
            ev.step = ++step;
            cause_book_event(b, &ev, NULL);
        }
        static const struct { int thread; const char *op; } last[] = {{2, "R"}, {3, "R"}, {3, "W"}, {2, "W"}};
        for (size_t i = 0; i < 4; i++) {
            ev.step = ++step;
            ev.thread = last[i].thread;
            snprintf(ev.op, sizeof ev.op, "%s", last[i].op);
            snprintf(ev.object, sizeof ev.object, "counter");
            cause_book_event(b, &ev, NULL);
        }
        struct exec_result res = {.kind = FAIL_ASSERTION};
        snprintf(res.message, sizeof res.message, "T1: assertion `counter == 2' failed at a.c:3 in main");
        cause_book_fill(b, &res);
        assert_int_equal(res.n_cause, 4);
        assert_int_equal(res.cause[0].thread, 2);
        assert_int_equal(res.cause[0].step, step - 3);
        assert_int_equal(res.cause[3].step, step);
        /* Filled again after more events: still the last ones. */
        ev.step = ++step;
        ev.thread = 9;
        snprintf(ev.object, sizeof ev.object, "other");
        cause_book_event(b, &ev, NULL);
        cause_book_fill(b, &res);
        assert_int_equal(res.n_cause, 4);
        assert_int_equal(res.cause[3].step, step - 1);
        cause_book_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assertion_lost_update),
        cmocka_unit_test(test_assertion_last_writes),
        cmocka_unit_test(test_deadlock_cycle),
        cmocka_unit_test(test_race_invariant_crash),
        cmocka_unit_test(test_checker_lost_update),
        cmocka_unit_test(test_book),
        cmocka_unit_test(test_book_wrapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
