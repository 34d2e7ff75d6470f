/* strategy_pos: Partial Order Sampling (Yuan, Yang, Gu, CAV 2018).
 *
 * Every pending event (a thread's next visible operation) carries a random
 * priority; the enabled event with the highest priority runs. After a step,
 * the pending events that race with the one just executed (the same memory
 * with at least one write, or the same sync object: visible_ops_conflict)
 * draw new priorities, and the thread that ran draws one for its next
 * event. Events that do not race keep theirs, which is what makes POS
 * sample partial orders far more evenly than a random walk: an independent
 * event is not delayed or hurried by steps it does not interact with.
 *
 * mdat asks only at choice points, so "the thread ran" is known as "it was
 * the previous thread or its pending operation is not the one we saw".
 * Under --memory-model tso the "flush T" candidates (negative ids) are
 * events like the others (their operation is the store that drains). */
#include "supervisor/strategies/rng.h"
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

struct pos_event {
    bool seen;
    struct visible_op op;   /* the pending operation its priority belongs to */
    uint64_t priority;
};

struct pos_state {
    struct rng rng;
    struct pos_event *ev;   /* by slot (thread T at 2T, flush T at 2T + 1) */
    size_t cap;
};

static size_t slot(int id)
{
    return id >= 0 ? 2 * (size_t)id : 2 * (size_t)-id + 1;
}

static struct pos_event *event_of(struct pos_state *p, int id)
{
    size_t i = slot(id);
    if (i >= p->cap) {
        size_t cap = p->cap ? p->cap : 16;
        while (cap <= i)
            cap *= 2;
        p->ev = realloc(p->ev, cap * sizeof *p->ev);
        if (!p->ev)
            abort();
        memset(p->ev + p->cap, 0, (cap - p->cap) * sizeof *p->ev);
        p->cap = cap;
    }
    return &p->ev[i];
}

static bool same_op(const struct visible_op *a, const struct visible_op *b)
{
    return a->kind == b->kind && a->addr == b->addr && a->pc == b->pc && a->size == b->size;
}

static void pos_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct pos_state *p = s->state;
    rng_seed(&p->rng, exec_seed);
    if (p->ev)
        memset(p->ev, 0, p->cap * sizeof *p->ev);
}

static void redraw(struct pos_state *p, struct pos_event *e, const struct visible_op *op)
{
    e->seen = true;
    e->op = *op;
    e->priority = rng_next(&p->rng);
}

static size_t pos_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct pos_state *p = s->state;
    static const struct visible_op none = {.kind = VIS_START, .fn = -1};
    for (size_t i = 0; i < cp->n; i++) {
        const struct visible_op *op = cp->ops ? &cp->ops[i] : &none;
        struct pos_event *e = event_of(p, cp->threads[i]);
        /* A new pending event: the thread ran since we last looked. */
        if (!e->seen || cp->threads[i] == cp->previous || !same_op(&e->op, op))
            redraw(p, e, op);
    }
    size_t best = 0;
    for (size_t i = 1; i < cp->n; i++)
        if (event_of(p, cp->threads[i])->priority > event_of(p, cp->threads[best])->priority)
            best = i;
    /* The chosen event runs now: the pending events racing with it are
     * re-drawn (its own thread draws when its next event shows up). */
    if (cp->ops)
        for (size_t i = 0; i < cp->n; i++)
            if (i != best && visible_ops_conflict(&cp->ops[best], &cp->ops[i]))
                redraw(p, event_of(p, cp->threads[i]), &cp->ops[i]);
    return best;
}

static size_t pos_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct pos_state *p = s->state;
    return (size_t)rng_below(&p->rng, cp->n);
}

static void pos_thread_created(struct strategy *s, int thread)
{
}

static void pos_destroy(struct strategy *s)
{
    struct pos_state *p = s->state;
    free(p->ev);
    free(p);
}

static const struct strategy_ops pos_ops = {
    .name = "pos",
    .begin = pos_begin,
    .pick_thread = pos_pick_thread,
    .pick_waiter = pos_pick_waiter,
    .thread_created = pos_thread_created,
    .destroy = pos_destroy,
};

struct strategy *strategy_pos_new(void)
{
    struct strategy *s = calloc(1, sizeof *s);
    s->ops = &pos_ops;
    s->prefers_progress = true;
    s->state = calloc(1, sizeof(struct pos_state));
    s->wants_ops = true;
    return s;
}

uint64_t strategy_pos_priority(const struct strategy *s, int thread)
{
    struct pos_state *p = s->state;
    size_t i = slot(thread);
    return i < p->cap && p->ev[i].seen ? p->ev[i].priority : 0;
}
