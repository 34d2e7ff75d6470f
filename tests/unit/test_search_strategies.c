/* Unit tests for the search strategies pos, surw, dfs and dpor
 * (supervisor/strategies/strategy_*.c) on synthetic choice points: no program
 * runs. A tiny simulator plays "threads that each perform a list of
 * operations", asks the strategy where the engine would (more than one
 * thread can run), and tells dpor every step as the engine's listener
 * hooks do.
 *
 * Expected numbers are derived independently: the dfs tests enumerate
 * every interleaving by brute force and count preemptions or delays by
 * their definitions; the dpor class counts are derived by hand in each
 * test's comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/strategies/strategies.h"

static const bool NO_YIELD[8] = {false};

static struct visible_op op_of(enum visible_kind kind, uint64_t addr)
{
    return (struct visible_op){.kind = (uint8_t)kind, .fn = -1, .addr = addr, .size = addr ? 4 : 0};
}

/* ---------------------------------------------------------------- simulator */

enum { MAX_T = 4, MAX_OPS = 8 };

struct program_sketch {
    int n_threads;                          /* ids 1..n_threads */
    int n_ops[MAX_T + 1];
    struct visible_op ops[MAX_T + 1][MAX_OPS];
};

/* One execution: returns the schedule (thread ids, one per step) in out,
 * its length in *len; false when the strategy stopped it. */
static bool simulate(struct strategy *s, const struct program_sketch *p, uint64_t seed, int *out, int *len)
{
    int done[MAX_T + 1] = {0};
    int previous = 0;
    *len = 0;
    s->ops->begin(s, seed, 100);
    for (int t = 1; t <= p->n_threads; t++)
        s->ops->thread_created(s, t);
    for (;;) {
        int ids[MAX_T];
        struct visible_op ops[MAX_T];
        size_t n = 0;
        for (int t = 1; t <= p->n_threads; t++)
            if (done[t] < p->n_ops[t]) {
                ids[n] = t;
                ops[n] = p->ops[t][done[t]];
                n++;
            }
        if (n == 0)
            return true;
        size_t pick = 0;
        if (n > 1) {
            struct choice_point cp = {(uint64_t)*len, ids, NO_YIELD, n, previous, ops};
            pick = s->ops->pick_thread(s, &cp);
            assert_true(pick < n);
            if (s->stop)
                return false;
        }
        int t = ids[pick];
        if (s->listener.ops && s->listener.ops->after_step)
            s->listener.ops->after_step(s->listener.self, NULL, (uint64_t)*len + 1, t, &ops[pick], NULL);
        out[(*len)++] = t;
        done[t]++;
        previous = t;
    }
}

/* Runs a systematic strategy to the end; returns the executions run and
 * fills *complete with those not stopped. Checks no schedule comes twice. */
static int search_all(struct strategy *s, const struct program_sketch *p, int *complete, int schedules[][32],
                      int max)
{
    int runs = 0;
    *complete = 0;
    for (;;) {
        int len;
        int sched[32];
        bool finished = simulate(s, p, 0, sched, &len);
        if (finished) {
            for (int i = 0; i < *complete; i++)
                assert_false(memcmp(schedules[i], sched, sizeof sched) == 0);
            if (*complete < max) {
                memset(schedules[*complete], 0, sizeof schedules[0]);
                memcpy(schedules[*complete], sched, (size_t)len * sizeof *sched);
            }
            (*complete)++;
        }
        runs++;
        assert_true(runs < 10000);
        if (!s->ops->advance(s))
            return runs;
    }
}

/* ---------------------------------------------------------------- pos */

static void test_pos_same_seed_same_choices(void **state)
{
    (void)state;
    struct program_sketch p = {3, {0, 3, 3, 3}};
    for (int t = 1; t <= 3; t++)
        for (int i = 0; i < 3; i++)
            p.ops[t][i] = op_of(i == 1 ? VIS_READ : VIS_WRITE, 0x1000 + 8 * (uint64_t)((t + i) % 2));
    int differ = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        int a[32], b[32], c[32], la, lb, lc;
        struct strategy *s = strategy_pos_new();
        simulate(s, &p, seed, a, &la);
        simulate(s, &p, seed + 1000, c, &lc);
        simulate(s, &p, seed, b, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, (size_t)la * sizeof *a);
        differ += memcmp(a, c, (size_t)la * sizeof *a) != 0;
        strategy_free(s);
    }
    assert_true(differ > 5);
}

/* Asking twice at the same point: nothing ran, so only the events that
 * race with the one chosen draw new priorities. */
static void test_pos_redraws_only_racing_events(void **state)
{
    (void)state;
    const int ids[] = {1, 2, 3, 4};
    const struct visible_op ops[] = {op_of(VIS_WRITE, 0x100), op_of(VIS_READ, 0x100), op_of(VIS_WRITE, 0x200),
                                     op_of(VIS_READ, 0x200)};
    int raced = 0, kept = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct strategy *s = strategy_pos_new();
        s->ops->begin(s, seed, 100);
        struct choice_point cp = {0, ids, NO_YIELD, 4, 0, ops};
        s->ops->pick_thread(s, &cp);
        uint64_t before[5];
        for (int t = 1; t <= 4; t++)
            before[t] = strategy_pos_priority(s, t);
        size_t pick = s->ops->pick_thread(s, &cp);
        /* The highest priority wins. */
        for (int t = 1; t <= 4; t++)
            assert_true(before[t] <= before[ids[pick]]);
        for (size_t i = 0; i < 4; i++) {
            uint64_t after = strategy_pos_priority(s, ids[i]);
            if (i != pick && visible_ops_conflict(&ops[pick], &ops[i])) {
                assert_true(after != before[ids[i]]);
                raced++;
            } else {
                assert_true(after == before[ids[i]]);
                kept++;
            }
        }
        strategy_free(s);
    }
    assert_int_equal(raced, 50);    /* exactly one partner each time */
    assert_int_equal(kept, 150);
}

static void test_pos_flush_candidates(void **state)
{
    (void)state;
    const int ids[] = {1, -1, 2};
    const struct visible_op ops[] = {op_of(VIS_READ, 0x100), op_of(VIS_WRITE, 0x100), op_of(VIS_WRITE, 0x300)};
    struct strategy *s = strategy_pos_new();
    s->ops->begin(s, 7, 100);
    struct choice_point cp = {0, ids, NO_YIELD, 3, 0, ops};
    assert_true(s->ops->pick_thread(s, &cp) < 3);
    assert_true(strategy_pos_priority(s, -1) != 0);
    strategy_free(s);
}

/* ---------------------------------------------------------------- surw */

static void test_surw_weights_by_remaining_events(void **state)
{
    (void)state;
    struct strategy *s = strategy_surw_new();
    struct strategy_profile prof = {.filled = true, .n = 3, .events = {0, 900, 100}};
    s->ops->use_profile(s, &prof);
    const int ids[] = {1, 2};
    const struct visible_op ops[2] = {op_of(VIS_WRITE, 0x100), op_of(VIS_WRITE, 0x100)};
    int first_pick_t1 = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        s->ops->begin(s, seed, 100);
        struct choice_point cp = {0, ids, NO_YIELD, 2, 0, ops};
        first_pick_t1 += ids[s->ops->pick_thread(s, &cp)] == 1;
    }
    /* 0.9 expected: 360 of 400; fixed seeds make this exact run to run. */
    assert_in_range(first_pick_t1, 330, 390);
    strategy_free(s);
}

/* Every interleaving of a 2-event thread and a 1-event thread (3 of them)
 * comes out equally often once the counts are known; a uniform walk gives
 * the one where the long thread goes first only 1/4 of the time. */
static void test_surw_uniform_over_interleavings(void **state)
{
    (void)state;
    struct program_sketch p = {2, {0, 2, 1}};
    p.ops[1][0] = p.ops[1][1] = p.ops[2][0] = op_of(VIS_WRITE, 0x100);
    struct strategy *s = strategy_surw_new();
    int sched[32], len;
    simulate(s, &p, 1, sched, &len);
    struct strategy_profile prof;
    /* Execution 0 taught nothing yet: learn what a full run does. */
    struct strategy_profile counted = {.filled = true, .n = 3, .events = {0, 2, 1}};
    s->ops->learn(s, &prof);
    assert_true(prof.filled);
    s->ops->use_profile(s, &counted);
    int count[3] = {0};
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        simulate(s, &p, seed, sched, &len);
        int where = sched[0] == 2 ? 0 : sched[1] == 2 ? 1 : 2;   /* position of T2's event */
        count[where]++;
    }
    for (int i = 0; i < 3; i++)
        assert_in_range(count[i], 850, 1150);
    strategy_free(s);
}

static void test_surw_learns_counts(void **state)
{
    (void)state;
    struct program_sketch p = {2, {0, 3, 2}};
    for (int i = 0; i < 3; i++)
        p.ops[1][i] = p.ops[2][i] = op_of(VIS_WRITE, 0x100);
    struct strategy *s = strategy_surw_new();
    int sched[32], len;
    simulate(s, &p, 5, sched, &len);
    struct strategy_profile prof;
    s->ops->learn(s, &prof);
    /* Only steps at choice points count: each thread's events while the
     * other could still run. Their sum is the choices made. */
    int choices = 0, done[3] = {0};
    for (int i = 0; i < len; i++) {
        if (done[1] < 3 && done[2] < 2)
            choices++;
        done[sched[i]]++;
    }
    assert_int_equal(prof.events[1] + prof.events[2], choices);
    strategy_free(s);
}

/* ---------------------------------------------------------------- portfolio */

/* Execution i is run by member i mod 4 (pct, pos, surw, random): the same
 * choices as that strategy alone with the same seed. */
/* bounded: turn 0 is the default schedule (the last thread goes on, then
 * the next by id); the whole walk (even turns) takes the offers in order,
 * alike threads (2 and 3) one class; the novel walk (odd turns) skips an
 * offer made before and runs out. */
static void test_bounded_walks(void **state)
{
    (void)state;
    struct program_sketch p = {3, {0, 2, 3, 3}};
    for (int i = 0; i < 2; i++)
        p.ops[1][i] = op_of(VIS_READ, 0x1000);
    for (int t = 2; t <= 3; t++)
        for (int i = 0; i < 3; i++)
            p.ops[t][i] = op_of(VIS_WRITE, 0x2000);
    static const struct {
        uint64_t turn;
        bool preempted;
        int sched[8];
    } want[] = {
        {0, false, {1, 1, 2, 2, 2, 3, 3, 3}},
        {2, true, {1, 2, 2, 2, 3, 3, 3, 1}},     /* offer 0: 1 to the class of 2 and 3 */
        {4, true, {1, 1, 2, 3, 3, 3, 2, 2}},     /* offer 1: 2 to 3 */
        {6, true, {1, 1, 2, 2, 3, 3, 3, 2}},     /* offer 2: 2 to 3 again, a step later */
        {1, true, {1, 2, 2, 2, 3, 3, 3, 1}},
        {3, true, {1, 1, 2, 3, 3, 3, 2, 2}},
        {5, false, {1, 1, 2, 2, 2, 3, 3, 3}},    /* 2 to 3 was offered: none new left */
    };
    struct strategy *b = strategy_bounded_new();
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        int sched[32], len;
        strategy_bounded_set_turn(b, want[k].turn);
        simulate(b, &p, 1, sched, &len);
        assert_int_equal(len, 8);
        assert_memory_equal(sched, want[k].sched, sizeof want[k].sched);
        assert_int_equal(strategy_bounded_preempted(b), want[k].preempted);
    }
    strategy_free(b);
}

static void test_portfolio_members_take_turns(void **state)
{
    (void)state;
    struct program_sketch p = {3, {0, 3, 2, 3}};
    for (int t = 1; t <= 3; t++)
        for (int i = 0; i < 3; i++)
            p.ops[t][i] = op_of(i == 1 ? VIS_READ : VIS_WRITE, 0x1000 + 8 * (uint64_t)((t + i) % 2));
    const char *names[] = {"pct", "pos", "surw", "random", "pct", "pos", "surw", "bounded"};
    struct strategy *port = strategy_portfolio_new(3, 0);
    for (uint64_t index = 0; index < 24; index++) {
        const char *name = names[index % 8];
        assert_string_equal(strategy_portfolio_member(index), name);
        struct strategy *alone = strcmp(name, "pct") == 0    ? strategy_pct_new(3, 0)
                                 : strcmp(name, "pos") == 0  ? strategy_pos_new()
                                 : strcmp(name, "surw") == 0 ? strategy_surw_new()
                                 : strcmp(name, "random") == 0 ? strategy_random_new()
                                                               : strategy_bounded_new();
        if (strcmp(name, "bounded") == 0)
            strategy_bounded_set_turn(alone, index / 8);
        int a[32], b[32], la, lb;
        port->ops->set_index(port, index);
        simulate(port, &p, 100 + index, a, &la);
        simulate(alone, &p, 100 + index, b, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, (size_t)la * sizeof *a);
        strategy_free(alone);
    }
    /* What execution 0 taught: the choice-point steps of each thread,
     * whichever member ran it. */
    struct strategy_profile prof;
    port->ops->set_index(port, 0);
    int sched[32], len;
    simulate(port, &p, 1, sched, &len);
    port->ops->learn(port, &prof);
    assert_true(prof.filled);
    assert_true(prof.events[1] + prof.events[2] + prof.events[3] > 0);
    strategy_free(port);
}

/* ---------------------------------------------------------------- dfs */

/* Interleavings of threads with n[t] steps each, by brute force, with the
 * preemptions (a switch away from a thread that could go on) and delays
 * (skips in round-robin order by id from the default) of each. */
struct enumerated {
    int n;
    int sched[200][32];
    int preemptions[200];
    int delays[200];
};

static void enumerate(const int *steps, int n_threads, int *left, int *prefix, int len, int total,
                      struct enumerated *e)
{
    if (len == total) {
        int pre = 0, del = 0, prev = 0, rem[MAX_T + 1];
        memcpy(rem, steps, sizeof rem);
        for (int i = 0; i < len; i++) {
            int t = prefix[i];
            bool prev_can = prev && rem[prev] > 0;
            int enabled = 0;
            for (int u = 1; u <= n_threads; u++)
                enabled += rem[u] > 0;
            if (enabled > 1) {
                pre += prev_can && t != prev;
                /* round-robin from the default: prev when it can go on,
                 * else the next id after prev */
                int d = prev_can ? prev : prev + 1, k = 0;
                for (int step = 0; step < n_threads; step++) {
                    int u = (d - 1 + step) % n_threads + 1;
                    if (rem[u] <= 0)
                        continue;
                    if (u == t)
                        break;
                    k++;
                }
                del += k;
            }
            rem[t]--;
            prev = t;
        }
        memset(e->sched[e->n], 0, sizeof e->sched[0]);
        memcpy(e->sched[e->n], prefix, (size_t)len * sizeof *prefix);
        e->preemptions[e->n] = pre;
        e->delays[e->n] = del;
        e->n++;
        return;
    }
    for (int t = 1; t <= n_threads; t++)
        if (left[t] > 0) {
            left[t]--;
            prefix[len] = t;
            enumerate(steps, n_threads, left, prefix, len + 1, total, e);
            left[t]++;
        }
}

static void check_dfs(const int *steps, int n_threads, enum dfs_bound kind, int bound)
{
    struct program_sketch p = {n_threads};
    int total = 0;
    for (int t = 1; t <= n_threads; t++) {
        p.n_ops[t] = steps[t];
        total += steps[t];
        for (int i = 0; i < steps[t]; i++)
            p.ops[t][i] = op_of(VIS_WRITE, 0x100);
    }
    static struct enumerated e;
    e.n = 0;
    int left[MAX_T + 1], prefix[32];
    memcpy(left, steps, sizeof left);
    enumerate(steps, n_threads, left, prefix, 0, total, &e);
    static int got[400][32];
    int complete;
    struct strategy *s = strategy_dfs_new(kind, bound);
    int runs = search_all(s, &p, &complete, got, 400);
    assert_int_equal(runs, complete);
    int expected = 0, last_cost = 0;
    for (int i = 0; i < e.n; i++) {
        int cost = kind == DFS_DELAYS ? e.delays[i] : e.preemptions[i];
        if (bound >= 0 && cost > bound)
            continue;
        expected++;
        int found = -1;
        for (int j = 0; j < complete; j++)
            if (memcmp(got[j], e.sched[i], sizeof got[j]) == 0)
                found = j;
        assert_true(found >= 0);
    }
    assert_int_equal(complete, expected);
    /* Iterative: no schedule runs before one of a smaller bound. */
    for (int j = 0; j < complete; j++)
        for (int i = 0; i < e.n; i++)
            if (memcmp(got[j], e.sched[i], sizeof got[j]) == 0) {
                int cost = kind == DFS_DELAYS ? e.delays[i] : e.preemptions[i];
                assert_true(cost >= last_cost);
                last_cost = cost;
            }
    strategy_free(s);
}

static void test_dfs_preemption_bounds(void **state)
{
    (void)state;
    const int two_by_three[MAX_T + 1] = {0, 3, 3};
    for (int b = 0; b <= 3; b++)
        check_dfs(two_by_three, 2, DFS_PREEMPTIONS, b);
    check_dfs(two_by_three, 2, DFS_PREEMPTIONS, -1);   /* all C(6,3) = 20 */
    const int three[MAX_T + 1] = {0, 2, 1, 2};
    for (int b = 0; b <= 2; b++)
        check_dfs(three, 3, DFS_PREEMPTIONS, b);
}

static void test_dfs_delay_bounds(void **state)
{
    (void)state;
    const int three[MAX_T + 1] = {0, 2, 1, 2};
    for (int b = 0; b <= 3; b++)
        check_dfs(three, 3, DFS_DELAYS, b);
    check_dfs(three, 3, DFS_DELAYS, -1);
}

static void test_dfs_bound_zero_is_one_schedule(void **state)
{
    (void)state;
    /* No preemption: the first thread runs to its end, then the next. */
    struct program_sketch p = {2, {0, 3, 3}};
    for (int i = 0; i < 3; i++)
        p.ops[1][i] = p.ops[2][i] = op_of(VIS_WRITE, 0x100);
    struct strategy *s = strategy_dfs_new(DFS_PREEMPTIONS, 0);
    int got[4][32], complete;
    /* Two: T1 first or T2 first (the very first choice preempts nobody). */
    assert_int_equal(search_all(s, &p, &complete, got, 4), 2);
    strategy_free(s);
}

/* ---------------------------------------------------------------- dpor */

static int dpor_classes(const struct program_sketch *p, int *runs)
{
    static int got[400][32];
    int complete;
    struct strategy *s = strategy_dpor_new();
    *runs = search_all(s, p, &complete, got, 400);
    uint64_t classes;
    int bound;
    assert_true(s->ops->search_state(s, &classes, &bound));
    assert_int_equal((int)classes, complete);
    strategy_free(s);
    return complete;
}

static void test_dpor_disjoint_is_one_class(void **state)
{
    (void)state;
    /* Nothing conflicts: every interleaving is equivalent to every other. */
    struct program_sketch p = {2, {0, 3, 3}};
    for (int i = 0; i < 3; i++) {
        p.ops[1][i] = op_of(VIS_WRITE, 0x100);
        p.ops[2][i] = op_of(VIS_WRITE, 0x200);
    }
    int runs;
    assert_int_equal(dpor_classes(&p, &runs), 1);
    assert_int_equal(runs, 1);
}

static void test_dpor_shared_writes_binomial(void **state)
{
    (void)state;
    /* Every pair of writes conflicts: each interleaving is its own class,
     * C(2k, k) of them. */
    const int expected[] = {0, 2, 6, 20, 70};
    for (int k = 1; k <= 4; k++) {
        struct program_sketch p = {2, {0, k, k}};
        for (int i = 0; i < k; i++)
            p.ops[1][i] = p.ops[2][i] = op_of(VIS_WRITE, 0x100);
        int runs;
        assert_int_equal(dpor_classes(&p, &runs), expected[k]);
    }
}

static void test_dpor_store_buffering_litmus(void **state)
{
    (void)state;
    /* T1: x = 1; r1 = y.  T2: y = 1; r2 = x.  The dependent pairs are
     * (T1's write of x, T2's read of x) and (T2's write of y, T1's read of
     * y); each class orders both pairs. Of the 4 orders, "T1 reads y before
     * T2 writes it and T2 reads x before T1 writes it" is a cycle with
     * program order: 3 classes. */
    struct program_sketch p = {2, {0, 2, 2}};
    p.ops[1][0] = op_of(VIS_WRITE, 0x100);
    p.ops[1][1] = op_of(VIS_READ, 0x200);
    p.ops[2][0] = op_of(VIS_WRITE, 0x200);
    p.ops[2][1] = op_of(VIS_READ, 0x100);
    int runs;
    assert_int_equal(dpor_classes(&p, &runs), 3);
}

static void test_dpor_reads_do_not_conflict(void **state)
{
    (void)state;
    /* Three threads: T1 writes x, T2 and T3 read it. Classes: where the
     * write falls among the two reads, each read before or after it:
     * 2 x 2 = 4 (the reads commute with each other). */
    struct program_sketch p = {3, {0, 1, 1, 1}};
    p.ops[1][0] = op_of(VIS_WRITE, 0x100);
    p.ops[2][0] = op_of(VIS_READ, 0x100);
    p.ops[3][0] = op_of(VIS_READ, 0x100);
    int runs;
    assert_int_equal(dpor_classes(&p, &runs), 4);
    /* Sleep sets: no execution is cut short in this program. */
    assert_int_equal(runs, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pos_same_seed_same_choices),
        cmocka_unit_test(test_pos_redraws_only_racing_events),
        cmocka_unit_test(test_pos_flush_candidates),
        cmocka_unit_test(test_surw_weights_by_remaining_events),
        cmocka_unit_test(test_surw_uniform_over_interleavings),
        cmocka_unit_test(test_surw_learns_counts),
        cmocka_unit_test(test_bounded_walks),
        cmocka_unit_test(test_portfolio_members_take_turns),
        cmocka_unit_test(test_dfs_preemption_bounds),
        cmocka_unit_test(test_dfs_delay_bounds),
        cmocka_unit_test(test_dfs_bound_zero_is_one_schedule),
        cmocka_unit_test(test_dpor_disjoint_is_one_class),
        cmocka_unit_test(test_dpor_shared_writes_binomial),
        cmocka_unit_test(test_dpor_store_buffering_litmus),
        cmocka_unit_test(test_dpor_reads_do_not_conflict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
