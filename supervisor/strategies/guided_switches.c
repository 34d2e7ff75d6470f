/* guided_switches: a growing array of anchored switches. */
#include "supervisor/strategies/guided_switches.h"

#include <stdlib.h>
#include <string.h>

static void reserve(struct guided_switches *l, size_t need)
{
    if (need <= l->cap)
        return;
    size_t cap = l->cap ? l->cap : 16;
    while (cap < need)
        cap *= 2;
    l->at = realloc(l->at, cap * sizeof *l->at);
    if (!l->at)
        abort();
    l->cap = cap;
}

void guided_switches_add(struct guided_switches *l, struct guided_switch s)
{
    reserve(l, l->n + 1);
    l->at[l->n++] = s;
}

void guided_switches_copy_without(struct guided_switches *dst, const struct guided_switches *src, size_t skip)
{
    reserve(dst, src->n);
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++)
        if (i != skip)
            dst->at[dst->n++] = src->at[i];
}

void guided_switches_copy_keeping(struct guided_switches *dst, const struct guided_switches *src, const size_t *keep,
                                  size_t n_keep)
{
    reserve(dst, src->n);
    dst->n = 0;
    size_t nth = 0, k = 0;
    for (size_t i = 0; i < src->n; i++) {
        if (src->at[i].preempted) {
            bool kept = k < n_keep && keep[k] == nth;
            k += kept;
            nth++;
            if (!kept)
                continue;
        }
        dst->at[dst->n++] = src->at[i];
    }
}

size_t guided_switches_preemptions(const struct guided_switches *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->at[i].preempted;
    return n;
}

void guided_switches_free(struct guided_switches *l)
{
    free(l->at);
    memset(l, 0, sizeof *l);
}
