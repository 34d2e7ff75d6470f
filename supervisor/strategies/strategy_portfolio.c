/* strategy_portfolio: the randomized strategies and a preemption-bounded
 * search taking turns, execution by execution. Execution i is run by the
 * member in slot i mod 8 of pct, pos, surw, random, pct, pos, surw,
 * bounded, seeded as that execution always is, so it stays a function of
 * (seed, i) under any -j; the failure's schedule names the member that
 * chose it (strategy_portfolio_member). bounded numbers its own turns
 * (i / 8) and walks the schedules with one preemption in order from the
 * start (strategy_bounded.c): the bugs that need one preemption at one
 * place among a hundred alike threads, which the randomized members hit
 * once in tens of thousands of executions. It takes random's second turn:
 * a uniform walk is the member the others most often do better than.
 *
 * No single strategy is best on every program (the bench in
 * scripts/search-bench shows each winning some cases); taking turns costs
 * a factor of n on the cases one member finds at once and loses none of
 * the cases only one member finds.
 *
 * surw learns from execution 0 how many choice-point steps each thread
 * takes; the portfolio counts them itself whichever member runs execution
 * 0, and hands the counts to its surw. */
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

static const char *const MEMBERS[] = {"pct", "pos", "surw", "random", "bounded"};
enum { N_MEMBERS = sizeof MEMBERS / sizeof *MEMBERS };
/* The member of each slot of a round (indexes into MEMBERS). */
static const int SLOTS[] = {0, 1, 2, 3, 0, 1, 2, 4};
enum { N_SLOTS = sizeof SLOTS / sizeof *SLOTS, BOUNDED = 4 };

struct portfolio_state {
    struct strategy *member[N_MEMBERS];
    struct strategy *current;
    uint32_t picks[PROFILE_THREADS];    /* this execution's choice-point steps per thread */
};

const char *strategy_portfolio_member(uint64_t index)
{
    return MEMBERS[SLOTS[index % N_SLOTS]];
}

static void portfolio_set_index(struct strategy *s, uint64_t index)
{
    struct portfolio_state *p = s->state;
    int m = SLOTS[index % N_SLOTS];
    p->current = p->member[m];
    if (m == BOUNDED)
        strategy_bounded_set_turn(p->current, index / N_SLOTS);
}

static void portfolio_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct portfolio_state *p = s->state;
    if (!p->current)
        p->current = p->member[0];
    /* The engine describes every candidate's next operation only for a
     * member that reads it (pos): with hundreds of threads runnable that
     * is most of a step's cost. */
    s->wants_ops = p->current->wants_ops;
    memset(p->picks, 0, sizeof p->picks);
    p->current->stop = false;
    p->current->ops->begin(p->current, exec_seed, estimated_steps);
}

static size_t portfolio_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct portfolio_state *p = s->state;
    size_t pick = p->current->ops->pick_thread(p->current, cp);
    int id = pick < cp->n ? cp->threads[pick] : 0;
    if (id > 0 && id < PROFILE_THREADS)
        p->picks[id]++;
    return pick;
}

static size_t portfolio_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct portfolio_state *p = s->state;
    return p->current->ops->pick_waiter(p->current, cp);
}

static void portfolio_thread_created(struct strategy *s, int thread)
{
    struct portfolio_state *p = s->state;
    p->current->ops->thread_created(p->current, thread);
}

static void portfolio_learn(struct strategy *s, struct strategy_profile *out)
{
    struct portfolio_state *p = s->state;
    memset(out, 0, sizeof *out);
    out->filled = true;
    for (int id = 1; id < PROFILE_THREADS; id++)
        if (p->picks[id])
            out->n = (uint32_t)id + 1;
    memcpy(out->events, p->picks, sizeof out->events);
}

static void portfolio_use_profile(struct strategy *s, const struct strategy_profile *in)
{
    struct portfolio_state *p = s->state;
    for (int i = 0; i < N_MEMBERS; i++)
        if (p->member[i]->ops->use_profile)
            p->member[i]->ops->use_profile(p->member[i], in);
}

static void portfolio_destroy(struct strategy *s)
{
    struct portfolio_state *p = s->state;
    for (int i = 0; i < N_MEMBERS; i++)
        strategy_free(p->member[i]);
    free(p);
}

static const struct strategy_ops portfolio_ops = {
    .name = "portfolio",
    .begin = portfolio_begin,
    .pick_thread = portfolio_pick_thread,
    .pick_waiter = portfolio_pick_waiter,
    .thread_created = portfolio_thread_created,
    .destroy = portfolio_destroy,
    .learn = portfolio_learn,
    .use_profile = portfolio_use_profile,
    .set_index = portfolio_set_index,
};

struct strategy *strategy_portfolio_new(int depth, uint64_t budget)
{
    struct strategy *s = calloc(1, sizeof *s);
    struct portfolio_state *p = calloc(1, sizeof *p);
    /* pct runs two executions in N_SLOTS: that is its budget. */
    p->member[0] = strategy_pct_new(depth, budget / (N_SLOTS / 2));
    p->member[1] = strategy_pos_new();
    p->member[2] = strategy_surw_new();
    p->member[3] = strategy_random_new();
    p->member[4] = strategy_bounded_new();
    s->ops = &portfolio_ops;
    s->prefers_progress = true;
    s->state = p;
    s->wants_ops = p->member[0]->wants_ops;     /* the member's, from portfolio_begin on */
    return s;
}
