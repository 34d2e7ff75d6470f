/* strategy_interactive: a person, or a program acting for one, chooses.
 *
 * Going back in time is re-execution: for steps before the rewind point the
 * recorded choices are followed without asking (through a replay strategy,
 * so a prefix that no longer fits says why), from there on the chooser is
 * asked before every step and at every wake-up that has a choice. The chooser
 * may hand over to another strategy (run on with random or PCT) or stop. */
#include "supervisor/strategies/strategies.h"

#include <stdio.h>
#include <stdlib.h>

struct interactive_state {
    struct chooser chooser;
    struct choice_list prefix;      /* owned copy */
    uint64_t until;                 /* follow the prefix for steps before this */
    struct strategy *replay;        /* over prefix */
    struct strategy *delegate;      /* not owned; NULL: ask the chooser */
    struct choice_list made;        /* this execution's choices so far */
};

static void interactive_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct interactive_state *st = s->state;
    s->diverged = false;
    s->stop = false;
    st->delegate = NULL;
    choice_list_truncate(&st->made, 0);
    st->replay->ops->begin(st->replay, exec_seed, estimated_steps);
}

/* The index of id in cp->threads; an id that is not there stops the run. */
static size_t index_of(struct strategy *s, const struct choice_point *cp, int id)
{
    for (size_t i = 0; i < cp->n; i++)
        if (cp->threads[i] == id)
            return i;
    s->stop = true;
    return 0;
}

static size_t pick(struct strategy *s, const struct choice_point *cp, bool waiter)
{
    struct interactive_state *st = s->state;
    if (s->stop)
        return 0;
    if (cp->step < st->until) {
        if (cp->n <= 1)
            return 0;
        size_t i = waiter ? st->replay->ops->pick_waiter(st->replay, cp) : st->replay->ops->pick_thread(st->replay, cp);
        if (st->replay->diverged) {
            s->diverged = true;
            snprintf(s->divergence, sizeof s->divergence, "%s", st->replay->divergence);
        }
        return i;
    }
    if (st->delegate)
        return waiter ? st->delegate->ops->pick_waiter(st->delegate, cp) : st->delegate->ops->pick_thread(st->delegate, cp);
    int id = waiter ? st->chooser.waiter(st->chooser.ctx, cp) : st->chooser.thread(st->chooser.ctx, cp);
    if (id == 0) {
        s->stop = true;
        return 0;
    }
    /* The chooser may have handed over while answering. */
    return index_of(s, cp, id);
}

/* Records what was picked the way the execution does (only real choices),
 * so that the caller can see them before the execution ends. */
static size_t choose(struct strategy *s, const struct choice_point *cp, bool waiter)
{
    struct interactive_state *st = s->state;
    size_t i = pick(s, cp, waiter);
    if (cp->n > 1 && !s->stop && i < cp->n)
        choice_list_add(&st->made, cp->step, waiter ? CHOICE_WAKE : CHOICE_THREAD, cp->threads[i]);
    return i;
}

static size_t interactive_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    return choose(s, cp, false);
}

static size_t interactive_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    return choose(s, cp, true);
}

static void interactive_thread_created(struct strategy *s, int thread)
{
    struct interactive_state *st = s->state;
    if (st->delegate)
        st->delegate->ops->thread_created(st->delegate, thread);
}

static void interactive_destroy(struct strategy *s)
{
    struct interactive_state *st = s->state;
    strategy_free(st->replay);
    choice_list_free(&st->prefix);
    choice_list_free(&st->made);
    free(st);
}

static const struct strategy_ops interactive_ops = {
    .name = "interactive",
    .begin = interactive_begin,
    .pick_thread = interactive_pick_thread,
    .pick_waiter = interactive_pick_waiter,
    .thread_created = interactive_thread_created,
    .destroy = interactive_destroy,
};

struct strategy *strategy_interactive_new(const struct chooser *chooser)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct interactive_state *st = calloc(1, sizeof *st);
    if (!s || !st)
        abort();
    st->chooser = *chooser;
    st->replay = strategy_replay_new(&st->prefix);
    s->ops = &interactive_ops;
    s->state = st;
    s->every_step = true;
    s->wants_state = true;
    return s;
}

void strategy_interactive_rewind(struct strategy *s, const struct choice_list *prefix, uint64_t until)
{
    struct interactive_state *st = s->state;
    choice_list_truncate(&st->prefix, 0);
    for (size_t i = 0; i < prefix->n; i++) {
        struct choice c = choice_list_at(prefix, i);
        if (c.step < until)
            choice_list_add(&st->prefix, c.step, c.kind, c.thread);
    }
    st->until = until;
}

void strategy_interactive_delegate(struct strategy *s, struct strategy *auto_strategy)
{
    struct interactive_state *st = s->state;
    st->delegate = auto_strategy;
}

void strategy_interactive_ask_from(struct strategy *s, uint64_t step)
{
    struct interactive_state *st = s->state;
    if (step < st->until)
        st->until = step;
}

const struct choice_list *strategy_interactive_made(const struct strategy *s)
{
    const struct interactive_state *st = s->state;
    return &st->made;
}
