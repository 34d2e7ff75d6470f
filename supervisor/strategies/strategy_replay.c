/* strategy_replay: follows the choices of a schedule file, and says so
 * precisely when the execution stops matching them. */
#include "supervisor/strategies/strategies.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct replay_state {
    const struct choice_list *choices;
    size_t next;
};

static void replay_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct replay_state *r = s->state;
    r->next = 0;
    s->diverged = false;
}

static size_t follow(struct strategy *s, const struct choice_point *cp, char kind)
{
    struct replay_state *r = s->state;
    if (s->diverged)
        return 0;
    const char *what = kind == CHOICE_THREAD ? "run" : "wake";
    if (r->next >= r->choices->n) {
        s->diverged = true;
        snprintf(s->divergence, sizeof s->divergence,
                 "at step %" PRIu64 " the program offers a choice the schedule does not have (it ends after %zu choices)",
                 cp->step, r->choices->n);
        return 0;
    }
    const struct choice chosen = choice_list_at(r->choices, r->next), *c = &chosen;
    if (c->kind != kind || c->step != cp->step) {
        s->diverged = true;
        snprintf(s->divergence, sizeof s->divergence,
                 "at step %" PRIu64 " the program asks which thread to %s, but the schedule's next choice is at step %" PRIu64,
                 cp->step, what, c->step);
        return 0;
    }
    for (size_t i = 0; i < cp->n; i++) {
        if (cp->threads[i] == c->thread) {
            r->next++;
            return i;
        }
    }
    s->diverged = true;
    snprintf(s->divergence, sizeof s->divergence,
             "at step %" PRIu64 " the schedule says %s T%d, which cannot %s now", cp->step, what, c->thread, what);
    return 0;
}

static size_t replay_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    return follow(s, cp, CHOICE_THREAD);
}

static size_t replay_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    return follow(s, cp, CHOICE_WAKE);
}

static void replay_thread_created(struct strategy *s, int thread)
{
}

static void replay_destroy(struct strategy *s)
{
    free(s->state);
}

static const struct strategy_ops replay_ops = {
    .name = "replay",
    .begin = replay_begin,
    .pick_thread = replay_pick_thread,
    .pick_waiter = replay_pick_waiter,
    .thread_created = replay_thread_created,
    .destroy = replay_destroy,
};

struct strategy *strategy_replay_new(const struct choice_list *choices)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct replay_state *r = calloc(1, sizeof *r);
    r->choices = choices;
    s->ops = &replay_ops;
    s->follows = choices;

    s->state = r;
    return s;
}
