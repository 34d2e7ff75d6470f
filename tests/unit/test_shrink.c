/* Unit tests of what shrinking and the outcome table are made of: the
 * guided strategy (supervisor/strategies/strategies.h: follows a plan by choice
 * number or switches anchored on threads' progress, lets the last thread go
 * on elsewhere, counts preemptions), the
 * schedule lines of a shrunk schedule, and the outcome table
 * (supervisor/explore/outcomes.h: grouping, order, text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/engine/exec_config.h"
#include "supervisor/explore/outcomes.h"
#include "supervisor/explore/schedule.h"
#include "supervisor/strategies/strategies.h"

static const bool NO_YIELD[8] = {false};

static int pick(struct strategy *s, uint64_t step, const int *threads, const bool *yielded, size_t n, int previous)
{
    struct choice_point cp = {step, threads, yielded, n, previous};
    size_t i = s->ops->pick_thread(s, &cp);
    assert_true(i < n);
    return threads[i];
}

/* ------------------------------------------------------------ guided */

static void test_guided_follows_plan_by_number(void **state)
{
    (void)state;
    struct choice_list plan = {0};
    /* Steps in a plan are ignored: an edited plan's steps no longer fit. */
    choice_list_add(&plan, 99, CHOICE_THREAD, 2);
    choice_list_add(&plan, 99, CHOICE_THREAD, 3);
    struct strategy *s = strategy_guided_new(&plan);
    s->ops->begin(s, 1, 0);
    const int t123[] = {1, 2, 3};
    assert_int_equal(pick(s, 5, t123, NO_YIELD, 3, 1), 2);     /* preempts T1 */
    assert_int_equal(pick(s, 6, t123, NO_YIELD, 3, 2), 3);     /* preempts T2 */
    assert_int_equal(strategy_guided_preemptions(s), 2);
    assert_false(s->diverged);
    const struct guided_points *p = strategy_guided_points(s);
    assert_int_equal(p->n, 2);
    assert_true(guided_points_preempted(p, 0));
    assert_true(guided_points_preempted(p, 1));
    assert_false(guided_points_continued(p, 1));
    size_t n;
    const int *offered = guided_points_offered(p, 1, &n);
    assert_int_equal(n, 3);
    assert_int_equal(offered[2], 3);
    strategy_free(s);
    choice_list_free(&plan);
}

static void test_guided_unplanned_lets_last_thread_go_on(void **state)
{
    (void)state;
    struct choice_list plan = {0};
    choice_list_add(&plan, 1, CHOICE_THREAD, 7);    /* T7 cannot run there */
    struct strategy *s = strategy_guided_new(&plan);
    s->ops->begin(s, 1, 0);
    const int t123[] = {1, 2, 3}, t23[] = {2, 3}, flush_first[] = {-1, 2, 3};
    assert_int_equal(pick(s, 1, t123, NO_YIELD, 3, 3), 3);     /* not in the plan's reach: T3 goes on */
    assert_int_equal(pick(s, 2, t123, NO_YIELD, 3, 2), 2);     /* past the plan's end */
    assert_int_equal(pick(s, 3, t23, NO_YIELD, 2, 1), 2);      /* T1 cannot go on: the first that can */
    assert_int_equal(pick(s, 4, flush_first, NO_YIELD, 3, 1), 2);  /* never a flush by choice */
    assert_int_equal(strategy_guided_preemptions(s), 0);
    const struct guided_points *p = strategy_guided_points(s);
    assert_true(guided_points_continued(p, 0));
    assert_true(guided_points_continued(p, 1));
    assert_false(guided_points_continued(p, 2));
    assert_false(guided_points_preempted(p, 2));
    size_t n;
    assert_int_equal(guided_points_offered(p, 1, &n)[0], 1);  /* the same offer as point 0's, kept once */
    assert_int_equal(n, 3);
    assert_int_equal(p->n_offers, 3);
    assert_int_equal(guided_points_offered(p, 2, &n)[0], 2);
    assert_int_equal(n, 2);
    /* begin starts over: the plan again from its first choice. */
    s->ops->begin(s, 1, 0);
    assert_int_equal(strategy_guided_preemptions(s), 0);
    strategy_free(s);
    choice_list_free(&plan);
}

static void test_guided_yield_and_flush_are_no_preemptions(void **state)
{
    (void)state;
    struct choice_list plan = {0};
    choice_list_add(&plan, 1, CHOICE_THREAD, 2);
    choice_list_add(&plan, 2, CHOICE_THREAD, -1);
    choice_list_add(&plan, 3, CHOICE_WAKE, 3);
    struct strategy *s = strategy_guided_new(&plan);
    s->ops->begin(s, 1, 0);
    const int t12[] = {1, 2}, flush[] = {1, 2, -1}, waiters[] = {2, 3};
    const bool t1_yielded[] = {true, false};
    assert_int_equal(pick(s, 1, t12, t1_yielded, 2, 1), 2);    /* T1 yielded: a switch it asked for */
    assert_int_equal(pick(s, 2, flush, NO_YIELD, 3, 2), -1);   /* a flush is not a thread switch */
    struct choice_point cp = {3, waiters, NO_YIELD, 2, 1};
    assert_int_equal(waiters[s->ops->pick_waiter(s, &cp)], 3);
    assert_int_equal(strategy_guided_preemptions(s), 0);
    strategy_free(s);
    choice_list_free(&plan);
}

static void test_guided_spinner_switch_is_no_preemption(void **state)
{
    (void)state;
    struct choice_list plan = {0};
    choice_list_add(&plan, 1, CHOICE_THREAD, 2);
    choice_list_add(&plan, 2, CHOICE_THREAD, 1);
    struct strategy *s = strategy_guided_new(&plan);
    assert_true(s->counts_spinners);
    s->ops->begin(s, 1, 0);
    const int t12[] = {1, 2};
    const bool t1_spins[] = {true, false};
    struct choice_point cp = {1, t12, NO_YIELD, 2, 1};
    cp.spinning = t1_spins;
    assert_int_equal(t12[s->ops->pick_thread(s, &cp)], 2);     /* away from a spinner: free, as dfs has it */
    assert_int_equal(strategy_guided_preemptions(s), 0);
    assert_int_equal(pick(s, 2, t12, NO_YIELD, 2, 2), 1);      /* away from T2, which could go on */
    assert_int_equal(strategy_guided_preemptions(s), 1);
    strategy_free(s);
    choice_list_free(&plan);
}

/* Switches are anchored on the progress of the thread switched away from:
 * leaving one out moves no other. */
static void test_guided_switches_follow_progress(void **state)
{
    (void)state;
    struct choice_list plan = {0}, settings = {0};
    /* T1 preempted for T2 after 2 steps of its own, T2 for T3 after 1. */
    choice_list_add(&plan, 0, CHOICE_THREAD, 1);
    choice_list_add(&plan, 1, CHOICE_THREAD, 1);
    choice_list_add(&plan, 2, CHOICE_THREAD, 2);
    choice_list_add(&plan, 3, CHOICE_THREAD, 3);
    struct strategy *rec = strategy_guided_new(&plan);
    strategy_guided_record_switches(rec, false);
    rec->ops->begin(rec, 1, 0);
    const int t123[] = {1, 2, 3};
    assert_int_equal(pick(rec, 0, t123, NO_YIELD, 3, 0), 1);
    assert_int_equal(pick(rec, 1, t123, NO_YIELD, 3, 1), 1);
    assert_int_equal(pick(rec, 2, t123, NO_YIELD, 3, 1), 2);
    assert_int_equal(pick(rec, 3, t123, NO_YIELD, 3, 2), 3);
    const struct guided_switches *made = strategy_guided_switches(rec);
    assert_int_equal(made->n, 3);      /* the first choice (no thread before) and two preemptions */
    assert_int_equal(guided_switches_preemptions(made), 2);
    assert_int_equal(made->at[1].from, 1);
    assert_int_equal(made->at[1].at, 2);
    assert_int_equal(made->at[1].to, 2);
    assert_int_equal(made->at[2].from, 2);
    assert_int_equal(made->at[2].at, 1);
    assert_int_equal(made->at[2].to, 3);

    /* Without T1's preemption (the first of the two), T2's stays after
     * its own first step, wherever that now is. */
    struct guided_switches without = {0};
    size_t keep_second = 1;
    guided_switches_copy_keeping(&without, made, &keep_second, 1);
    assert_int_equal(without.n, 2);
    assert_int_equal(without.at[1].from, 2);
    struct strategy *s = strategy_guided_new_switches(&without, &settings);
    s->ops->begin(s, 1, 0);
    assert_int_equal(pick(s, 0, t123, NO_YIELD, 3, 0), 1);
    assert_int_equal(pick(s, 1, t123, NO_YIELD, 3, 1), 1);
    assert_int_equal(pick(s, 2, t123, NO_YIELD, 3, 1), 1);     /* T1 goes on */
    const int t2[] = {2, 3};
    assert_int_equal(pick(s, 3, t2, NO_YIELD, 2, 1), 2);       /* T1 done: the first that can */
    assert_int_equal(pick(s, 4, t2, NO_YIELD, 2, 2), 3);       /* T2 after its first step: the kept switch */
    assert_int_equal(strategy_guided_preemptions(s), 1);
    strategy_free(s);
    guided_switches_copy_without(&without, made, 0);
    assert_int_equal(without.n, 2);
    assert_int_equal(guided_switches_preemptions(&without), 2);
    guided_switches_free(&without);
    strategy_free(rec);
    choice_list_free(&plan);
}

/* ------------------------------------------------------------ schedule lines */

static void test_schedule_shrunk_lines_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/mdat-test-shrink-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct schedule s;
    schedule_init(&s);
    schedule_set_program(&s, "/bin/true", NULL, 0);
    snprintf(s.sha256, sizeof s.sha256, "-");
    snprintf(s.strategy, sizeof s.strategy, "pct");
    s.steps = 31;
    s.preemptions = 2;
    s.shrunk_from_steps = 412;
    s.shrunk_from_preemptions = 9;
    choice_list_add(&s.choices, 3, CHOICE_THREAD, 2);
    char err[256];
    assert_true(schedule_write(&s, path, err, sizeof err));
    struct schedule r;
    assert_true(schedule_read(path, &r, err, sizeof err));
    assert_int_equal(r.preemptions, 2);
    assert_int_equal(r.shrunk_from_steps, 412);
    assert_int_equal(r.shrunk_from_preemptions, 9);
    schedule_free(&r);
    /* Not shrunk: neither line is written. */
    s.shrunk_from_steps = 0;
    assert_true(schedule_write(&s, path, err, sizeof err));
    FILE *f = fopen(path, "r");
    char line[256];
    bool any = false;
    while (fgets(line, sizeof line, f))
        any |= strncmp(line, "preemptions", 11) == 0 || strncmp(line, "shrunk-from", 11) == 0;
    fclose(f);
    assert_false(any);
    schedule_free(&s);
    unlink(path);
}

/* ------------------------------------------------------------ outcomes */

static struct outcome_key key(int kind, int exit_status, const char *watches)
{
    struct outcome_key k = {.kind = kind, .exited = kind == FAIL_NONE, .exit_status = exit_status};
    snprintf(k.watches, sizeof k.watches, "%s", watches);
    return k;
}

static void test_outcomes_grouped_and_ordered(void **state)
{
    (void)state;
    struct outcome_table t = {0};
    struct outcome_key four = key(FAIL_NONE, 0, "counter = 4"), three = key(FAIL_NONE, 0, "counter = 3"),
                       failed = key(FAIL_ASSERTION, 0, "");
    snprintf(failed.location, sizeof failed.location, "c.c:9");
    /* In the order a -j2 run could deliver them. */
    outcome_table_add(&t, &three, 7);
    outcome_table_add(&t, &four, 2);
    outcome_table_add(&t, &failed, 5);
    outcome_table_add(&t, &four, 0);
    outcome_table_add(&t, &three, 3);
    outcome_table_add(&t, &four, 9);
    outcome_table_sort(&t);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.at[0].count, 3);
    assert_int_equal(t.at[0].execution, 0);     /* the lowest index of its executions */
    assert_string_equal(t.at[0].key.watches, "counter = 4");
    assert_int_equal(t.at[1].count, 2);
    assert_int_equal(t.at[1].execution, 3);
    assert_int_equal(t.at[2].count, 1);         /* ties would go by execution index */
    char text[256];
    outcome_describe(&t.at[0].key, text, sizeof text);
    assert_string_equal(text, "exit 0, counter = 4");
    outcome_describe(&t.at[2].key, text, sizeof text);
    assert_string_equal(text, "assertion at c.c:9");
    outcome_table_free(&t);
}

static void test_outcomes_ties_by_index(void **state)
{
    (void)state;
    struct outcome_table t = {0};
    struct outcome_key a = key(FAIL_NONE, 1, ""), b = key(FAIL_NONE, 2, "");
    outcome_table_add(&t, &a, 4);
    outcome_table_add(&t, &b, 1);
    outcome_table_sort(&t);
    assert_int_equal(t.at[0].key.exit_status, 2);
    assert_int_equal(t.at[1].key.exit_status, 1);
    outcome_table_free(&t);
}

/* Shards' tables merged as one: counts summed, the lowest execution's
 * schedule kept, in any order of merging; the same table as one run. */
static void test_outcomes_merged(void **state)
{
    (void)state;
    struct outcome_key two = key(FAIL_NONE, 0, "c = 2"), three = key(FAIL_NONE, 0, "c = 3");
    struct outcome shard1[] = {{.key = three, .count = 4, .execution = 1, .schedule_file = "s3-e1"},
                               {.key = two, .count = 1, .execution = 6, .schedule_file = "s2-e6"}};
    struct outcome shard2[] = {{.key = two, .count = 5, .execution = 10, .schedule_file = "s2-e10"},
                               {.key = three, .count = 1, .execution = 11, .schedule_file = "s3-e11"}};
    for (int order = 0; order < 2; order++) {
        struct outcome_table t = {0};
        const struct outcome *first = order ? shard2 : shard1, *second = order ? shard1 : shard2;
        for (int i = 0; i < 2; i++)
            outcome_table_merge(&t, &first[i]);
        for (int i = 0; i < 2; i++)
            outcome_table_merge(&t, &second[i]);
        outcome_table_sort(&t);
        assert_int_equal(t.n, 2);
        assert_int_equal(outcome_table_total(&t), 11);
        assert_string_equal(t.at[0].key.watches, "c = 2");
        assert_int_equal(t.at[0].count, 6);
        assert_int_equal(t.at[0].execution, 6);
        assert_string_equal(t.at[0].schedule_file, "s2-e6");
        assert_int_equal(t.at[1].count, 5);
        assert_string_equal(t.at[1].schedule_file, "s3-e1");
        outcome_table_free(&t);
    }
}

static void test_outcome_key_hashes_output(void **state)
{
    (void)state;
    char path[] = "/tmp/mdat-test-outcome-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    struct exec_result res = {.kind = FAIL_NONE, .exited = true, .exit_status = 0};
    struct state_watch w = {.expr = "x", .value = "1"};
    res.final_watches = &w;
    res.n_final_watches = 1;
    struct outcome_key k;
    outcome_key_of(&res, fd, &k);
    /* SHA-256("abc") */
    assert_string_equal(k.stdout_sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char text[256];
    outcome_describe(&k, text, sizeof text);
    assert_string_equal(text, "exit 0, x = 1, stdout ba7816bf8f01");
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guided_follows_plan_by_number),
        cmocka_unit_test(test_guided_unplanned_lets_last_thread_go_on),
        cmocka_unit_test(test_guided_yield_and_flush_are_no_preemptions),
        cmocka_unit_test(test_guided_spinner_switch_is_no_preemption),
        cmocka_unit_test(test_guided_switches_follow_progress),
        cmocka_unit_test(test_schedule_shrunk_lines_round_trip),
        cmocka_unit_test(test_outcomes_grouped_and_ordered),
        cmocka_unit_test(test_outcomes_ties_by_index),
        cmocka_unit_test(test_outcomes_merged),
        cmocka_unit_test(test_outcome_key_hashes_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
