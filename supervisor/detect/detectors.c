/* detectors: the invariants, race and heap-error listeners behind one handle. */
#include "supervisor/detect/detectors.h"
#include "supervisor/detect/heap_errors.h"
#include "supervisor/detect/invariants.h"
#include "supervisor/detect/race_listener.h"

#include <stdlib.h>

struct detectors {
    struct invariants *invariants;  /* NULL: none */
    struct race_listener *races;    /* NULL: --races=off */
    struct race_seen *seen;
    struct heap_errors *heap;       /* always */
    uint64_t execution;
    /* Instructions seen racing in the running execution (few: a list). */
    uint64_t *raced;
    size_t n_raced, cap_raced;
};

static void note_raced_pc(struct detectors *d, uint64_t pc)
{
    if (detectors_raced_at(d, pc))
        return;
    if (d->n_raced == d->cap_raced) {
        d->cap_raced = d->cap_raced ? d->cap_raced * 2 : 8;
        d->raced = realloc(d->raced, d->cap_raced * sizeof *d->raced);
        if (!d->raced)
            abort();
    }
    d->raced[d->n_raced++] = pc;
}

static void note_raced(void *ctx, uint64_t pc_a, uint64_t pc_b)
{
    note_raced_pc(ctx, pc_a);
    note_raced_pc(ctx, pc_b);
}

bool detectors_raced_at(void *ctx, uint64_t pc)
{
    const struct detectors *d = ctx;
    for (size_t i = 0; i < d->n_raced; i++)
        if (d->raced[i] == pc)
            return true;
    return false;
}

struct detectors *detectors_new(const struct detect_options *o, const debuginfo *exe, char *err, size_t errlen)
{
    struct detectors *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    if (o->n_invariants > 0) {
        d->invariants = invariants_new(exe, o->invariants, o->n_invariants, err, errlen);
        if (!d->invariants) {
            free(d);
            return NULL;
        }
    }
    if (o->races != RACES_OFF) {
        d->seen = race_seen_new(true);
        struct race_listener_config cfg = {.mode = o->races, .seen = d->seen, .execution = &d->execution,
                                           .raced = note_raced, .raced_ctx = d};
        d->races = race_listener_new(&cfg);
    }
    d->heap = heap_errors_new();
    return d;
}

void detectors_free(struct detectors *d)
{
    if (!d)
        return;
    invariants_free(d->invariants);
    race_listener_free(d->races);
    race_seen_free(d->seen);
    heap_errors_free(d->heap);
    free(d->raced);
    free(d);
}

int detectors_listeners(struct detectors *d, uint64_t execution, struct exec_listener *out)
{
    int n = 0;
    d->execution = execution;
    d->n_raced = 0;
    if (d->invariants)
        out[n++] = invariants_hooks(d->invariants);
    if (d->races)
        out[n++] = race_listener_hooks(d->races);
    out[n++] = heap_errors_hooks(d->heap);
    return n;
}

bool detectors_judge_end(const struct detectors *d, struct exec_result *res)
{
    return d->races && race_listener_judge_end(d->races, res);
}

bool detectors_race_steps(const struct detectors *d, uint64_t *earlier, uint64_t *later)
{
    *earlier = *later = 0;
    return d->races && race_listener_failed_steps(d->races, earlier, later);
}
