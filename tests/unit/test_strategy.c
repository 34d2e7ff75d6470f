/* Unit tests for the scheduling strategies (supervisor/engine/strategy.h: random,
 * pct, replay) and the deterministic generator behind them (supervisor/strategies/rng.h).
 *
 * Known-answer values for splitmix64 are the published reference outputs for
 * state 0; the xoshiro256** and execution_seed values were computed with an
 * independent Python transcription of the algorithms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/strategies/rng.h"
#include "supervisor/explore/schedule.h"
#include "supervisor/strategies/strategies.h"

static const int T123[] = {1, 2, 3};
static const bool NO_YIELD[8] = {false};

static struct choice_point cp_of(uint64_t step, const int *threads, const bool *yielded, size_t n, int previous)
{
    return (struct choice_point){step, threads, yielded, n, previous};
}

static int pick_id(struct strategy *s, uint64_t step, const int *threads, const bool *yielded, size_t n,
                   int previous)
{
    struct choice_point cp = cp_of(step, threads, yielded, n, previous);
    size_t i = s->ops->pick_thread(s, &cp);
    assert_true(i < n);
    return threads[i];
}

static void begin_with_threads(struct strategy *s, uint64_t seed, uint64_t estimated, int n_threads)
{
    s->ops->begin(s, seed, estimated);
    for (int t = 1; t <= n_threads; t++)
        s->ops->thread_created(s, t);
}

/* ---------------------------------------------------------------- rng */

static void test_rng_known_answers(void **state)
{
    (void)state;
    uint64_t x = 0;
    assert_int_equal(splitmix64(&x), 0xe220a8397b1dcdafu);
    assert_int_equal(splitmix64(&x), 0x6e789e6aa1b965f4u);
    assert_int_equal(splitmix64(&x), 0x06c45d188009454fu);

    struct rng r;
    rng_seed(&r, 42);
    assert_int_equal(rng_next(&r), 0x15780b2e0c2ec716u);
    assert_int_equal(rng_next(&r), 0x6104d9866d113a7eu);
    assert_int_equal(rng_next(&r), 0xae17533239e499a1u);
    assert_int_equal(rng_next(&r), 0xecb8ad4703b360a1u);

    assert_int_equal(execution_seed(42, 0), 0xbdd732262feb6e95u);
    assert_int_equal(execution_seed(42, 1), 0xc8ddbbbeab9cba1bu);
    assert_int_equal(execution_seed(7, 5), 0xcf5473b102dea28bu);
}

static void test_rng_same_seed_same_stream(void **state)
{
    (void)state;
    struct rng a, b, c;
    rng_seed(&a, 12345);
    rng_seed(&b, 12345);
    rng_seed(&c, 12346);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t va = rng_next(&a);
        assert_int_equal(va, rng_next(&b));
        differ += va != rng_next(&c);
    }
    assert_true(differ > 990);
}

static void test_rng_below_range(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 99);
    static const uint64_t ns[] = {1, 2, 3, 7, 10, 1000, (uint64_t)1 << 40, ((uint64_t)1 << 63) + 1, UINT64_MAX};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint64_t n = ns[k], max_seen = 0;
        for (int i = 0; i < 5000; i++) {
            uint64_t v = rng_below(&r, n);
            assert_true(v < n);
            if (v > max_seen)
                max_seen = v;
        }
        if (n == 1)
            assert_int_equal(max_seen, 0);
        else if (n <= 10)
            assert_int_equal(max_seen, n - 1);  /* every small range is reached to its top */
        else
            assert_true(max_seen > n / 2);
    }
    /* All values of a small range come up. */
    int seen[7] = {0};
    for (int i = 0; i < 700; i++)
        seen[rng_below(&r, 7)]++;
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 50);
}

static void test_execution_seed(void **state)
{
    (void)state;
    enum { N = 2000 };
    static uint64_t seeds[N];
    for (uint64_t i = 0; i < N; i++) {
        seeds[i] = execution_seed(1234, i);
        assert_int_equal(seeds[i], execution_seed(1234, i));    /* deterministic */
        assert_int_not_equal(seeds[i], execution_seed(1235, i)); /* depends on the base seed */
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            assert_int_not_equal(seeds[i], seeds[j]);
    /* Index 0 is not simply the base seed. */
    assert_int_not_equal(execution_seed(1234, 0), 1234);
}

/* ------------------------------------------------------------- random */

static void test_random_same_seed_same_picks(void **state)
{
    (void)state;
    struct strategy *a = strategy_random_new(), *b = strategy_random_new();
    assert_string_equal(a->ops->name, "random");
    begin_with_threads(a, 777, 0, 3);
    begin_with_threads(b, 777, 0, 3);
    int seq[500];
    for (int i = 0; i < 500; i++) {
        seq[i] = pick_id(a, (uint64_t)i, T123, NO_YIELD, 3, 0);
        assert_int_equal(seq[i], pick_id(b, (uint64_t)i, T123, NO_YIELD, 3, 0));
    }
    /* begin again with the same seed restarts the same sequence. */
    begin_with_threads(a, 777, 0, 3);
    for (int i = 0; i < 500; i++)
        assert_int_equal(seq[i], pick_id(a, (uint64_t)i, T123, NO_YIELD, 3, 0));

    /* A different seed gives a different sequence. */
    begin_with_threads(b, 778, 0, 3);
    int differ = 0;
    for (int i = 0; i < 500; i++)
        differ += seq[i] != pick_id(b, (uint64_t)i, T123, NO_YIELD, 3, 0);
    assert_true(differ > 100);
    strategy_free(a);
    strategy_free(b);
}

static void test_random_uniform(void **state)
{
    (void)state;
    struct strategy *s = strategy_random_new();
    begin_with_threads(s, execution_seed(2024, 3), 0, 3);
    int count[4] = {0};
    for (int i = 0; i < 30000; i++)
        count[pick_id(s, (uint64_t)i, T123, NO_YIELD, 3, i ? 1 : 0)]++;
    for (int t = 1; t <= 3; t++) {
        assert_true(count[t] >= 9000);
        assert_true(count[t] <= 11000);
    }
    strategy_free(s);
}

static void test_random_waiter(void **state)
{
    (void)state;
    struct strategy *s = strategy_random_new();
    begin_with_threads(s, 5, 0, 0);
    static const int waiters[] = {4, 9};
    int count[2] = {0};
    for (int i = 0; i < 2000; i++) {
        struct choice_point cp = cp_of(10, waiters, NO_YIELD, 2, 0);
        size_t k = s->ops->pick_waiter(s, &cp);
        assert_true(k < 2);
        count[k]++;
    }
    assert_true(count[0] > 800 && count[1] > 800);
    /* A single candidate is always picked. */
    struct choice_point one = cp_of(10, waiters, NO_YIELD, 1, 0);
    for (int i = 0; i < 50; i++)
        assert_int_equal(s->ops->pick_waiter(s, &one), 0);
    assert_false(s->diverged);
    strategy_free(s);
}

/* ---------------------------------------------------------------- pct */

static void test_pct_fixed_priorities(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct strategy *s = strategy_pct_new(1, 0);
        assert_string_equal(s->ops->name, "pct");
        begin_with_threads(s, seed, 100, 3);
        int top = pick_id(s, 0, T123, NO_YIELD, 3, 0);
        /* No change points with depth 1: the same thread, whatever the order
         * in which the enabled threads are listed. */
        static const int perms[6][3] = {{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}};
        for (uint64_t step = 1; step < 1000; step++)
            assert_int_equal(pick_id(s, step, perms[step % 6], NO_YIELD, 3, 0), top);

        /* The highest-priority thread is picked whenever it is enabled. */
        int others[2], k = 0;
        for (int t = 1; t <= 3; t++)
            if (t != top)
                others[k++] = t;
        int pair_a[2] = {top, others[0]}, pair_b[2] = {others[1], top};
        assert_int_equal(pick_id(s, 1000, pair_a, NO_YIELD, 2, 0), top);
        assert_int_equal(pick_id(s, 1001, pair_b, NO_YIELD, 2, 0), top);
        /* Without it, the order among the other two is fixed too. */
        int second = pick_id(s, 1002, others, NO_YIELD, 2, 0);
        int rev[2] = {others[1], others[0]};
        for (uint64_t step = 1003; step < 1100; step++)
            assert_int_equal(pick_id(s, step, step & 1 ? rev : others, NO_YIELD, 2, 0), second);

        /* A second instance with the same seed makes the same choices. */
        struct strategy *s2 = strategy_pct_new(1, 0);
        begin_with_threads(s2, seed, 100, 3);
        assert_int_equal(pick_id(s2, 0, T123, NO_YIELD, 3, 0), top);
        assert_int_equal(pick_id(s2, 1, others, NO_YIELD, 2, 0), second);

        /* begin again with the same seed (and the same threads) restores the
         * same priorities. */
        begin_with_threads(s, seed, 100, 3);
        assert_int_equal(pick_id(s, 0, T123, NO_YIELD, 3, 0), top);
        assert_int_equal(pick_id(s, 1, others, NO_YIELD, 2, 0), second);
        strategy_free(s2);
        strategy_free(s);
    }
}

/* Whether the thread at the top changes within 100 steps with all three
 * threads always there: only a change point (depth > 1) changes it. */
static bool pct_top_changes(struct strategy *s, uint64_t seed)
{
    begin_with_threads(s, seed, 100, 3);
    int top = pick_id(s, 0, T123, NO_YIELD, 3, 0);
    for (uint64_t step = 1; step <= 100; step++)
        if (pick_id(s, step, T123, NO_YIELD, 3, 0) != top)
            return true;
    return false;
}

/* Depth 0: chosen per execution among the depths the budget affords (a
 * bug of depth d costs n k^(d-1) executions): 100 steps and 50 executions
 * afford depth 1 only (no change point in any execution); a large budget
 * affords deeper ones, drawn per execution (some with a change point, some
 * without); so does knowing fewer threads, and many threads afford less. */
static void test_pct_depth_per_execution(void **state)
{
    (void)state;
    struct strategy *small = strategy_pct_new(0, 50), *large = strategy_pct_new(0, 1000000000);
    int changed = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        assert_false(pct_top_changes(small, seed));
        changed += pct_top_changes(large, seed);
    }
    assert_true(changed > 0 && changed < 40);
    /* 64 threads (execution 0's profile), 100 steps, 6,399 executions:
     * depth 2 costs 6,400, not affordable. */
    struct strategy *many = strategy_pct_new(0, 6399);
    struct strategy_profile profile = {.filled = true, .n = 65};
    many->ops->use_profile(many, &profile);
    for (uint64_t seed = 1; seed <= 40; seed++)
        assert_false(pct_top_changes(many, seed));
    strategy_free(small);
    strategy_free(large);
    strategy_free(many);
}

static void test_pct_waiter_is_highest(void **state)
{
    (void)state;
    struct strategy *s = strategy_pct_new(1, 0);
    begin_with_threads(s, 31337, 10, 3);
    struct choice_point cp = cp_of(0, T123, NO_YIELD, 3, 0);
    size_t w = s->ops->pick_waiter(s, &cp);
    assert_true(w < 3);
    assert_int_equal(pick_id(s, 0, T123, NO_YIELD, 3, 0), T123[w]);
    strategy_free(s);
}

static void test_pct_yield_demotes(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct strategy *s = strategy_pct_new(1, 0);
        begin_with_threads(s, seed, 100, 3);
        int top = pick_id(s, 0, T123, NO_YIELD, 3, 0);
        int top_idx = top - 1;

        /* top yields: someone else runs. */
        bool y[3] = {false, false, false};
        y[top_idx] = true;
        int after = pick_id(s, 1, T123, y, 3, top);
        assert_int_not_equal(after, top);
        /* And keeps losing to every other enabled thread afterwards. */
        for (uint64_t step = 2; step < 200; step++) {
            assert_int_not_equal(pick_id(s, step, T123, NO_YIELD, 3, 0), top);
            for (int o = 1; o <= 3; o++) {
                if (o == top)
                    continue;
                int pair[2] = {top, o};
                assert_int_equal(pick_id(s, step, pair, NO_YIELD, 2, 0), o);
            }
        }
        /* Alone, it still runs. */
        int alone[1] = {top};
        assert_int_equal(pick_id(s, 300, alone, NO_YIELD, 1, 0), top);

        /* Then `after` yields too: it drops below top (demoted earlier), so
         * the third thread runs, and between the two demoted ones top wins. */
        bool y2[3] = {false, false, false};
        y2[after - 1] = true;
        int third = 6 - top - after;
        assert_int_equal(pick_id(s, 301, T123, y2, 3, after), third);
        int demoted_pair[2] = {after, top};
        assert_int_equal(pick_id(s, 302, demoted_pair, NO_YIELD, 2, 0), top);
        strategy_free(s);
    }
}

/* A thread that runs SPIN_LIMIT (2000) steps in a row while others could run
 * is demoted, so a spinning thread cannot starve the others. */
static void test_pct_spin_limit(void **state)
{
    (void)state;
    struct strategy *s = strategy_pct_new(1, 0);
    begin_with_threads(s, 4242, 100, 3);
    int top = pick_id(s, 0, T123, NO_YIELD, 3, 0);
    int prev = top, step = 1;
    while (prev == top && step < 5000) {
        prev = pick_id(s, (uint64_t)step, T123, NO_YIELD, 3, prev);
        step++;
    }
    assert_int_not_equal(prev, top);
    /* Picks at steps 0..1999 make a streak of 2000; the pick at step 2000 is
     * another thread. */
    assert_int_equal(step, 2001);
    strategy_free(s);
}

static void test_pct_first_pick_varies_with_seed(void **state)
{
    (void)state;
    int count[4] = {0};
    for (uint64_t i = 0; i < 300; i++) {
        struct strategy *s = strategy_pct_new(3, 0);
        begin_with_threads(s, execution_seed(99, i), 1000, 3);
        count[pick_id(s, 0, T123, NO_YIELD, 3, 0)]++;
        strategy_free(s);
    }
    for (int t = 1; t <= 3; t++)
        assert_true(count[t] >= 60);    /* expected 100 each */
}

/* depth 2: one change point in [1, estimated_steps]; at it the running thread
 * is demoted, so the pick changes exactly once. */
static void test_pct_change_point(void **state)
{
    (void)state;
    int changes_at[11] = {0};
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct strategy *s = strategy_pct_new(2, 0);
        begin_with_threads(s, seed, 10, 3);
        int prev = pick_id(s, 0, T123, NO_YIELD, 3, 0), changes = 0;
        uint64_t at = 0;
        for (uint64_t step = 1; step <= 30; step++) {
            int t = pick_id(s, step, T123, NO_YIELD, 3, 0);
            if (t != prev) {
                changes++;
                at = step;
            }
            prev = t;
        }
        assert_int_equal(changes, 1);
        assert_true(at >= 1 && at <= 10);
        changes_at[at]++;
        strategy_free(s);
    }
    /* The change points are spread over the estimated length. */
    int distinct = 0;
    for (int i = 1; i <= 10; i++)
        distinct += changes_at[i] > 0;
    assert_true(distinct >= 8);

    /* depth 1 never changes, even over a long estimated run. */
    struct strategy *s = strategy_pct_new(1, 0);
    begin_with_threads(s, 3, 10, 3);
    int first = pick_id(s, 0, T123, NO_YIELD, 3, 0);
    for (uint64_t step = 1; step < 100; step++)
        assert_int_equal(pick_id(s, step, T123, NO_YIELD, 3, 0), first);
    strategy_free(s);
}

/* ------------------------------------------------------------- replay */

static void build_schedule(struct schedule *sched)
{
    schedule_init(sched);
    choice_list_add(&sched->choices, 0, CHOICE_THREAD, 2);
    choice_list_add(&sched->choices, 1, CHOICE_THREAD, 1);
    choice_list_add(&sched->choices, 1, CHOICE_WAKE, 3);
    choice_list_add(&sched->choices, 4, CHOICE_THREAD, 3);
    choice_list_add(&sched->choices, 9, CHOICE_THREAD, 2);
}

/* A pct that follows the execution's changes from choice to choice (view
 * numbers) picks what a pct that scans every candidate picks: hundreds of
 * threads becoming runnable and not, yielding, being made; now and then
 * more changes than are listed, a choice on another set, a skipped view. */
static void test_pct_views_match_scan(void **state)
{
    (void)state;
    enum { MAX = 400 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct strategy *followed = strategy_pct_new(6, 0), *scanned = strategy_pct_new(6, 0);
        struct rng r;
        rng_seed(&r, seed);
        bool runnable[MAX + 1] = {false}, yielded[MAX + 1] = {false};
        int n_threads = 0;
        followed->ops->begin(followed, seed, 20000);
        scanned->ops->begin(scanned, seed, 20000);
        int changed[32], n_changed = 0;
        bool overflow = false;
        uint64_t view = 0;
        int previous = 0;
        for (uint64_t step = 0; step < 20000; step++) {
            /* What happened since the last choice. */
            int events = (int)rng_below(&r, step % 997 == 0 ? 60 : 4);
            for (int e = 0; e < events; e++) {
                int t;
                if (n_threads < MAX && (n_threads < 2 || rng_below(&r, 50) == 0)) {
                    t = ++n_threads;
                    followed->ops->thread_created(followed, t);
                    scanned->ops->thread_created(scanned, t);
                    runnable[t] = true;
                } else {
                    t = 1 + (int)rng_below(&r, (uint64_t)n_threads);
                    if (rng_below(&r, 4) == 0)
                        yielded[t] = !yielded[t];
                    else
                        runnable[t] = !runnable[t];
                }
                if (n_changed < 32)
                    changed[n_changed++] = t;
                else
                    overflow = true;
            }
            int ids[MAX];
            bool ylds[MAX];
            size_t n = 0;
            for (int t = 1; t <= n_threads; t++)
                if (runnable[t]) {
                    ids[n] = t;
                    ylds[n++] = yielded[t];
                }
            if (n == 0)
                continue;
            bool other_set = rng_below(&r, 500) == 0, skipped = rng_below(&r, 700) == 0;
            struct choice_point cp = cp_of(step, ids, ylds, n, previous);
            struct choice_point plain = cp;
            if (!other_set) {
                view += skipped ? 2 : 1;
                cp.view = view;
                cp.changed = overflow ? NULL : changed;
                cp.n_changed = (size_t)n_changed;
                n_changed = 0;
                overflow = false;
            }
            size_t a = followed->ops->pick_thread(followed, &cp);
            size_t b = scanned->ops->pick_thread(scanned, &plain);
            assert_int_equal(ids[a], ids[b]);
            previous = ids[a];
            /* It runs, and its yield is over; or it is picked again still
             * a yielder (nothing changed, yet the pick undid its demotion). */
            if (yielded[previous] && rng_below(&r, 2)) {
                yielded[previous] = false;
                if (n_changed < 32)
                    changed[n_changed++] = previous;
                else
                    overflow = true;
            }
        }
        strategy_free(followed);
        strategy_free(scanned);
    }
}

static void test_replay_follows(void **state)
{
    (void)state;
    struct schedule sched;
    build_schedule(&sched);
    struct strategy *s = strategy_replay_new(&sched.choices);
    assert_string_equal(s->ops->name, "replay");
    s->ops->begin(s, 0, 0);
    s->ops->thread_created(s, 1);

    static const int order_a[] = {3, 1, 2}, order_b[] = {2, 3, 1};
    struct choice_point cp = cp_of(0, order_a, NO_YIELD, 3, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T2 */
    cp = cp_of(1, order_b, NO_YIELD, 3, 2);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T1 */
    static const int waiters[] = {5, 3};
    cp = cp_of(1, waiters, NO_YIELD, 2, 1);
    assert_int_equal(s->ops->pick_waiter(s, &cp), 1);          /* T3 */
    cp = cp_of(4, T123, NO_YIELD, 3, 1);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T3 */
    static const int two[] = {2, 4};
    cp = cp_of(9, two, NO_YIELD, 2, 3);
    assert_int_equal(s->ops->pick_thread(s, &cp), 0);          /* T2 */
    assert_false(s->diverged);

    /* begin restarts from the first choice. */
    s->ops->begin(s, 0, 0);
    cp = cp_of(0, T123, NO_YIELD, 3, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 1);
    assert_false(s->diverged);

    strategy_free(s);
    schedule_free(&sched);
}

/* Threads that all poll with sched_yield take turns: a yield demotes a
 * thread once, not again at every choice while it waits (which would let
 * the thread demoted first win every time and starve the rest). */
static void test_pct_yielders_take_turns(void **state)
{
    (void)state;
    struct strategy *s = strategy_pct_new(3, 0);
    begin_with_threads(s, 42, 1000, 3);
    static const bool all_yielded[3] = {true, true, true};
    int runs[4] = {0};
    for (uint64_t step = 0; step < 30; step++)
        runs[pick_id(s, step, T123, all_yielded, 3, 0)]++;
    for (int t = 1; t <= 3; t++)
        if (runs[t] < 5)
            fail_msg("T%d ran %d times out of 30 while every thread yields", t, runs[t]);
    strategy_free(s);
}

/* A chooser that answers from a script and counts the questions. */
struct scripted_chooser {
    const int *answers;
    int n_answers, asked, waiters_asked;
    uint64_t last_step;
};

static int scripted_answer(void *ctx, const struct choice_point *cp)
{
    struct scripted_chooser *c = ctx;
    c->last_step = cp->step;
    return c->asked < c->n_answers ? c->answers[c->asked++] : 0;
}

static int scripted_waiter(void *ctx, const struct choice_point *cp)
{
    struct scripted_chooser *c = ctx;
    c->waiters_asked++;
    return cp->threads[cp->n - 1];
}

static void test_interactive_rewind_then_ask(void **state)
{
    (void)state;
    static const int answers[] = {3, 1};
    struct scripted_chooser sc = {answers, 2, 0, 0, 0};
    struct chooser chooser = {scripted_answer, scripted_waiter, &sc};
    struct strategy *s = strategy_interactive_new(&chooser);
    assert_true(s->every_step);
    assert_true(s->wants_state);

    /* No prefix: asked at once, even with one thread; answers are ids. */
    s->ops->begin(s, 0, 0);
    static const int one[] = {1};
    struct choice_point cp = cp_of(0, one, NO_YIELD, 1, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 0);
    assert_int_equal(sc.asked, 1);      /* answered 3, not runnable: stops */
    assert_true(s->stop);

    /* Rewind to step 5: steps 0..4 follow the prefix silently. */
    struct schedule sched;
    build_schedule(&sched);
    strategy_interactive_rewind(s, &sched.choices, 5);
    sc.asked = 0;
    s->ops->begin(s, 0, 0);
    assert_false(s->stop);
    static const int order_a[] = {3, 1, 2}, order_b[] = {2, 3, 1};
    cp = cp_of(0, order_a, NO_YIELD, 3, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T2 from the prefix */
    cp = cp_of(0, one, NO_YIELD, 1, 2);
    assert_int_equal(s->ops->pick_thread(s, &cp), 0);          /* no choice: not asked */
    cp = cp_of(1, order_b, NO_YIELD, 3, 2);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T1 */
    static const int waiters[] = {5, 3};
    cp = cp_of(1, waiters, NO_YIELD, 2, 1);
    assert_int_equal(s->ops->pick_waiter(s, &cp), 1);          /* T3 */
    cp = cp_of(4, T123, NO_YIELD, 3, 1);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* T3 */
    assert_int_equal(sc.asked, 0);
    assert_int_equal(sc.waiters_asked, 0);
    /* Step 5: the chooser's turn (the prefix's choice at step 9 is dropped). */
    cp = cp_of(5, T123, NO_YIELD, 3, 3);
    assert_int_equal(s->ops->pick_thread(s, &cp), 2);          /* answered T3... */
    sc.answers = answers + 1;
    sc.asked = 0;
    assert_int_equal(s->ops->pick_thread(s, &cp), 0);          /* ...then T1 again */
    assert_int_equal(sc.last_step, 5);
    cp = cp_of(5, waiters, NO_YIELD, 2, 1);
    assert_int_equal(s->ops->pick_waiter(s, &cp), 1);          /* the chooser's waiter */
    assert_int_equal(sc.waiters_asked, 1);
    assert_false(s->diverged);

    /* Handing over: the delegate answers, the chooser is not asked. */
    struct strategy *replay = strategy_random_new();
    replay->ops->begin(replay, 7, 0);
    strategy_interactive_delegate(s, replay);
    int before = sc.asked;
    static const int t12[] = {1, 2};
    for (uint64_t step = 6; step < 20; step++) {
        cp = cp_of(step, t12, NO_YIELD, 2, 0);
        assert_true(s->ops->pick_thread(s, &cp) < 2);
    }
    assert_int_equal(sc.asked, before);
    assert_false(s->stop);

    strategy_free(s);
    strategy_free(replay);
    schedule_free(&sched);
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
}

static void test_replay_thread_not_enabled(void **state)
{
    (void)state;
    struct schedule sched;
    build_schedule(&sched);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    static const int t13[] = {1, 3};
    struct choice_point cp = cp_of(0, t13, NO_YIELD, 2, 0);
    size_t k = s->ops->pick_thread(s, &cp);
    assert_true(k < 2);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 0");
    assert_contains(s->divergence, "T2");
    assert_contains(s->divergence, "cannot run");

    /* Once diverged, later picks stay in range and the first message stays. */
    char first[256];
    snprintf(first, sizeof first, "%s", s->divergence);
    cp = cp_of(1, T123, NO_YIELD, 3, 1);
    assert_true(s->ops->pick_thread(s, &cp) < 3);
    assert_true(s->diverged);
    assert_string_equal(s->divergence, first);

    /* begin clears the divergence. */
    s->ops->begin(s, 0, 0);
    assert_false(s->diverged);
    strategy_free(s);
    schedule_free(&sched);
}

static void test_replay_waiter_not_enabled(void **state)
{
    (void)state;
    struct schedule sched;
    schedule_init(&sched);
    choice_list_add(&sched.choices, 6, CHOICE_WAKE, 7);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    struct choice_point cp = cp_of(6, T123, NO_YIELD, 3, 0);
    assert_true(s->ops->pick_waiter(s, &cp) < 3);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 6");
    assert_contains(s->divergence, "wake T7");
    strategy_free(s);
    schedule_free(&sched);
}

static void test_replay_step_differs(void **state)
{
    (void)state;
    struct schedule sched;
    build_schedule(&sched);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    struct choice_point cp = cp_of(0, T123, NO_YIELD, 3, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 1);
    /* The schedule's next choice is at step 1; the program asks at step 2. */
    cp = cp_of(2, T123, NO_YIELD, 3, 2);
    s->ops->pick_thread(s, &cp);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 2");
    assert_contains(s->divergence, "next choice is at step 1");
    strategy_free(s);
    schedule_free(&sched);
}

static void test_replay_kind_differs(void **state)
{
    (void)state;
    struct schedule sched;
    build_schedule(&sched);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    /* The schedule's first choice is a thread choice; the program asks for a
     * waiter at the same step. */
    struct choice_point cp = cp_of(0, T123, NO_YIELD, 3, 0);
    s->ops->pick_waiter(s, &cp);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 0");
    assert_contains(s->divergence, "wake");
    strategy_free(s);
    schedule_free(&sched);
}

static void test_replay_runs_out(void **state)
{
    (void)state;
    struct schedule sched;
    schedule_init(&sched);
    choice_list_add(&sched.choices, 3, CHOICE_THREAD, 1);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    struct choice_point cp = cp_of(3, T123, NO_YIELD, 3, 0);
    assert_int_equal(s->ops->pick_thread(s, &cp), 0);
    assert_false(s->diverged);
    cp = cp_of(8, T123, NO_YIELD, 3, 1);
    assert_true(s->ops->pick_thread(s, &cp) < 3);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 8");
    assert_contains(s->divergence, "ends after 1 choices");
    strategy_free(s);
    schedule_free(&sched);
}

static void test_replay_empty_schedule(void **state)
{
    (void)state;
    struct schedule sched;
    schedule_init(&sched);
    struct strategy *s = strategy_replay_new(&sched.choices);
    s->ops->begin(s, 0, 0);
    struct choice_point cp = cp_of(0, T123, NO_YIELD, 3, 0);
    assert_true(s->ops->pick_thread(s, &cp) < 3);
    assert_true(s->diverged);
    assert_contains(s->divergence, "at step 0");
    strategy_free(s);
    schedule_free(&sched);
}

static void test_strategy_free_null(void **state)
{
    (void)state;
    strategy_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_known_answers),
        cmocka_unit_test(test_rng_same_seed_same_stream),
        cmocka_unit_test(test_rng_below_range),
        cmocka_unit_test(test_execution_seed),
        cmocka_unit_test(test_random_same_seed_same_picks),
        cmocka_unit_test(test_random_uniform),
        cmocka_unit_test(test_random_waiter),
        cmocka_unit_test(test_pct_fixed_priorities),
        cmocka_unit_test(test_pct_depth_per_execution),
        cmocka_unit_test(test_pct_waiter_is_highest),
        cmocka_unit_test(test_pct_yield_demotes),
        cmocka_unit_test(test_pct_spin_limit),
        cmocka_unit_test(test_pct_first_pick_varies_with_seed),
        cmocka_unit_test(test_pct_change_point),
        cmocka_unit_test(test_pct_views_match_scan),
        cmocka_unit_test(test_replay_follows),
        cmocka_unit_test(test_interactive_rewind_then_ask),
        cmocka_unit_test(test_pct_yielders_take_turns),
        cmocka_unit_test(test_replay_thread_not_enabled),
        cmocka_unit_test(test_replay_waiter_not_enabled),
        cmocka_unit_test(test_replay_step_differs),
        cmocka_unit_test(test_replay_kind_differs),
        cmocka_unit_test(test_replay_runs_out),
        cmocka_unit_test(test_replay_empty_schedule),
        cmocka_unit_test(test_strategy_free_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
