/* strategy_pct: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS
 * 2010). Threads get random distinct priorities; the highest-priority thread
 * that can run always runs; at d-1 random steps the running thread drops to a
 * priority below all initial ones. A bug of depth d is then found with
 * probability at least 1/(n k^(d-1)) per execution.
 *
 * Deviation from the paper, for programs that spin: a thread that yields or
 * sleeps (once per yield), or runs SPIN_LIMIT steps in a row while others
 * could run, drops to the lowest priority so far, so a busy-waiting thread
 * cannot starve the thread it waits for.
 *
 * The depth, given as 0 (--depth auto), is chosen per execution: a bug of
 * depth d costs about n k^(d-1) executions (n threads, k steps, as
 * execution 0 shows: the estimate and strategy_profile), so the depths
 * worth trying are 1..D, D the deepest whose cost the budget of executions
 * affords (at least 1, at most MAX_AUTO_DEPTH); each execution draws one
 * of them. A fixed depth 3 spends an extra change point on a bug of depth
 * 2 (which may break the order the bug needs) and never tries depth 4
 * where 10 steps would afford it; a draw costs a bug of a depth within
 * 1..D a factor D at most against knowing its depth.
 *
 * With hundreds of threads runnable, finding the highest would be most of
 * a step's cost: the candidates are kept in a heap by priority instead,
 * brought up to date from the execution's list of what changed since the
 * last choice (struct choice_point's view). Entries whose thread stopped
 * being a candidate or got another priority are dropped when they come to
 * the top. Any other set of candidates is scanned, and the heap rebuilt at
 * the next choice from the view. */
#include "supervisor/strategies/priority_heap.h"
#include "supervisor/strategies/rng.h"
#include "supervisor/strategies/strategies.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { SPIN_LIMIT = 2000 };
enum { MAX_AUTO_DEPTH = 8 };

struct pct_state {
    struct rng rng;
    int depth;                  /* this execution's */
    int given_depth;            /* 0: chosen per execution */
    uint64_t budget;            /* executions it may run (0: unknown) */
    uint32_t threads;           /* as execution 0 showed (0: not known) */
    int highest_id;             /* of the threads of this execution */
    uint64_t *change_points;    /* sorted steps at which to demote */
    int n_change;
    int next_change;
    int64_t *priority;          /* by thread id */
    bool *yield_demoted;        /* by thread id: demoted for its latest yield, not run since */
    size_t cap;
    int64_t lowest;             /* next demoted priority: below everything */
    int run_thread;             /* thread of the current streak */
    uint64_t run_length;        /* its steps (counted between choices too: --preempt sync asks seldom) */
    uint64_t last_step;         /* the step of the last choice */

    /* The candidates by priority, while heap_valid: view is the choice it
     * reflects, last_pick the thread chosen there. */
    struct priority_heap heap;
    bool *candidate;            /* by slot */
    bool heap_valid;
    uint64_t view;
    int last_pick;
};

/* Threads and, under --memory-model tso, the "flush T" candidates (id -T)
 * share one array: thread T at 2T, flush T at 2T + 1. */
static int slot(int id)
{
    return id >= 0 ? 2 * id : -2 * id + 1;
}

static void grow(struct pct_state *p, int needed_slot)
{
    size_t cap = p->cap ? p->cap : 16;
    while (cap <= (size_t)needed_slot)
        cap *= 2;
    p->priority = realloc(p->priority, cap * sizeof *p->priority);
    p->yield_demoted = realloc(p->yield_demoted, cap * sizeof *p->yield_demoted);
    p->candidate = realloc(p->candidate, cap * sizeof *p->candidate);
    if (!p->priority || !p->yield_demoted || !p->candidate)
        abort();
    memset(p->priority + p->cap, 0, (cap - p->cap) * sizeof *p->priority);
    memset(p->yield_demoted + p->cap, 0, (cap - p->cap) * sizeof *p->yield_demoted);
    memset(p->candidate + p->cap, 0, (cap - p->cap) * sizeof *p->candidate);
    p->cap = cap;
}

/* At every choice, for every candidate: the common case stays inline. */
static inline void ensure_thread(struct pct_state *p, int thread)
{
    if ((size_t)slot(thread) >= p->cap)
        grow(p, slot(thread));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The deepest d with n k^(d-1) <= budget, within 1..MAX_AUTO_DEPTH; 3
 * (the paper's usual) when the budget is not known. */
static int affordable_depth(const struct pct_state *p, uint64_t k)
{
    if (!p->budget)
        return 3;
    uint64_t cost = p->threads > 1 ? p->threads : 2;
    int d = 1;
    while (d < MAX_AUTO_DEPTH && k > 0 && cost <= p->budget / k) {
        cost *= k;
        if (cost > p->budget)
            break;
        d++;
    }
    return d;
}

static void pct_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct pct_state *p = s->state;
    rng_seed(&p->rng, exec_seed);
    p->depth = p->given_depth ? p->given_depth
                              : 1 + (int)rng_below(&p->rng, (uint64_t)affordable_depth(p, estimated_steps));
    if (p->priority) {
        memset(p->priority, 0, p->cap * sizeof *p->priority);
        memset(p->yield_demoted, 0, p->cap * sizeof *p->yield_demoted);
    }
    p->heap_valid = false;
    p->view = 0;
    p->n_change = p->depth > 1 ? p->depth - 1 : 0;
    p->change_points = realloc(p->change_points, ((size_t)p->n_change + 1) * sizeof *p->change_points);
    uint64_t k = estimated_steps > 0 ? estimated_steps : 1;
    for (int i = 0; i < p->n_change; i++)
        p->change_points[i] = 1 + rng_below(&p->rng, k);
    qsort(p->change_points, (size_t)p->n_change, sizeof *p->change_points, cmp_u64);
    p->next_change = 0;
    p->highest_id = 0;
    p->lowest = 0;
    p->run_thread = 0;
    p->run_length = 0;
    p->last_step = 0;
}

static void pct_thread_created(struct strategy *s, int thread)
{
    struct pct_state *p = s->state;
    if (thread > p->highest_id)
        p->highest_id = thread;
    ensure_thread(p, thread);
    /* Random priorities well above the demoted range; ties are broken by the
     * low bits, so with 2^40 values collisions do not matter in practice. */
    p->priority[slot(thread)] = (int64_t)(1 + rng_below(&p->rng, (uint64_t)1 << 40)) * 64;
}

static void push(struct pct_state *p, int thread)
{
    priority_heap_push(&p->heap, p->priority[slot(thread)], thread);
}

static void demote(struct pct_state *p, int thread)
{
    ensure_thread(p, thread);
    p->priority[slot(thread)] = --p->lowest;
    if (p->heap_valid && p->candidate[slot(thread)])
        push(p, thread);
}

static size_t highest(const struct pct_state *p, const struct choice_point *cp)
{
    size_t best = 0;
    for (size_t i = 1; i < cp->n; i++)
        if (p->priority[slot(cp->threads[i])] > p->priority[slot(cp->threads[best])])
            best = i;
    return best;
}

/* Where thread is among the candidates (ids ascending), or n. */
static size_t index_of(const struct choice_point *cp, int thread)
{
    size_t at = ids_slot(cp->threads, cp->n, thread);
    return at < cp->n && cp->threads[at] == thread ? at : cp->n;
}

/* A yield demotes once: demoting a waiting yielder again at every choice
 * would keep reordering the yielders, and the one demoted first would
 * always come out on top of them and starve the others. */
static void demote_yielder(struct pct_state *p, const struct choice_point *cp, size_t i)
{
    int t = cp->threads[i];
    if (cp->yielded[i] && !p->yield_demoted[slot(t)]) {
        demote(p, t);
        p->yield_demoted[slot(t)] = true;
    }
}

static void rebuild(struct pct_state *p, const struct choice_point *cp)
{
    priority_heap_clear(&p->heap);
    memset(p->candidate, 0, p->cap * sizeof *p->candidate);
    for (size_t i = 0; i < cp->n; i++) {
        p->candidate[slot(cp->threads[i])] = true;
        push(p, cp->threads[i]);
    }
    p->heap_valid = true;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The candidates as the last choice left them, changed where the
 * execution says. Yielders are demoted in ascending order, as a scan
 * would; besides the threads listed, only the one picked last can have
 * become a yielder to demote (its demotion was undone when it ran). */
static void follow_changes(struct pct_state *p, const struct choice_point *cp)
{
    int ids[40];
    size_t k = 0;
    for (size_t j = 0; j < cp->n_changed && k < sizeof ids / sizeof *ids - 1; j++)
        ids[k++] = cp->changed[j];
    if (p->last_pick > 0)
        ids[k++] = p->last_pick;
    qsort(ids, k, sizeof *ids, cmp_int);
    for (size_t j = 0; j < k; j++) {
        if (j > 0 && ids[j] == ids[j - 1])
            continue;
        ensure_thread(p, ids[j]);
        size_t i = index_of(cp, ids[j]);
        bool now = i < cp->n;
        if (now && !p->candidate[slot(ids[j])]) {
            p->candidate[slot(ids[j])] = true;
            push(p, ids[j]);
        }
        p->candidate[slot(ids[j])] = now;
        if (now)
            demote_yielder(p, cp, i);
    }
    /* Stale entries pile up under a top that stays: start again now and
     * then (the cost spreads over the pushes that made them). */
    if (p->heap.n > 4 * cp->n + 64)
        rebuild(p, cp);
}

/* The highest-priority candidate, from the heap. */
static size_t top(struct pct_state *p, const struct choice_point *cp)
{
    for (;;) {
        const struct heap_entry *e = priority_heap_top(&p->heap);
        if (p->candidate[slot(e->thread)] && p->priority[slot(e->thread)] == e->priority) {
            size_t i = index_of(cp, e->thread);
            assert(i < cp->n);
            return i;
        }
        priority_heap_pop(&p->heap);
    }
}

static size_t pick_highest(struct pct_state *p, const struct choice_point *cp)
{
    size_t pick = p->heap_valid ? top(p, cp) : highest(p, cp);
    assert(pick == highest(p, cp));
    return pick;
}

static size_t pct_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct pct_state *p = s->state;
    bool follows = p->heap_valid && cp->view && cp->view == p->view + 1 && cp->changed;
    if (follows) {
        follow_changes(p, cp);
    } else {
        p->heap_valid = false;
        for (size_t i = 0; i < cp->n; i++) {
            int t = cp->threads[i];
            ensure_thread(p, t);
            if (t < 0 && p->priority[slot(t)] == 0)
                pct_thread_created(s, t);   /* a flush candidate seen for the first time */
            demote_yielder(p, cp, i);
        }
        if (cp->view)
            rebuild(p, cp);
    }
    p->view = cp->view;
    if (cp->previous > 0 && p->run_thread == cp->previous && p->run_length >= SPIN_LIMIT) {
        demote(p, cp->previous);
        p->run_length = 0;
    }
    size_t pick = pick_highest(p, cp);
    while (p->next_change < p->n_change && cp->step >= p->change_points[p->next_change]) {
        /* The change point hits the thread that would run now. */
        demote(p, cp->threads[pick]);
        p->next_change++;
        pick = pick_highest(p, cp);
    }
    int t = cp->threads[pick];
    p->yield_demoted[slot(t)] = false;
    p->last_pick = t;
    if (t == p->run_thread)
        p->run_length += cp->step > p->last_step + 1 && cp->previous == t ? cp->step - p->last_step : 1;
    else {
        p->run_thread = t;
        p->run_length = 1;
    }
    p->last_step = cp->step;
    return pick;
}

static size_t pct_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct pct_state *p = s->state;
    for (size_t i = 0; i < cp->n; i++)
        ensure_thread(p, cp->threads[i]);
    return highest(p, cp);
}

/* What execution 0 showed, alone (in the portfolio, the portfolio counts):
 * its threads, ids 1..n-1. */
static void pct_learn(struct strategy *s, struct strategy_profile *out)
{
    struct pct_state *p = s->state;
    memset(out, 0, sizeof *out);
    out->filled = true;
    out->n = (uint32_t)(p->highest_id < PROFILE_THREADS ? p->highest_id + 1 : PROFILE_THREADS);
}

/* Execution 0's threads (strategy_profile: ids 1..n-1). */
static void pct_use_profile(struct strategy *s, const struct strategy_profile *in)
{
    struct pct_state *p = s->state;
    p->threads = in->n > 1 ? in->n - 1 : 1;
}

static void pct_destroy(struct strategy *s)
{
    struct pct_state *p = s->state;
    free(p->change_points);
    free(p->priority);
    free(p->yield_demoted);
    free(p->candidate);
    priority_heap_free(&p->heap);
    free(p);
}

static const struct strategy_ops pct_ops = {
    .name = "pct",
    .begin = pct_begin,
    .pick_thread = pct_pick_thread,
    .pick_waiter = pct_pick_waiter,
    .thread_created = pct_thread_created,
    .destroy = pct_destroy,
    .learn = pct_learn,
    .use_profile = pct_use_profile,
};

struct strategy *strategy_pct_new(int depth, uint64_t budget)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct pct_state *p = calloc(1, sizeof *p);
    p->depth = p->given_depth = depth > 0 ? depth : 0;
    p->budget = budget;
    s->ops = &pct_ops;
    s->prefers_progress = true;
    s->state = p;
    return s;
}
