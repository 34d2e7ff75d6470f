/* Unit tests for ui/lincheck's pure parts: the serial orders a history is
 * checked against (lc_orders), the allowed-outcome set and its file, the
 * per-line marks of impossible results, the real-time judge (stamps,
 * orders against real time, the pair named), the spec parser's errors,
 * and scenario generation and cutting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/lincheck/lc_orders.h"
#include "ui/lincheck/lc_realtime.h"
#include "ui/lincheck/lc_scenario.h"
#include "ui/lincheck/lc_spec.h"

struct collected {
    char orders[800][16];
    int n;
};

static bool collect(const int *order, int n, void *p)
{
    struct collected *c = p;
    for (int i = 0; i < n; i++)
        c->orders[c->n][i] = (char)('0' + order[i]);
    c->orders[c->n][n] = '\0';
    c->n++;
    return true;
}

static bool has(const struct collected *c, const char *order)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->orders[i], order) == 0)
            return true;
    return false;
}

/* 2 threads x 2 calls: calls 0,1 are thread A's, 2,3 thread B's. */
static void test_interleavings_keep_thread_order(void **state)
{
    (void)state;
    static struct collected c;
    c.n = 0;
    int nops[] = {2, 2};
    assert_int_equal(lc_orders_each(nops, 2, false, collect, &c), 6);
    assert_int_equal(c.n, 6);
    assert_true(has(&c, "0123"));
    assert_true(has(&c, "2301"));
    assert_true(has(&c, "0213"));
    assert_false(has(&c, "1023"));      /* A's second call before its first */
    assert_false(has(&c, "0132"));
    /* 3 x 2: 6! / (2! 2! 2!) = 90. */
    int three[] = {2, 2, 2};
    c.n = 0;
    assert_int_equal(lc_orders_each(three, 3, false, collect, &c), 90);
}

static void test_quiescent_allows_every_order(void **state)
{
    (void)state;
    static struct collected c;
    c.n = 0;
    int nops[] = {2, 2};
    assert_int_equal(lc_orders_each(nops, 2, true, collect, &c), 24);
    assert_true(has(&c, "1023"));
    assert_true(has(&c, "3210"));
}

static bool stop_after_first(const int *order, int n, void *p)
{
    (void)order;
    (void)n;
    (*(int *)p)++;
    return false;
}

static void test_walk_stops_when_asked(void **state)
{
    (void)state;
    int calls = 0, nops[] = {2, 2};
    assert_int_equal(lc_orders_each(nops, 2, false, stop_after_first, &calls), 1);
    assert_int_equal(calls, 1);
}

/* Histories of a queue: push(1) by T2, pop() by T3, as the harness prints. */
static void test_history_accepted_and_rejected(void **state)
{
    (void)state;
    struct lc_outcomes set = {0};
    assert_true(lc_outcomes_add(&set, "T2 push(1)\nT3 pop() -> 1\n"));
    assert_true(lc_outcomes_add(&set, "T2 push(1)\nT3 pop() -> -1\n"));
    assert_true(lc_outcomes_add(&set, "T2 push(1)\nT3 pop() -> 1\n"));     /* twice: kept once */
    assert_int_equal(set.n, 2);
    assert_true(lc_outcomes_contains(&set, "T2 push(1)\nT3 pop() -> -1\n"));
    const char *bad = "T2 push(1)\nT3 pop() -> 7\n";
    assert_false(lc_outcomes_contains(&set, bad));
    assert_true(lc_line_possible(&set, bad, 0));
    assert_false(lc_line_possible(&set, bad, 1));   /* pop() -> 7 is the impossible result */
    assert_false(lc_line_possible(&set, bad, 2));   /* no such line */

    char path[] = "/tmp/test_lincheck_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_true(lc_outcomes_write(&set, path));
    struct lc_outcomes back = {0};
    assert_true(lc_outcomes_read(&back, path));
    assert_int_equal(back.n, 2);
    assert_true(lc_outcomes_contains(&back, "T2 push(1)\nT3 pop() -> 1\n"));
    assert_false(lc_outcomes_contains(&back, bad));
    unlink(path);
    lc_outcomes_free(&back);
    lc_outcomes_free(&set);
}

/* push(1) by T2 is call 0, pop() by T3 call 1. Serial order "1,0" (pop
 * first) gives pop() -> -1, "0,1" gives pop() -> 1. */
static void test_real_time_judge(void **state)
{
    (void)state;
    struct lc_outcomes set = {0};
    assert_true(lc_outcomes_add_order(&set, "T2 push(1) -> 0\nT3 pop() -> 1\n", "0,1"));
    assert_true(lc_outcomes_add_order(&set, "T2 push(1) -> 0\nT3 pop() -> -1\n", "1,0"));
    char path[] = "/tmp/test_lincheck_rt_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_true(lc_outcomes_write(&set, path));
    struct lc_outcomes back = {0};
    assert_true(lc_outcomes_read(&back, path));
    unlink(path);
    assert_int_equal(back.n, 2);
    assert_string_equal(back.orders[lc_outcomes_find(&back, "T2 push(1) -> 0\nT3 pop() -> -1\n")], "1,0");

    /* The stamps are split off the results. */
    const char *after = "T2 push(1) -> 0\nT3 pop() -> -1\n@rt 0 1000 2000\n@rt 1 3000 4000\n";
    struct lc_history h;
    assert_true(lc_history_parse(after, &h));
    assert_string_equal(h.results, "T2 push(1) -> 0\nT3 pop() -> -1\n");
    assert_int_equal(h.ncalls, 2);
    int late = -1, early = -1;
    assert_false(lc_order_keeps_real_time("1,0", &h, &late, &early));
    assert_int_equal(late, 1);
    assert_int_equal(early, 0);
    assert_true(lc_order_keeps_real_time("0,1", &h, &late, &early));
    lc_history_free(&h);

    /* pop() began after push(1) ended and found the queue empty: the one
     * order giving it puts pop first, against real time. */
    char why[512];
    assert_int_equal(lc_judge(&back, after, true, why, sizeof why), LC_JUDGED_REAL_TIME);
    assert_non_null(strstr(why, "T2 push(1) -> 0 ended"));
    assert_non_null(strstr(why, "before T3 pop() -> -1 began"));
    /* Sequential consistency asks for the results only. */
    assert_int_equal(lc_judge(&back, after, false, why, sizeof why), LC_JUDGED_OK);
    /* Overlapping calls: either order keeps real time. */
    const char *overlap = "T2 push(1) -> 0\nT3 pop() -> -1\n@rt 0 1000 3000\n@rt 1 2000 4000\n";
    assert_int_equal(lc_judge(&back, overlap, true, why, sizeof why), LC_JUDGED_OK);
    /* pop() ended before push(1) began: empty is right, 1 is not. */
    const char *before = "T2 push(1) -> 0\nT3 pop() -> 1\n@rt 0 3000 4000\n@rt 1 1000 2000\n";
    assert_int_equal(lc_judge(&back, before, true, why, sizeof why), LC_JUDGED_REAL_TIME);
    assert_int_equal(lc_judge(&back, "T2 push(1) -> 0\nT3 pop() -> 7\n", true, why, sizeof why),
                     LC_JUDGED_NO_ORDER);
    lc_outcomes_free(&back);
    lc_outcomes_free(&set);
}

static void write_spec(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_spec_parses_and_names_bad_lines(void **state)
{
    (void)state;
    char path[] = "/tmp/test_lincheck_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_spec(path, "# a queue\nsource q.c   # the code\ninclude q.h\nstate struct queue *q = queue_new(8);\n"
                     "op push(int 0..3)  queue_push(q, $1)\nop pop() -> int  queue_pop(q)\n"
                     "op size() -> unsigned long  queue_size(q)\n");
    struct lc_spec spec;
    char err[512];
    assert_true(lc_spec_load(path, &spec, err, sizeof err));
    assert_int_equal(spec.nops, 3);
    assert_string_equal(spec.state_name, "q");
    assert_string_equal(spec.state_init, "queue_new(8)");
    assert_true(spec.ops[0].has_arg);
    assert_int_equal(spec.ops[0].hi, 3);
    assert_false(spec.ops[0].has_result);
    assert_string_equal(spec.ops[2].result_type, "unsigned long");
    assert_string_equal(spec.ops[2].call, "queue_size(q)");
    lc_spec_free(&spec);

    write_spec(path, "source q.c\nstate struct queue *q = queue_new(8);\nop pop() -> int queue_pop(q, $1)\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, ":3: "));
    lc_spec_free(&spec);
    write_spec(path, "source q.c\nfrobnicate\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, ":2: unknown keyword"));
    lc_spec_free(&spec);
    write_spec(path, "source q.c\nop pop() -> int queue_pop(q)\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, "no state line"));
    lc_spec_free(&spec);

    /* A sequential implementation: its files join the build, each
     * operation gets its call there. */
    const char *with_seq = "source q.c\nstate struct queue *q = queue_new(8);\n"
                           "op push(int 0..3)  queue_push(q, $1)\nop pop() -> int  queue_pop(q)\n"
                           "seq source s.c\nseq include s.h\nseq state struct seq *s = seq_new(8);\n"
                           "seq push seq_push(s, $1)\nseq pop seq_pop(s);\n";
    write_spec(path, with_seq);
    assert_true(lc_spec_load(path, &spec, err, sizeof err));
    assert_true(spec.has_seq);
    assert_int_equal(spec.nsources, 2);
    assert_string_equal(spec.includes[0], "s.h");
    assert_string_equal(spec.seq_state_name, "s");
    assert_string_equal(spec.ops[0].seq_call, "seq_push(s, $1)");
    assert_string_equal(spec.ops[1].seq_call, "seq_pop(s)");
    lc_spec_free(&spec);
    /* Every operation needs its seq line, and a seq state is needed. */
    write_spec(path, "source q.c\nstate struct queue *q = queue_new(8);\nop push(int 0..3)  queue_push(q, $1)\n"
                     "op pop() -> int  queue_pop(q)\nseq state struct seq *s = seq_new(8);\nseq push seq_push(s, $1)\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, "operation pop (line 4) has no seq line"));
    lc_spec_free(&spec);
    write_spec(path, "source q.c\nstate struct queue *q = queue_new(8);\nop pop() -> int  queue_pop(q)\n"
                     "seq pop seq_pop(s)\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, "no seq state line"));
    lc_spec_free(&spec);
    write_spec(path, "source q.c\nstate struct queue *q = queue_new(8);\nseq pop seq_pop(s)\n"
                     "op pop() -> int  queue_pop(q)\n");
    assert_false(lc_spec_load(path, &spec, err, sizeof err));
    assert_non_null(strstr(err, ":3: seq NAME CALL names an operation declared above"));
    lc_spec_free(&spec);
    unlink(path);
}

static void test_scenarios_are_seeded_and_cut(void **state)
{
    (void)state;
    struct lc_spec spec = {.nops = 2};
    strcpy(spec.ops[0].name, "push");
    spec.ops[0].has_arg = true;
    spec.ops[0].lo = 1;
    spec.ops[0].hi = 3;
    strcpy(spec.ops[1].name, "pop");
    struct lc_scenario a, b;
    lc_scenario_generate(&spec, 42, 1, 2, 2, 0, &a);
    lc_scenario_generate(&spec, 42, 1, 2, 2, 0, &b);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(lc_scenario_size(&a), 5);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 2; i++)
            if (a.calls[t][i].op == 0)
                assert_true(a.calls[t][i].arg >= 1 && a.calls[t][i].arg <= 3);
    lc_scenario_drop_call(&a, 0);       /* the init call */
    assert_int_equal(a.ninit, 0);
    lc_scenario_drop_call(&a, 0);
    lc_scenario_drop_call(&a, 0);       /* thread 1 now empty: dropped */
    assert_int_equal(a.nthreads, 1);
    assert_int_equal(a.nops[0], 2);
    assert_memory_equal(&a.calls[0][0], &b.calls[1][0], sizeof a.calls[0][0]);
    char *argv[16];
    int n = lc_scenario_argv(&spec, &b, argv, 16);
    assert_int_equal(n, 2 + 1 + 2 + 1 + 2);
    assert_string_equal(argv[0], "init");
    assert_string_equal(argv[2], "thread");
    for (int i = 0; i < n; i++)
        free(argv[i]);

    /* A post part comes last: the same seed's other calls do not change. */
    struct lc_scenario p;
    lc_scenario_generate(&spec, 42, 1, 2, 2, 2, &p);
    assert_memory_equal(p.calls, b.calls, sizeof p.calls);
    assert_int_equal(p.npost, 2);
    assert_int_equal(lc_scenario_size(&p), 7);
    n = lc_scenario_argv(&spec, &p, argv, 16);
    assert_int_equal(n, 8 + 1 + 2);
    assert_string_equal(argv[8], "post");
    for (int i = 0; i < n; i++)
        free(argv[i]);
    char text[256];
    lc_scenario_text(&spec, &p, text, sizeof text);
    assert_non_null(strstr(text, " | post "));
    lc_scenario_drop_call(&p, 6);       /* the last post call */
    assert_int_equal(p.npost, 1);
    assert_int_equal(lc_scenario_size(&p), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleavings_keep_thread_order),
        cmocka_unit_test(test_quiescent_allows_every_order),
        cmocka_unit_test(test_walk_stops_when_asked),
        cmocka_unit_test(test_history_accepted_and_rejected),
        cmocka_unit_test(test_real_time_judge),
        cmocka_unit_test(test_spec_parses_and_names_bad_lines),
        cmocka_unit_test(test_scenarios_are_seeded_and_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
