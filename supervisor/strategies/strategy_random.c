/* strategy_random: MDAT's scheduler. Every choice is uniform over the
 * threads that can run (and over the waiters a wake can release). */
#include "supervisor/strategies/rng.h"
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>

static void random_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    rng_seed(s->state, exec_seed);
}

static size_t random_pick(struct strategy *s, const struct choice_point *cp)
{
    return (size_t)rng_below(s->state, cp->n);
}

static void random_thread_created(struct strategy *s, int thread)
{
}

static void random_destroy(struct strategy *s)
{
    free(s->state);
}

static const struct strategy_ops random_ops = {
    .name = "random",
    .begin = random_begin,
    .pick_thread = random_pick,
    .pick_waiter = random_pick,
    .thread_created = random_thread_created,
    .destroy = random_destroy,
};

struct strategy *strategy_random_new(void)
{
    struct strategy *s = calloc(1, sizeof *s);
    s->ops = &random_ops;
    s->prefers_progress = true;
    s->state = calloc(1, sizeof(struct rng));
    return s;
}

void strategy_free(struct strategy *s)
{
    if (!s)
        return;
    s->ops->destroy(s);
    free(s);
}
