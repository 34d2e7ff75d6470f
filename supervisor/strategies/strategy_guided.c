/* strategy_guided: follows a plan of choices where the program lets it, and
 * decides alone elsewhere, without preempting; counts the preemptions it
 * makes. Shrinking (shrink.c) runs its candidate schedules with it: a
 * candidate is an edited plan whose later choices no longer fit the steps
 * they were made at, so it matches by choice number, not by step, and
 * never diverges.
 *
 * Or it follows switches anchored on each thread's own progress
 * (guided_switches.h), and can write down its own. A thread's progress is
 * the steps it ran, as far as choice points show them: the step after a
 * thread choice is its pick's, the rest before the next choice point are
 * counted to the thread that ran the last of them (exact when one thread
 * ran alone there, which is what happens between choice points). */
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

struct guided_state {
    const struct choice_list *plan;
    const struct guided_switches *switch_plan;  /* instead of plan */
    size_t next;                    /* choice points asked so far (n > 1) */
    uint64_t preemptions;
    struct guided_points points;
    int run_thread;                 /* picked at the last choice points in a row */
    uint64_t run_length;
    /* Progress, kept when switches are followed or written down. */
    bool record;
    struct guided_switches made;
    bool *used;                     /* per switch_plan entry: followed already */
    size_t *by_key;                 /* switch_plan's entries by (from, at, kind), then in order */
    uint64_t *progress;             /* by thread id */
    size_t cap_progress;
    uint64_t last_step;
    int last_pick;                  /* the thread whose step comes next (0: none) */
};

static void guided_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct guided_state *g = s->state;
    g->next = 0;
    g->preemptions = 0;
    guided_points_clear(&g->points);
    g->run_thread = 0;
    g->run_length = 0;
    g->made.n = 0;
    if (g->switch_plan && g->switch_plan->n)
        memset(g->used, 0, g->switch_plan->n * sizeof *g->used);
    if (g->cap_progress)
        memset(g->progress, 0, g->cap_progress * sizeof *g->progress);
    g->last_step = 0;
    g->last_pick = 0;
}

static void add_progress(struct guided_state *g, int thread, uint64_t steps)
{
    if (thread <= 0 || steps == 0)
        return;
    if ((size_t)thread >= g->cap_progress) {
        size_t cap = g->cap_progress ? g->cap_progress : 64;
        while (cap <= (size_t)thread)
            cap *= 2;
        g->progress = realloc(g->progress, cap * sizeof *g->progress);
        if (!g->progress)
            abort();
        memset(g->progress + g->cap_progress, 0, (cap - g->cap_progress) * sizeof *g->progress);
        g->cap_progress = cap;
    }
    g->progress[thread] += steps;
}

/* The progress of the thread that ran last, brought up to this point. */
static uint64_t progress_at(struct guided_state *g, const struct choice_point *cp)
{
    uint64_t gap = cp->step > g->last_step ? cp->step - g->last_step : 0;
    if (gap > 0 && g->last_pick > 0) {
        add_progress(g, g->last_pick, 1);
        gap--;
        g->last_pick = 0;
    }
    add_progress(g, cp->previous, gap);
    g->last_step = cp->step > g->last_step ? cp->step : g->last_step;
    return cp->previous > 0 && (size_t)cp->previous < g->cap_progress ? g->progress[cp->previous] : 0;
}

static int compare_key(const struct guided_switch *a, int from, uint64_t at, char kind)
{
    if (a->from != from)
        return a->from < from ? -1 : 1;
    if (a->at != at)
        return a->at < at ? -1 : 1;
    return a->kind == kind ? 0 : a->kind < kind ? -1 : 1;
}

static int by_key_order(const void *pa, const void *pb, void *list)
{
    const struct guided_switches *l = list;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const struct guided_switch *y = &l->at[b];
    int c = compare_key(&l->at[a], y->from, y->at, y->kind);
    return c ? c : a < b ? -1 : a > b;
}

/* The planned switch at (previous, at) not followed yet, or -1: a binary
 * search, since a long execution asks at every choice point. */
static int planned_switch(struct guided_state *g, const struct choice_point *cp, char kind, uint64_t at)
{
    const struct guided_switches *l = g->switch_plan;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_key(&l->at[g->by_key[mid]], cp->previous, at, kind) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < l->n && compare_key(&l->at[g->by_key[lo]], cp->previous, at, kind) == 0; lo++)
        if (!g->used[g->by_key[lo]]) {
            g->used[g->by_key[lo]] = true;
            return l->at[g->by_key[lo]].to;
        }
    return -1;
}

static size_t index_of(const struct choice_point *cp, int thread)
{
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] == thread)
            return i;
    return cp->n;
}

/* Without a plan: the thread that ran last goes on if it can (no
 * preemption), else the first one that can run; a pending store is never
 * flushed by choice (TSO stores wait for a fence or the end). */
static size_t unplanned(const struct choice_point *cp, char kind)
{
    if (kind == CHOICE_THREAD) {
        size_t last = index_of(cp, cp->previous);
        if (cp->previous > 0 && last < cp->n)
            return last;
        for (size_t i = 0; i < cp->n; i++)
            if (cp->threads[i] > 0)
                return i;
    }
    return 0;
}

static void note_point(struct guided_state *g, const struct choice_point *cp, char kind, size_t pick, uint64_t at)
{
    size_t last = index_of(cp, cp->previous);
    bool spinning = (g->run_thread == cp->previous && g->run_length >= STRATEGY_SPIN_LIMIT) ||
                    (cp->spinning && last < cp->n && cp->spinning[last]);
    bool preemption = kind == CHOICE_THREAD && cp->threads[pick] > 0 && cp->previous > 0 && last < cp->n &&
                      !cp->yielded[last] && !spinning && cp->threads[pick] != cp->previous;
    g->preemptions += preemption;
    if (kind == CHOICE_THREAD) {
        int t = cp->threads[pick];
        if (t == g->run_thread && cp->previous == t) {
            g->run_length++;
        } else {
            g->run_thread = t;
            g->run_length = 1;
        }
    }
    bool continued = kind == CHOICE_THREAD && cp->threads[pick] == cp->previous;
    guided_points_add(&g->points, preemption, continued, cp->threads, cp->n);
    if (g->record && (kind == CHOICE_WAKE || !continued))
        guided_switches_add(&g->made, (struct guided_switch){cp->previous, at, cp->threads[pick], kind, preemption,
                                                             preemption && cp->ops ? cp->ops[last].pc : 0});
    if (kind == CHOICE_THREAD)
        g->last_pick = cp->threads[pick];
}

static size_t guided_pick(struct strategy *s, const struct choice_point *cp, char kind)
{
    struct guided_state *g = s->state;
    bool counted = g->record || g->switch_plan;
    uint64_t at = counted ? progress_at(g, cp) : 0;
    if (cp->n <= 1) {
        if (kind == CHOICE_THREAD && counted && cp->n == 1)
            g->last_pick = cp->threads[0];
        return 0;
    }
    size_t pick = cp->n;
    if (g->switch_plan) {
        int to = planned_switch(g, cp, kind, at);
        if (to > 0)
            pick = index_of(cp, to);
    } else {
        struct choice planned = g->next < g->plan->n ? choice_list_at(g->plan, g->next) : (struct choice){0};
        if (g->next < g->plan->n && planned.kind == kind && planned.thread != 0)
            pick = index_of(cp, planned.thread);
    }
    if (pick == cp->n)
        pick = unplanned(cp, kind);
    g->next++;
    note_point(g, cp, kind, pick, at);
    return pick;
}

static size_t guided_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    return guided_pick(s, cp, CHOICE_THREAD);
}

static size_t guided_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    return guided_pick(s, cp, CHOICE_WAKE);
}

static void guided_thread_created(struct strategy *s, int thread)
{
}

static void guided_destroy(struct strategy *s)
{
    struct guided_state *g = s->state;
    guided_points_free(&g->points);
    guided_switches_free(&g->made);
    free(g->used);
    free(g->by_key);
    free(g->progress);
    free(g);
}

static const struct strategy_ops guided_ops = {
    .name = "guided",
    .begin = guided_begin,
    .pick_thread = guided_pick_thread,
    .pick_waiter = guided_pick_waiter,
    .thread_created = guided_thread_created,
    .destroy = guided_destroy,
};

struct strategy *strategy_guided_new(const struct choice_list *plan)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct guided_state *g = calloc(1, sizeof *g);
    if (!s || !g)
        abort();
    g->plan = plan;
    s->ops = &guided_ops;
    s->follows = plan;
    s->counts_spinners = true;

    s->state = g;
    return s;
}

uint64_t strategy_guided_preemptions(const struct strategy *s)
{
    return ((const struct guided_state *)s->state)->preemptions;
}

const struct guided_points *strategy_guided_points(const struct strategy *s)
{
    return &((const struct guided_state *)s->state)->points;
}

struct strategy *strategy_guided_new_switches(const struct guided_switches *plan, const struct choice_list *settings)
{
    struct strategy *s = strategy_guided_new(settings);
    struct guided_state *g = s->state;
    g->switch_plan = plan;
    g->record = true;
    g->used = calloc(plan->n ? plan->n : 1, sizeof *g->used);
    g->by_key = malloc((plan->n ? plan->n : 1) * sizeof *g->by_key);
    if (!g->used || !g->by_key)
        abort();
    for (size_t i = 0; i < plan->n; i++)
        g->by_key[i] = i;
    qsort_r(g->by_key, plan->n, sizeof *g->by_key, by_key_order, (void *)plan);
    return s;
}

void strategy_guided_record_switches(struct strategy *s, bool with_places)
{
    ((struct guided_state *)s->state)->record = true;
    s->wants_ops |= with_places;
}

const struct guided_switches *strategy_guided_switches(const struct strategy *s)
{
    return &((const struct guided_state *)s->state)->made;
}
