/* strategy_surw: Selectively Uniform Random Walk (Zhao et al., ASPLOS 2025).
 *
 * A random walk that picks each thread with the same probability samples
 * interleavings very unevenly: the schedules where a long thread runs first
 * are rare. Picking a thread with probability proportional to the number of
 * interesting events it still has to perform samples every interleaving of
 * those events with the same probability (n! / (n1! n2! ...) equally likely
 * orders). Here the interesting events are the steps taken at choice points
 * (where more than one thread could run).
 *
 * How many a thread will perform is learned from execution 0 of the batch
 * (a uniform random walk, as every execution without a profile): its count
 * per thread id is handed to every other execution through the driver
 * (strategy_profile), so that execution i stays a function of (seed, i)
 * under any -j. A thread the profile does not know is given the mean; a
 * thread that has used up its estimate keeps a weight of one. */
#include "supervisor/strategies/rng.h"
#include "supervisor/strategies/strategies.h"

#include <stdlib.h>
#include <string.h>

struct surw_state {
    struct rng rng;
    struct strategy_profile profile;    /* what execution 0 taught (filled or not) */
    uint32_t done[PROFILE_THREADS];     /* this execution: events each thread performed */
    uint64_t mean;
};

static void surw_begin(struct strategy *s, uint64_t exec_seed, uint64_t estimated_steps)
{
    struct surw_state *p = s->state;
    rng_seed(&p->rng, exec_seed);
    memset(p->done, 0, sizeof p->done);
}

static uint64_t remaining(const struct surw_state *p, int id)
{
    if (id <= 0 || id >= PROFILE_THREADS)
        return p->mean ? p->mean : 1;
    uint64_t total = id < (int)p->profile.n ? p->profile.events[id] : p->mean;
    return total > p->done[id] ? total - p->done[id] : 1;
}

static size_t surw_pick_thread(struct strategy *s, const struct choice_point *cp)
{
    struct surw_state *p = s->state;
    size_t pick;
    if (!p->profile.filled) {
        pick = (size_t)rng_below(&p->rng, cp->n);
    } else {
        uint64_t total = 0;
        for (size_t i = 0; i < cp->n; i++)
            total += remaining(p, cp->threads[i]);
        uint64_t r = rng_below(&p->rng, total);
        for (pick = 0; pick + 1 < cp->n; pick++) {
            uint64_t w = remaining(p, cp->threads[pick]);
            if (r < w)
                break;
            r -= w;
        }
    }
    int id = cp->threads[pick];
    if (id > 0 && id < PROFILE_THREADS)
        p->done[id]++;
    return pick;
}

static size_t surw_pick_waiter(struct strategy *s, const struct choice_point *cp)
{
    struct surw_state *p = s->state;
    return (size_t)rng_below(&p->rng, cp->n);
}

static void surw_thread_created(struct strategy *s, int thread)
{
}

static void surw_learn(struct strategy *s, struct strategy_profile *out)
{
    struct surw_state *p = s->state;
    memset(out, 0, sizeof *out);
    out->filled = true;
    for (int id = 1; id < PROFILE_THREADS; id++)
        if (p->done[id])
            out->n = (uint32_t)id + 1;
    memcpy(out->events, p->done, sizeof out->events);
}

static void surw_use_profile(struct strategy *s, const struct strategy_profile *in)
{
    struct surw_state *p = s->state;
    p->profile = *in;
    uint64_t sum = 0, threads = 0;
    for (uint32_t id = 1; id < in->n; id++)
        if (in->events[id]) {
            sum += in->events[id];
            threads++;
        }
    p->mean = threads ? sum / threads : 1;
    if (p->mean == 0)
        p->mean = 1;
}

static void surw_destroy(struct strategy *s)
{
    free(s->state);
}

static const struct strategy_ops surw_ops = {
    .name = "surw",
    .begin = surw_begin,
    .pick_thread = surw_pick_thread,
    .pick_waiter = surw_pick_waiter,
    .thread_created = surw_thread_created,
    .destroy = surw_destroy,
    .learn = surw_learn,
    .use_profile = surw_use_profile,
};

struct strategy *strategy_surw_new(void)
{
    struct strategy *s = calloc(1, sizeof *s);
    s->ops = &surw_ops;
    s->prefers_progress = true;
    s->state = calloc(1, sizeof(struct surw_state));
    return s;
}
