/* strategy_dfs: systematic depth-first search of the schedules, bounded by
 * preemptions (CHESS, Musuvathi and Qadeer, PLDI 2007) or by delays (Emmi,
 * Qadeer and Rakamaric, POPL 2011), iteratively: every schedule with bound
 * 0 first, then those with 1, 2, ... until -n executions or the whole space
 * (the SCTBench study, Thomson, Donaldson and Betts, TOPC 2016, found most
 * bugs at bound 0, 1 or 2).
 *
 * A schedule is a prefix of choices followed by the default choice at every
 * later choice point: the thread that ran last goes on (a preemption is to
 * choose another while it could), or when it cannot, the next one by id in
 * round-robin order (a delay is to skip a thread of that order: choosing
 * the k-th after the default costs k delays). Each execution, at every
 * choice point past the prefix it followed, writes down the alternatives
 * with what they would cost; those within the bound go on a stack (depth
 * first), the others wait for a larger bound. Every schedule is thus run
 * once: it is generated only as the alternative at its last non-default
 * choice. A thread that yields, sleeps or has run SPIN_LIMIT choice points
 * in a row while others could run may be switched away from for free, as
 * CHESS's fair scheduler does, so that spin loops end.
 *
 * Waiter choices (which of several waiters a wake releases) cost nothing and
 * are all explored. The choices are followed by thread id, so a program
 * that does the same under the same choices is searched exactly.
 *
 * Preempting only at given instructions (strategy_dfs_new_at, shrinking's
 * search near a failure) also changes the order of the schedules and what
 * they do by default: a free choice other than the default counts one, as
 * a preemption does, in the bound that rises (the bound given still counts
 * preemptions alone), and a thread preempted is held back, the default at
 * a free choice passing it over while another can run, until it runs again.
 * Near a failure the few deviations matter, of whatever kind: free choices
 * at no cost make every combination of them a schedule of bound 0, which
 * is all the search could afford before its first preemption (73 of them
 * in shrink_lock_cycle). And a preemption is there to let the others go
 * ahead: round robin by id gives the processor straight back to the
 * preempted thread when the next one blocks, undoing it (shrink_lock_cycle:
 * the first mover preempted before its second lock for the third, which
 * blocks on the first's account; the second must run next and close the
 * cycle, and round robin chose the first, which takes its lock). */
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

/* The choices of one execution, shared by the alternatives it produced. */
struct dfs_path {
    int refs;
    size_t n;
    int32_t at[];
};

/* A schedule to run: path's first len choices, then alt, then defaults.
 * cost orders the schedules (the bound that rises), capped what max_bound
 * limits: the same but with at_pcs, where cost counts free choices too. */
struct dfs_item {
    struct dfs_path *path;
    uint32_t len;
    int32_t alt;
    uint32_t cost, capped;
};

struct item_list {
    struct dfs_item *at;
    size_t n, cap;
};

struct dfs_state {
    enum dfs_bound kind;
    int max_bound;              /* -1: none */
    uint32_t bound;
    struct item_list stack;     /* within the bound: the next is the last */
    struct item_list later;     /* over it, in the order found */
    struct dfs_item cur;        /* being followed (path NULL: the first execution) */
    /* This execution. */
    int32_t *path;
    size_t n_path, cap_path;
    uint32_t cost, capped;
    struct item_list found;     /* alternatives found (path filled in at the end) */
    int run_thread;
    uint64_t run_length;
    int held_back;              /* preempted and not run since (at_pcs only; 0: none) */
    uint64_t schedules;
    uint64_t *at_pcs;           /* preemptions only before these (NULL: anywhere) */
    size_t n_at_pcs;
};

static void list_push(struct item_list *l, struct dfs_item it)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->at = realloc(l->at, l->cap * sizeof *l->at);
        if (!l->at)
            abort();
    }
    l->at[l->n++] = it;
}

static void path_release(struct dfs_path *p)
{
    if (p && --p->refs == 0)
        free(p);
}

static void record(struct dfs_state *d, int32_t id)
{
    if (d->n_path == d->cap_path) {
        d->cap_path = d->cap_path ? 2 * d->cap_path : 256;
        d->path = realloc(d->path, d->cap_path * sizeof *d->path);
        if (!d->path)
            abort();
    }
    d->path[d->n_path++] = id;
}

static void dfs_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct dfs_state *d = s->state;
    d->n_path = 0;
    d->cost = d->cur.cost;
    d->capped = d->cur.capped;
    d->found.n = 0;
    d->run_thread = 0;
    d->run_length = 0;
    d->held_back = 0;
}

/* The choice the prefix prescribes at this point, or -1 past it. */
static int32_t prescribed(const struct dfs_state *d)
{
    size_t k = d->n_path;
    if (!d->cur.path)
        return -1;
    if (k < d->cur.len)
        return d->cur.path->at[k];
    return k == d->cur.len ? d->cur.alt : -1;
}

static size_t index_of(const struct choice_point *cp, int32_t id)
{
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] == id)
            return i;
    return cp->n;
}

/* Candidate positions in round-robin order from the default: order[0] is
 * the default, order[k] costs k delays (or one preemption when the last
 * thread could go on). */
static size_t round_robin(const struct choice_point *cp, bool previous_goes_on, size_t *order)
{
    /* Sorted by id, starting at the first id >= previous (> when it cannot
     * go on: the next one after it). */
    size_t n = cp->n;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cp->threads[order[j - 1]] > cp->threads[order[j]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    size_t start = 0;
    while (start < n && (previous_goes_on ? cp->threads[order[start]] < cp->previous
                                          : cp->threads[order[start]] <= cp->previous))
        start++;
    if (start == n)
        start = 0;
    size_t rotated[n];
    for (size_t k = 0; k < n; k++)
        rotated[k] = order[(start + k) % n];
    memcpy(order, rotated, n * sizeof *order);
    return n;
}

/* A preemption of the thread at entry prev may be offered here. */
static bool preempts_here(const struct dfs_state *d, const struct choice_point *cp, size_t prev)
{
    if (!d->at_pcs)
        return true;
    if (!cp->ops || prev >= cp->n)
        return false;
    for (size_t i = 0; i < d->n_at_pcs; i++)
        if (d->at_pcs[i] == cp->ops[prev].pc)
            return true;
    return false;
}

static size_t dfs_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct dfs_state *d = s->state;
    size_t prev = index_of(cp, cp->previous);
    bool spinning = d->run_thread == cp->previous && d->run_length >= STRATEGY_SPIN_LIMIT;
    bool goes_on = prev < cp->n && !cp->yielded[prev] && !spinning;
    size_t order[cp->n];
    round_robin(cp, goes_on, order);
    if (d->at_pcs && !goes_on && cp->n > 1 && cp->threads[order[0]] == d->held_back) {
        size_t first = order[0];
        memmove(order, order + 1, (cp->n - 1) * sizeof *order);
        order[cp->n - 1] = first;
    }
    int32_t want = prescribed(d);
    size_t pick = want >= 0 ? index_of(cp, want) : cp->n;
    if (pick == cp->n) {
        pick = order[0];
        if (want < 0 && (!goes_on || d->kind != DFS_PREEMPTIONS || preempts_here(d, cp, prev))) {
            for (size_t k = cp->n; k-- > 1;) {
                uint32_t c = d->kind == DFS_DELAYS ? (uint32_t)k : goes_on ? 1 : 0;
                uint32_t ordered = d->at_pcs ? 1 : c;
                list_push(&d->found, (struct dfs_item){NULL, (uint32_t)d->n_path, cp->threads[order[k]],
                                                        d->cost + ordered, d->capped + c});
            }
        }
    }
    int t = cp->threads[pick];
    if (goes_on && t != cp->previous)
        d->held_back = cp->previous;
    else if (t == d->held_back)
        d->held_back = 0;
    if (t == d->run_thread && cp->previous == t)
        d->run_length++;
    else {
        d->run_thread = t;
        d->run_length = 1;
    }
    record(d, t);
    return pick;
}

static size_t dfs_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct dfs_state *d = s->state;
    int32_t want = prescribed(d);
    size_t pick = want >= 0 ? index_of(cp, want) : cp->n;
    if (pick == cp->n) {
        pick = 0;
        if (want < 0)
            for (size_t k = cp->n; k-- > 1;)
                list_push(&d->found, (struct dfs_item){NULL, (uint32_t)d->n_path, cp->threads[k], d->cost, d->capped});
    }
    record(d, cp->threads[pick]);
    return pick;
}

static bool dfs_advance(struct strategy *s)
{
    struct dfs_state *d = s->state;
    d->schedules++;
    if (d->found.n > 0) {
        struct dfs_path *p = malloc(sizeof *p + d->n_path * sizeof p->at[0]);
        if (!p)
            abort();
        p->refs = (int)d->found.n + 1;
        p->n = d->n_path;
        memcpy(p->at, d->path, d->n_path * sizeof *d->path);
        /* Shallow ones first onto the stack: the deepest is tried next. */
        for (size_t i = d->found.n; i-- > 0;) {
            struct dfs_item it = d->found.at[i];
            it.path = p;
            if (d->max_bound >= 0 && it.capped > (uint32_t)d->max_bound)
                path_release(p);    /* never: over the user's bound */
            else
                list_push(it.cost <= d->bound ? &d->stack : &d->later, it);
        }
        path_release(p);
    }
    d->found.n = 0;
    path_release(d->cur.path);
    d->cur = (struct dfs_item){0};
    if (d->stack.n == 0 && d->later.n > 0) {
        uint32_t least = d->later.at[0].cost;
        for (size_t i = 1; i < d->later.n; i++)
            if (d->later.at[i].cost < least)
                least = d->later.at[i].cost;
        d->bound = least;
        size_t keep = 0;
        /* Pushed in reverse so that they are run in the order found. */
        for (size_t i = d->later.n; i-- > 0;)
            if (d->later.at[i].cost <= d->bound)
                list_push(&d->stack, d->later.at[i]);
        for (size_t i = 0; i < d->later.n; i++)
            if (d->later.at[i].cost > d->bound)
                d->later.at[keep++] = d->later.at[i];
        d->later.n = keep;
    }
    if (d->stack.n == 0)
        return false;
    d->cur = d->stack.at[--d->stack.n];
    return true;
}

static bool dfs_search_state(const struct strategy *s, uint64_t *classes, int *bound)
{
    const struct dfs_state *d = s->state;
    *classes = d->schedules;
    *bound = (int)d->bound;
    return true;
}

static void dfs_thread_created(struct strategy *s, int thread)
{
}

static void free_items(struct item_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        path_release(l->at[i].path);
    free(l->at);
}

static void dfs_destroy(struct strategy *s)
{
    struct dfs_state *d = s->state;
    free_items(&d->stack);
    free_items(&d->later);
    free(d->found.at);
    path_release(d->cur.path);
    free(d->path);
    free(d->at_pcs);
    free(d);
}

static const struct strategy_ops dfs_ops = {
    .name = "dfs",
    .begin = dfs_begin,
    .pick_thread = dfs_pick_thread,
    .pick_waiter = dfs_pick_waiter,
    .thread_created = dfs_thread_created,
    .destroy = dfs_destroy,
    .advance = dfs_advance,
    .search_state = dfs_search_state,
};

struct strategy *strategy_dfs_new(enum dfs_bound kind, int max_bound)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct dfs_state *d = calloc(1, sizeof *d);
    d->kind = kind;
    d->max_bound = max_bound;
    s->ops = &dfs_ops;
    s->prefers_progress = true;
    s->state = d;
    return s;
}

struct strategy *strategy_dfs_new_at(int max_preemptions, const uint64_t *pcs, size_t n)
{
    struct strategy *s = strategy_dfs_new(DFS_PREEMPTIONS, max_preemptions);
    struct dfs_state *d = s->state;
    d->at_pcs = malloc((n ? n : 1) * sizeof *d->at_pcs);
    if (!d->at_pcs)
        abort();
    if (n)
        memcpy(d->at_pcs, pcs, n * sizeof *pcs);
    d->n_at_pcs = n;
    s->wants_ops = true;
    return s;
}
