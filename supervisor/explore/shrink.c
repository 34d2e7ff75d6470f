/* shrink: shortest failing schedules by re-execution (see shrink.h).
 *
 * Passes over the best execution so far, each candidate a plan for
 * strategy_guided (which goes on without preempting where the plan ends or
 * no longer fits), in this order, the fewest preemptions first:
 *   1. the shortest prefix of choices, cut just before a preemption, that
 *      still fails (binary search over the preemption points);
 *   2. each remaining preemption replaced by letting the preempted thread
 *      go on, the rest of the plan kept;
 *   3. the same on the best's switches anchored on each thread's own
 *      progress (guided_switches.h), where leaving one out moves no other:
 *      one at a time (or with the free switch before it choosing its
 *      thread), then only m of them kept, m = 0, 1, ...;
 *   4. when more than one preemption is left, the schedules with one
 *      preemption as the portfolio's bounded member walks them (the novel
 *      places first, then all), with at most half the re-executions left:
 *      among many alike threads dfs reaches the one place late;
 *   5. a preemption-bounded dfs (below the best's) preempting only before
 *      the instructions where the best's preemptions were, the fewest
 *      departures from round robin first (strategy_dfs.c), with at most
 *      half the re-executions left;
 *   6. each choice replaced by each other candidate it had, for fewer steps
 *      (a run per choice and candidate: the rest of the budget);
 *   7. when a preemption is still left and re-executions too, the plain
 *      preemption-bounded dfs from the start, below the best's.
 * Preemptions are counted as dfs counts them: a switch away from a thread
 * that spins (or yielded, or ran STRATEGY_SPIN_LIMIT choice points in a
 * row) is none. The hits of the searches are re-run as plans, so what is
 * kept replays like the rest, and the searches observe memory as the
 * original did.
 * A candidate replaces the best when it fails the same way with fewer
 * preemptions, or as many and fewer steps. All of it is a function of the
 * schedule and the number of re-executions; only --shrink-time, when it
 * cuts the work short, makes it depend on the machine. */
#include "supervisor/explore/shrink.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/strategies/strategies.h"
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
    /* The search strategies' runs observe memory as it did (a search's
     * first execution would find for itself, after a second of each spin
     * on memory a thread owns, what the original's pages list says). */
    const struct choice_list *original;
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

/* Runs strat (a guided one) as one candidate; a fills with the result and,
 * when switches is not NULL, it with the switches the run made. */
static bool run_guided(struct shrinker *k, struct strategy *strat, struct attempt *a, struct guided_switches *switches)
{
    memset(a, 0, sizeof *a);
    k->out->runs++;
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
        if (switches)
            guided_switches_copy_without(switches, strategy_guided_switches(strat), SIZE_MAX);
    }
    exec_result_free(&res);
    strategy_free(strat);
    return ok;
}

static bool run_plan(struct shrinker *k, const struct choice_list *plan, struct attempt *a)
{
    return run_guided(k, strategy_guided_new(plan), a, NULL);
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

/* Pass 3: the best's switches anchored on each thread's progress
 * (guided_switches.h), with preemptions left out: the others stay at the
 * same places in their threads' code, where pass 2's edit of a choice list
 * moves every later switch (bank_deadlock's lock-order cycle stayed at 6
 * preemptions there; 1 is enough). First one preemption is left out at a
 * time (and, if that is not enough, also with the free switch that chose
 * the preempted thread choosing the one it switched to instead), walking on
 * from the same place of the list kept, until a whole walk keeps none. Then
 * only m of them are kept, for m = 0, 1, ... below what is left, every such
 * choice in order, while the choices of m fit in half the re-executions
 * left: two preemptions may be needless together and not alone (broken
 * Peterson: 5 -> 3 this way, where one at a time stopped at 5).
 * A plan counts only when it fails the same way with fewer preemptions.
 * Not for lists of more switches than MAX_ANCHORED_SWITCHES (2 MB a list):
 * a long failure's free switches can be millions. */
enum { MAX_ANCHORED_SWITCHES = 65536 };

struct anchored {
    struct guided_switches best;    /* the switches of k->best */
    struct guided_switches plan;
};

/* Runs plan; a better result becomes k->best and its switches a->best. */
static bool try_switches(struct shrinker *k, struct anchored *an, bool *kept)
{
    *kept = false;
    struct attempt a;
    struct guided_switches made = {0};
    if (!run_guided(k, strategy_guided_new_switches(&an->plan, &k->best.choices), &a, &made)) {
        guided_switches_free(&made);
        return false;
    }
    if (better(&a, &k->best) && a.preemptions < k->best.preemptions && made.n <= MAX_ANCHORED_SWITCHES) {
        attempt_free(&k->best);
        k->best = a;
        guided_switches_free(&an->best);
        an->best = made;
        *kept = true;
        return true;
    }
    attempt_free(&a);
    guided_switches_free(&made);
    return true;
}

static bool drop_one_anchored(struct shrinker *k, struct anchored *an)
{
    for (bool changed = true; changed && budget_left(k);) {
        changed = false;
        for (size_t j = 0; j < an->best.n && k->best.preemptions > 0 && budget_left(k); j++) {
            if (!an->best.at[j].preempted)
                continue;
            guided_switches_copy_without(&an->plan, &an->best, j);
            bool kept;
            if (!try_switches(k, an, &kept))
                return false;
            /* Or the thread it switched to chosen instead at the free
             * switch that chose the thread it preempted (bank_deadlock: the
             * teller that goes first decides the cycle). */
            size_t i = j;
            while (!kept && i-- > 0)
                if (an->best.at[i].kind == CHOICE_THREAD && !an->best.at[i].preempted &&
                    an->best.at[i].to == an->best.at[j].from)
                    break;
            if (!kept && i < j && an->best.at[i].from != an->best.at[j].to) {
                guided_switches_copy_without(&an->plan, &an->best, j);
                an->plan.at[i].to = an->best.at[j].to;
                if (!try_switches(k, an, &kept))
                    return false;
            }
            if (kept) {
                changed = true;
                j--;        /* the same place of the new list: the next preemption */
            }
        }
    }
    return true;
}

/* n choose m, or limit when that is more. */
static uint64_t choose_capped(uint64_t n, uint64_t m, uint64_t limit)
{
    uint64_t c = 1;
    for (uint64_t i = 0; i < m; i++) {
        c = c * (n - i) / (i + 1);
        if (c > limit)
            return limit + 1;
    }
    return c;
}

static void keep_few_anchored(struct shrinker *k, struct anchored *an)
{
    uint64_t stop = k->out->runs + (k->max_runs - k->out->runs) / 2;
    size_t *keep = NULL;
    for (size_t m = 0; budget_left(k) && k->out->runs < stop;) {
        size_t p = guided_switches_preemptions(&an->best);
        if (m >= k->best.preemptions || m >= p ||
            choose_capped(p, m, stop - k->out->runs) > stop - k->out->runs)
            break;
        keep = realloc(keep, (m + 1) * sizeof *keep);
        if (!keep)
            abort();
        for (size_t i = 0; i < m; i++)
            keep[i] = i;
        bool kept = false;
        for (bool more = true; more && !kept && budget_left(k);) {
            guided_switches_copy_keeping(&an->plan, &an->best, keep, m);
            if (!try_switches(k, an, &kept))
                goto out;
            /* The next choice of m of p in order. */
            size_t i = m;
            while (i > 0 && keep[i - 1] == p - m + i - 1)
                i--;
            more = i > 0;
            if (more) {
                keep[i - 1]++;
                for (size_t j = i; j < m; j++)
                    keep[j] = keep[j - 1] + 1;
            }
        }
        m = kept ? 0 : m + 1;   /* a new list: its own choices from the fewest */
    }
out:
    free(keep);
}

static void drop_anchored_preemptions(struct shrinker *k)
{
    if (k->best.preemptions == 0 || !budget_left(k))
        return;
    struct anchored an = {0};
    struct attempt a;
    struct strategy *recorder = strategy_guided_new(&k->best.choices);
    strategy_guided_record_switches(recorder, false);
    bool go = run_guided(k, recorder, &a, &an.best) && a.fails && an.best.n <= MAX_ANCHORED_SWITCHES;
    attempt_free(&a);
    if (go && drop_one_anchored(k, &an))
        keep_few_anchored(k, &an);
    guided_switches_free(&an.best);
    guided_switches_free(&an.plan);
}

/* Pass 6: every other candidate of every choice, for fewer steps. */
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
    b->follows = k->original;
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

/* Runs dfs (bounded below the best's preemptions) until it ends, finds
 * no preemption left to remove, or the re-executions reach stop; its
 * schedules that fail the same way are re-run as plans and kept when they
 * have fewer preemptions as the guided strategy counts them (which is what
 * the file shows). */
static void search_with(struct shrinker *k, struct strategy *dfs, uint64_t stop)
{
    for (bool more = true; more && k->out->runs < stop && budget_left(k);) {
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
        bool kept = same && try_plan(k, &hit);
        choice_list_free(&hit);
        if (kept && k->best.preemptions == 0)
            break;
        more = dfs->ops->advance(dfs);
    }
}

/* Pass 5: a preemption-bounded dfs (below the best's) that preempts a
 * thread only where one of the best's preemptions did, before the same
 * instruction: the places a failure needs are nearly always there, and the
 * search among them is small (a broken Peterson lock's two preemptions,
 * which swap the threads' roles of the 3-preemption schedule that edits
 * reach: 510 executions of the plain dfs at bound 2, tens here). Its
 * schedules come fewest departures from round robin first, free choices
 * counted, and a thread it preempted waits for the others at free choices
 * (strategy_dfs.c: shrink_lock_cycle's one preemption needs a free choice
 * after it). At most half the re-executions left. */
static void search_at_places(struct shrinker *k)
{
    if (k->best.preemptions == 0 || !budget_left(k))
        return;
    struct attempt a;
    struct guided_switches sw = {0};
    struct strategy *recorder = strategy_guided_new(&k->best.choices);
    strategy_guided_record_switches(recorder, true);
    bool go = run_guided(k, recorder, &a, &sw) && a.fails;
    attempt_free(&a);
    uint64_t *pcs = malloc((sw.n ? sw.n : 1) * sizeof *pcs);
    if (!pcs)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < sw.n; i++) {
        size_t j = 0;
        while (j < n && pcs[j] != sw.at[i].pc)
            j++;
        if (sw.at[i].preempted && sw.at[i].pc && j == n)
            pcs[n++] = sw.at[i].pc;
    }
    if (go && n > 0) {
        struct strategy *dfs = strategy_dfs_new_at((int)(k->best.preemptions - 1), pcs, n);
        dfs->follows = k->original;
        search_with(k, dfs, k->out->runs + (k->max_runs - k->out->runs) / 2);
        strategy_free(dfs);
    }
    free(pcs);
    guided_switches_free(&sw);
}

/* Pass 7: the fewest preemptions by search rather than by edits. dfs
 * raises its bound one at a time, so its first schedule that fails the same
 * way has the fewest preemptions it can find below the best's. */
static void search_fewer_preemptions(struct shrinker *k)
{
    if (k->best.preemptions == 0 || !budget_left(k))
        return;
    struct strategy *dfs = strategy_dfs_new(DFS_PREEMPTIONS, (int)(k->best.preemptions - 1));
    dfs->follows = k->original;
    search_with(k, dfs, UINT64_MAX);
    strategy_free(dfs);
}

bool shrink_failure(struct program *prog, const struct explore_options *opt, uint64_t index,
                    const struct choice_list *original, enum failure_kind kind, const char *location,
                    struct shrink_outcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint64_t t0 = monotonic_ns();
    struct shrinker k = {
        .prog = prog, .opt = opt, .index = index, .kind = kind, .location = location, .out = out, .original = original,
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
        drop_anchored_preemptions(&k);
        walk_one_preemption(&k);
        search_at_places(&k);
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
