/* strategy_bounded: preemption-bounded search (CHESS's iterative context
 * bounding, Musuvathi and Qadeer, PLDI 2007) made a function of its turn
 * (strategy_bounded_set_turn), so that it can take turns in the portfolio
 * (where execution i must stay a function of (seed, i) under any -j and
 * shard: the portfolio gives it i / 8) and walk for shrinking.
 *
 * Every execution follows the default schedule (the thread that ran last
 * goes on; when it cannot, the next by id after it) except at the points
 * where it preempts. Up to its first preemption an execution does what
 * every other one does, so the preemptions on offer there can be numbered
 * by walking the default schedule: at each choice point where the last
 * thread could go on, one per class of the other candidates, a class being
 * the threads whose next operation is the same (kind and instruction, and
 * for threads not yet started the routine they start in).
 * Without classes a program of a hundred alike threads offers a hundred
 * alike preemptions at every point; the bugs SCTBench's twostage_100 and
 * reorder_10 hide need one preemption at one place to the one thread that
 * differs, which the classes make the second choice of the point.
 *
 * A program's loops make most offers repeat one made before: main
 * creating its hundredth thread offers what it offered at its first, and
 * the hundredth alike worker what the first did. So two walks take turns:
 * one through the novel offers only (the first at each pair of the last
 * thread's next operation and the class offered), which reaches the
 * interesting places of a program of many alike threads in tens of
 * executions, and one through all of them.
 *
 * Turn 0 runs the default schedule; turn m >= 1 preempts at offer
 * (m - 1) / 2 of the novel walk when m is odd, of the whole walk when even
 * (every schedule with one preemption, in order from the start, while
 * there are that many offers); past L offers, executions preempt once or
 * twice at offers drawn from the execution's seed. L is twice the choice
 * points execution 0 took (strategy_profile), or FALLBACK_OFFERS without
 * a profile: a walk that has run out of offers before L runs the default
 * schedule again until then.
 *
 * A thread that yields, sleeps or has run SPIN_LIMIT choice points in a row
 * while others could run is switched away from for free, as strategy_dfs
 * does, so that spin loops end. Waiter choices take the first waiter. */
#include "supervisor/strategies/rng.h"
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

enum { SPIN_LIMIT = STRATEGY_SPIN_LIMIT, MAX_PREEMPTIONS = 2, FALLBACK_OFFERS = 1000 };

struct bounded_state {
    uint64_t member_index;      /* the turn */
    uint64_t profile_points;    /* choice points of execution 0 (0: no profile) */
    /* This execution. */
    struct rng rng;
    uint64_t offer[MAX_PREEMPTIONS];    /* offers to pass before each preemption */
    size_t n_offers, next;
    bool novel_only;            /* the first preemption counts novel offers only */
    uint64_t *seen;             /* offers made (keys, 0 empty), open addressing */
    size_t cap_seen, n_seen;
    int run_thread;
    uint64_t run_length;
};

void strategy_bounded_set_turn(struct strategy *s, uint64_t turn)
{
    struct bounded_state *b = s->state;
    b->member_index = turn;
}

static uint64_t offers_limit(const struct bounded_state *b)
{
    return b->profile_points ? 2 * b->profile_points + 2 : FALLBACK_OFFERS;
}

static void bounded_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct bounded_state *b = s->state;
    rng_seed(&b->rng, exec_seed);
    b->n_offers = 0;
    b->next = 0;
    b->run_thread = 0;
    b->run_length = 0;
    b->novel_only = false;
    if (b->seen)
        memset(b->seen, 0, b->cap_seen * sizeof *b->seen);
    b->n_seen = 0;
    uint64_t limit = offers_limit(b);
    if (b->member_index == 0)
        return;
    uint64_t k = (b->member_index - 1) / 2;
    if (k < limit) {
        b->novel_only = b->member_index % 2 == 1;
        b->offer[b->n_offers++] = k;
        return;
    }
    size_t n = 1 + (size_t)rng_below(&b->rng, MAX_PREEMPTIONS);
    for (size_t i = 0; i < n; i++)
        b->offer[b->n_offers++] = rng_below(&b->rng, i == 0 ? limit : limit / 2 + 1);
}

/* Whether candidates i and j would do the same next. */
static bool same_class(const struct choice_point *cp, size_t i, size_t j)
{
    const struct visible_op *x = &cp->ops[i], *y = &cp->ops[j];
    if (x->kind != y->kind || x->pc != y->pc)
        return false;
    return x->kind != VIS_START || x->addr == y->addr;
}

/* Candidates other than the previous thread, by id cyclically after it. */
static size_t others_in_turn(const struct choice_point *cp, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] != cp->previous)
            order[n++] = i;
    /* Distance after previous, as unsigned: ids above it first, ascending. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            unsigned a = (unsigned)(cp->threads[order[j - 1]] - cp->previous - 1);
            unsigned c = (unsigned)(cp->threads[order[j]] - cp->previous - 1);
            if (a <= c)
                break;
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return n;
}

/* The first of each class among order's candidates, in order. */
static size_t class_leaders(const struct choice_point *cp, const size_t *order, size_t n, size_t *leader)
{
    size_t n_leaders = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < n_leaders && !seen; k++)
            seen = same_class(cp, leader[k], order[i]);
        if (!seen)
            leader[n_leaders++] = order[i];
    }
    return n_leaders;
}

bool strategy_bounded_preempted(const struct strategy *s)
{
    const struct bounded_state *b = s->state;
    return b->next > 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

/* The offer of switching from the last thread (at its next operation
 * last) to candidate c's class. */
static uint64_t offer_key(const struct visible_op *last, const struct visible_op *c)
{
    uint64_t h = mix(mix(mix(0, last->kind), last->pc), c->kind);
    h = mix(mix(h, c->pc), c->kind == VIS_START ? c->addr : 0);
    return h ? h : 1;
}

/* Adds key to the offers made; whether it was new. */
static bool first_seen(struct bounded_state *b, uint64_t key)
{
    if (2 * (b->n_seen + 1) > b->cap_seen) {
        uint64_t *old = b->seen;
        size_t old_cap = b->cap_seen;
        b->cap_seen = old_cap ? 2 * old_cap : 256;
        b->seen = calloc(b->cap_seen, sizeof *b->seen);
        if (!b->seen)
            abort();
        b->n_seen = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                first_seen(b, old[i]);
        free(old);
    }
    size_t mask = b->cap_seen - 1;
    for (size_t i = key & mask;; i = (i + 1) & mask) {
        if (b->seen[i] == key)
            return false;
        if (!b->seen[i]) {
            b->seen[i] = key;
            b->n_seen++;
            return true;
        }
    }
}

static size_t bounded_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct bounded_state *b = s->state;
    size_t prev = cp->n;
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] == cp->previous)
            prev = i;
    bool spinning = b->run_thread == cp->previous && b->run_length >= SPIN_LIMIT;
    bool goes_on = prev < cp->n && !cp->yielded[prev] && !spinning;
    size_t order[cp->n];
    size_t n_others = others_in_turn(cp, order);
    size_t pick = goes_on ? prev : n_others > 0 ? order[0] : 0;
    if (goes_on && n_others > 0 && b->next < b->n_offers && cp->ops) {
        size_t leader[n_others];
        size_t n_leaders = class_leaders(cp, order, n_others, leader);
        if (b->novel_only && b->next == 0) {
            size_t n_novel = 0;
            for (size_t i = 0; i < n_leaders; i++)
                if (first_seen(b, offer_key(&cp->ops[prev], &cp->ops[leader[i]])))
                    leader[n_novel++] = leader[i];
            n_leaders = n_novel;
        }
        if (b->offer[b->next] < n_leaders) {
            pick = leader[b->offer[b->next]];
            b->next++;
        } else {
            b->offer[b->next] -= n_leaders;
        }
    }
    int t = cp->threads[pick];
    if (t == b->run_thread && cp->previous == t)
        b->run_length++;
    else {
        b->run_thread = t;
        b->run_length = 1;
    }
    return pick;
}

static size_t bounded_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    return 0;
}

static void bounded_thread_created(struct strategy *s, int thread)
{
}

static void bounded_use_profile(struct strategy *s, const struct strategy_profile *in)
{
    struct bounded_state *b = s->state;
    uint64_t points = 0;
    for (uint32_t id = 1; id < in->n && id < PROFILE_THREADS; id++)
        points += in->events[id];
    b->profile_points = points;
}

static void bounded_destroy(struct strategy *s)
{
    struct bounded_state *b = s->state;
    free(b->seen);
    free(b);
}

static const struct strategy_ops bounded_ops = {
    .name = "bounded",
    .begin = bounded_begin,
    .pick_thread = bounded_pick_thread,
    .pick_waiter = bounded_pick_waiter,
    .thread_created = bounded_thread_created,
    .destroy = bounded_destroy,
    .use_profile = bounded_use_profile,
};

struct strategy *strategy_bounded_new(void)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct bounded_state *b = calloc(1, sizeof *b);
    s->ops = &bounded_ops;
    s->prefers_progress = true;
    s->wants_ops = true;
    s->state = b;
    return s;
}
