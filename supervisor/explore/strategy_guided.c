/* strategy_guided: follows a plan of choices where the program lets it, and
 * decides alone elsewhere, without preempting; counts the preemptions it
 * makes. Shrinking (shrink.c) runs its candidate schedules with it: a
 * candidate is an edited plan whose later choices no longer fit the steps
 * they were made at, so it matches by choice number, not by step, and
 * never diverges. */
#include "supervisor/explore/strategies.h"

#include <stdlib.h>

struct guided_state {
    const struct choice_list *plan;
    size_t next;                    /* choice points asked so far (n > 1) */
    uint64_t preemptions;
    struct guided_points points;
};

static void guided_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct guided_state *g = s->state;
    g->next = 0;
    g->preemptions = 0;
    guided_points_clear(&g->points);
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

static void note_point(struct guided_state *g, const struct choice_point *cp, char kind, size_t pick)
{
    size_t last = index_of(cp, cp->previous);
    bool preemption = kind == CHOICE_THREAD && cp->threads[pick] > 0 && cp->previous > 0 && last < cp->n &&
                      !cp->yielded[last] && cp->threads[pick] != cp->previous;
    g->preemptions += preemption;
    bool continued = kind == CHOICE_THREAD && cp->threads[pick] == cp->previous;
    guided_points_add(&g->points, preemption, continued, cp->threads, cp->n);
}

static size_t guided_pick(struct strategy *s, const struct choice_point *cp, char kind)
{
    struct guided_state *g = s->state;
    if (cp->n <= 1)
        return 0;
    size_t pick = cp->n;
    struct choice planned = g->next < g->plan->n ? choice_list_at(g->plan, g->next) : (struct choice){0};
    if (g->next < g->plan->n && planned.kind == kind && planned.thread != 0)
        pick = index_of(cp, planned.thread);
    if (pick == cp->n)
        pick = unplanned(cp, kind);
    g->next++;
    note_point(g, cp, kind, pick);
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
