/* shrink: shortest failing schedules by re-execution (see shrink.h).
 *
 * Three passes over the best execution so far, each candidate a plan for
 * strategy_guided (which goes on without preempting where the plan ends or
 * no longer fits):
 *   1. the shortest prefix of choices, cut just before a preemption, that
 *      still fails (binary search over the preemption points);
 *   2. each remaining preemption replaced by letting the preempted thread
 *      go on, the rest of the plan kept;
 *   3. each choice replaced by each other candidate it had, for fewer steps;
 *   4. (between 2 and 3, which costs a run per choice and candidate) when
 *      more than one preemption is left, the schedules with one preemption
 *      as the portfolio's bounded member walks them (the novel places
 *      first, then all), with at most half the re-executions left: among
 *      many alike threads dfs reaches the one place late;
 *   5. when a preemption is still left, a preemption-bounded dfs from the
 *      start with bounds 0, 1, ... below it, for the same failure kind and
 *      location.
 * The hits of 4 and 5 are re-run as plans, so what is kept replays like the
 * rest.
 * A candidate replaces the best when it fails the same way with fewer
 * preemptions, or as many and fewer steps. */
#include "supervisor/explore/shrink.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/explore/strategies.h"
#include "supervisor/process/tracee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One re-execution and what shrinking needs of it. */
struct attempt {
    bool fails;                     /* the same way as the original */
    uint64_t steps, preemptions;
    struct choice_list choices;
    struct guided_points points;    /* one per choice */
};

struct shrinker {
    struct program *prog;
    const struct explore_options *opt;
    uint64_t index;
    enum failure_kind kind;
    const char *location;
    struct run_io io;
    uint64_t max_runs, started_ns, max_ns;
    struct shrink_outcome *out;
    struct attempt best;
    bool fatal;
    char *err;
    size_t errlen;
};

static void attempt_free(struct attempt *a)
{
    choice_list_free(&a->choices);
    guided_points_free(&a->points);
    memset(a, 0, sizeof *a);
}

static bool budget_left(struct shrinker *k)
{
    if (k->fatal || k->out->runs >= k->max_runs)
        return false;
    if (k->max_ns && monotonic_ns() - k->started_ns >= k->max_ns) {
        k->out->out_of_time = true;
        return false;
    }
    return true;
}

/* Runs plan; a fills with the result. false when mdat failed (k->fatal). */
/* A candidate that runs far longer than the original (a thread left
 * spinning alone) is no shorter: it is cut, and none outlives the time. */
static struct explore_options bounded_options(const struct shrinker *k)
{
    struct explore_options bounded = *k->opt;
    if (k->best.steps > 0) {
        uint64_t cap = k->out->original_steps * 2 + 1000;
        if (bounded.max_steps == 0 || bounded.max_steps > cap)
            bounded.max_steps = cap;
    }
    if (k->max_ns) {
        uint64_t used = monotonic_ns() - k->started_ns;
        double left = used < k->max_ns ? (double)(k->max_ns - used) / 1e9 : 0.001;
        if (bounded.time_limit_sec <= 0 || left < bounded.time_limit_sec)
            bounded.time_limit_sec = left;
    }
    return bounded;
}

/* res (run under bounded) fails as the original did. Cut by a budget of
 * shrinking's own, a spin is judged a livelock the schedule's own budget
 * would not see: such a run proves nothing. */
static bool fails_the_same(const struct shrinker *k, const struct explore_options *bounded,
                           const struct exec_result *res)
{
    bool cut = (bounded->max_steps != k->opt->max_steps && res->steps >= bounded->max_steps) ||
               (bounded->time_limit_sec != k->opt->time_limit_sec && k->max_ns &&
                monotonic_ns() - k->started_ns >= k->max_ns);
    return !cut && res->kind == k->kind && strcmp(res->location, k->location) == 0;
}

static bool run_plan(struct shrinker *k, const struct choice_list *plan, struct attempt *a)
{
    memset(a, 0, sizeof *a);
    k->out->runs++;
    struct strategy *strat = strategy_guided_new(plan);
    struct explore_options bounded = bounded_options(k);
    struct exec_result res;
    bool ok = run_one(k->prog, &bounded, strat, k->index, FIRST_ESTIMATE, &k->io, NULL, &res);
    if (!ok) {
        snprintf(k->err, k->errlen, "%s", res.error_message);
        k->fatal = true;
    } else {
        a->fails = fails_the_same(k, &bounded, &res);
        a->steps = res.steps;
        a->preemptions = strategy_guided_preemptions(strat);
        choice_list_move(&a->choices, &res.choices);
        guided_points_copy(&a->points, strategy_guided_points(strat));
        if (a->points.n != a->choices.n)
            a->fails = false;   /* cannot happen: the guided strategy never diverges */
    }
    exec_result_free(&res);
    strategy_free(strat);
    return ok;
}

static bool better(const struct attempt *a, const struct attempt *than)
{
    return a->fails &&
           (a->preemptions < than->preemptions || (a->preemptions == than->preemptions && a->steps < than->steps));
}

/* Runs plan and keeps it as the best when it is better. */
static bool try_plan(struct shrinker *k, const struct choice_list *plan)
{
    if (!budget_left(k))
        return false;
    struct attempt a;
    if (!run_plan(k, plan, &a))
        return false;
    if (!better(&a, &k->best)) {
        attempt_free(&a);
        return false;
    }
    attempt_free(&k->best);
    k->best = a;
    return true;
}

/* The best's first n choices, with choice `at` (if < n) made `thread`. A
 * choice that let the last thread go on says so (0) rather than naming it:
 * after an edit, a block of steps stays a block of its own thread's,
 * instead of becoming a preemption of whoever now ran last. */
static void edited_plan(const struct shrinker *k, size_t n, size_t at, int thread, struct choice_list *plan)
{
    choice_list_truncate(plan, 0);
    choice_list_copy_setting(plan, &k->best.choices);
    for (size_t i = 0; i < n; i++) {
        struct choice c = choice_list_at(&k->best.choices, i);
        if (c.kind == CHOICE_THREAD && guided_points_continued(&k->best.points, i))
            c.thread = 0;
        if (i == at)
            c.thread = thread;
        choice_list_add(plan, c.step, c.kind, c.thread);
    }
}

/* Pass 1: the shortest prefix cut before a preemption that still fails. */
static void cut_at_preemptions(struct shrinker *k)
{
    size_t n_cuts = 0;
    for (size_t i = 0; i < k->best.points.n; i++)
        n_cuts += guided_points_preempted(&k->best.points, i);
    size_t *cuts = malloc((n_cuts + 1) * sizeof *cuts);
    if (!cuts)
        abort();
    n_cuts = 0;
    for (size_t i = 0; i < k->best.points.n; i++)
        if (guided_points_preempted(&k->best.points, i))
            cuts[n_cuts++] = i;
    /* The choices the cuts index, as the best was before any cut: taken
     * from it (not copied: a long failure's list is megabytes), and given
     * back if no cut does better. */
    struct choice_list whole = {0}, plan = {0};
    choice_list_move(&whole, &k->best.choices);
    bool best_replaced = false;
    size_t lo = 0, hi = n_cuts;     /* cutting at cuts[hi] (n_cuts: nowhere) fails */
    while (lo < hi && budget_left(k)) {
        size_t mid = lo + (hi - lo) / 2;
        choice_list_copy_prefix(&plan, &whole, cuts[mid]);
        struct attempt a;
        if (!run_plan(k, &plan, &a))
            break;
        if (a.fails) {
            hi = mid;
            if (better(&a, &k->best)) {
                attempt_free(&k->best);
                k->best = a;
                best_replaced = true;
                continue;
            }
        } else {
            lo = mid + 1;
        }
        attempt_free(&a);
    }
    if (!best_replaced)
        choice_list_move(&k->best.choices, &whole);
    choice_list_free(&whole);
    choice_list_free(&plan);
    free(cuts);
}

/* Pass 2: preemptions one by one replaced by letting the thread go on,
 * until a whole pass removes none. */
static void drop_preemptions(struct shrinker *k)
{
    struct choice_list plan = {0};
    for (bool changed = true; changed && budget_left(k);) {
        changed = false;
        for (size_t i = 0; i < k->best.points.n && budget_left(k); i++) {
            if (!guided_points_preempted(&k->best.points, i))
                continue;
            edited_plan(k, k->best.choices.n, i, 0, &plan);
            changed |= try_plan(k, &plan);
        }
    }
    choice_list_free(&plan);
}

/* Pass 3: every other candidate of every choice, for fewer steps. */
static void try_alternatives(struct shrinker *k)
{
    struct choice_list plan = {0};
    for (size_t i = 0; i < k->best.points.n && budget_left(k); i++) {
        size_t n;
        const int *offered = guided_points_offered(&k->best.points, i, &n);
        int chosen = choice_list_at(&k->best.choices, i).thread;
        /* A copy: a better plan replaces the best and its points. */
        int *candidates = malloc((n ? n : 1) * sizeof *candidates);
        if (!candidates)
            abort();
        memcpy(candidates, offered, n * sizeof *candidates);
        for (size_t j = 0; j < n && budget_left(k); j++) {
            if (candidates[j] == chosen)
                continue;
            edited_plan(k, k->best.choices.n, i, candidates[j], &plan);
            if (try_plan(k, &plan))
                break;      /* point i changed: its candidates are those of the new best */
        }
        free(candidates);
    }
    choice_list_free(&plan);
}

/* Runs one execution of a search strategy; a hit (the same failure) is
 * re-run as a plan and kept when it has fewer preemptions. false when mdat
 * failed. */
static bool search_run(struct shrinker *k, struct strategy *s, uint64_t index)
{
    k->out->runs++;
    struct explore_options bounded = bounded_options(k);
    struct exec_result res;
    if (!run_one(k->prog, &bounded, s, index, FIRST_ESTIMATE, &k->io, NULL, &res)) {
        snprintf(k->err, k->errlen, "%s", res.error_message);
        k->fatal = true;
        exec_result_free(&res);
        return false;
    }
    bool same = fails_the_same(k, &bounded, &res);
    struct choice_list hit = {0};
    if (same)
        choice_list_move(&hit, &res.choices);
    exec_result_free(&res);
    /* Kept only if it fails again as a plan with fewer preemptions as the
     * guided strategy counts them (which is what the file shows). */
    if (same)
        try_plan(k, &hit);
    choice_list_free(&hit);
    return true;
}

/* Pass 4: the schedules with at most one preemption, in bounded's order:
 * its turn 0 (none), then the novel walk (odd turns), then the whole walk
 * (even turns), each until a turn finds no place left to preempt. */
static void walk_one_preemption(struct shrinker *k)
{
    if (k->best.preemptions <= 1 || !budget_left(k))
        return;
    uint64_t stop = k->out->runs + (k->max_runs - k->out->runs) / 2;
    struct strategy *b = strategy_bounded_new();
    bool go = search_run(k, b, k->index);
    for (uint64_t first = 1; first <= 2 && go; first++)
        for (uint64_t turn = first; go && k->best.preemptions > 1 && k->out->runs < stop && budget_left(k);
             turn += 2) {
            strategy_bounded_set_turn(b, turn);
            go = search_run(k, b, k->index);
            if (go && !strategy_bounded_preempted(b))
                break;
        }
    strategy_free(b);
}

/* Pass 5: the fewest preemptions by search rather than by edits. dfs
 * raises its bound one at a time, so its first schedule that fails the same
 * way has the fewest preemptions it can find below the best's. */
static void search_fewer_preemptions(struct shrinker *k)
{
    if (k->best.preemptions == 0 || !budget_left(k))
        return;
    int below = (int)(k->best.preemptions - 1);
    struct strategy *dfs = strategy_dfs_new(DFS_PREEMPTIONS, below);
    for (bool more = true; more && budget_left(k);) {
        k->out->runs++;
        struct explore_options bounded = bounded_options(k);
        struct exec_result res;
        if (!run_one(k->prog, &bounded, dfs, k->index, FIRST_ESTIMATE, &k->io, NULL, &res)) {
            snprintf(k->err, k->errlen, "%s", res.error_message);
            k->fatal = true;
            exec_result_free(&res);
            break;
        }
        bool same = fails_the_same(k, &bounded, &res);
        struct choice_list hit = {0};
        if (same)
            choice_list_move(&hit, &res.choices);
        exec_result_free(&res);
        /* Kept only if it fails again as a plan with fewer preemptions as
         * the guided strategy counts them (which is what the file shows). */
        bool kept = same && try_plan(k, &hit);
        choice_list_free(&hit);
        if (kept && k->best.preemptions == 0)
            break;
        more = dfs->ops->advance(dfs);
    }
    strategy_free(dfs);
}

bool shrink_failure(struct program *prog, const struct explore_options *opt, uint64_t index,
                    const struct choice_list *original, enum failure_kind kind, const char *location,
                    struct shrink_outcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint64_t t0 = monotonic_ns();
    struct shrinker k = {
        .prog = prog, .opt = opt, .index = index, .kind = kind, .location = location, .out = out,
        .max_runs = opt->shrink_runs ? opt->shrink_runs : 1, .started_ns = t0,
        .max_ns = (uint64_t)(opt->shrink_seconds * 1e9), .err = err, .errlen = errlen,
    };
    /* The candidates observe memory as the original did. */
    struct explore_options same = *opt;
    same.own_pages = original->pages != PAGES_OFF;
    k.io = run_io_begin(prog, &same, false);
    bool ok = run_plan(&k, original, &k.best);

    if (ok && k.best.fails) {
        out->shrunk = true;
        out->original_steps = k.best.steps;
        out->original_preemptions = k.best.preemptions;
        cut_at_preemptions(&k);
        drop_preemptions(&k);
        walk_one_preemption(&k);
        try_alternatives(&k);
        uint64_t edited = k.best.preemptions;
        search_fewer_preemptions(&k);
        if (!k.fatal && k.best.preemptions < edited)
            try_alternatives(&k);   /* the search's hit may be longer than need be */
        ok = !k.fatal;
        choice_list_move(&out->choices, &k.best.choices);
        out->steps = k.best.steps;
        out->preemptions = k.best.preemptions;
    } else {
        choice_list_copy(&out->choices, original);
    }
    attempt_free(&k.best);
    run_io_end(&k.io);
    out->seconds = (double)(monotonic_ns() - t0) / 1e9;
    return ok;
}

void shrink_outcome_free(struct shrink_outcome *out)
{
    choice_list_free(&out->choices);
    memset(out, 0, sizeof *out);
}
