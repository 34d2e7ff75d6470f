/* vector_clock: dense arrays indexed by thread id, grown on demand. */
#include "supervisor/sharing/vector_clock.h"

#include <stdlib.h>
#include <string.h>

void vc_init(struct vector_clock *vc)
{
    vc->at = NULL;
    vc->n = 0;
}

void vc_free(struct vector_clock *vc)
{
    free(vc->at);
    vc_init(vc);
}

void vc_clear(struct vector_clock *vc)
{
    if (vc->n)
        memset(vc->at, 0, vc->n * sizeof *vc->at);
}

static void grow(struct vector_clock *vc, size_t n)
{
    if (n <= vc->n)
        return;
    size_t cap = vc->n ? vc->n : 4;
    while (cap < n)
        cap *= 2;
    uint32_t *at = realloc(vc->at, cap * sizeof *at);
    if (!at)
        abort();
    memset(at + vc->n, 0, (cap - vc->n) * sizeof *at);
    vc->at = at;
    vc->n = cap;
}

uint32_t vc_get(const struct vector_clock *vc, uint32_t thread)
{
    return thread < vc->n ? vc->at[thread] : 0;
}

void vc_set(struct vector_clock *vc, uint32_t thread, uint32_t clock)
{
    grow(vc, (size_t)thread + 1);
    vc->at[thread] = clock;
}

void vc_tick(struct vector_clock *vc, uint32_t thread)
{
    vc_set(vc, thread, vc_get(vc, thread) + 1);
}

unsigned vc_join(struct vector_clock *dst, const struct vector_clock *src)
{
    size_t n = src->n;
    while (n > 0 && src->at[n - 1] == 0)
        n--;
    grow(dst, n);
    /* Four entries at a time (both arrays hold a power of two of at least
     * four): with hundreds of threads this runs at every lock and unlock. */
    typedef uint32_t four __attribute__((vector_size(16)));
    four src_ahead = {0}, dst_ahead = {0};
    size_t i = 0;
    for (; i < n; i += 4) {
        four d, s;
        memcpy(&d, dst->at + i, sizeof d);
        memcpy(&s, src->at + i, sizeof s);
        four later = (four)(s > d);
        src_ahead |= later;
        dst_ahead |= (four)(d > s);
        d = (s & later) | (d & ~later);
        memcpy(dst->at + i, &d, sizeof d);
    }
    unsigned found = 0;
    for (int k = 0; k < 4; k++) {
        found |= src_ahead[k] ? VC_SRC_AHEAD : 0;
        found |= dst_ahead[k] ? VC_DST_AHEAD : 0;
    }
    for (; i < dst->n && !(found & VC_DST_AHEAD); i++)
        found |= dst->at[i] ? VC_DST_AHEAD : 0;
    return found;
}

void vc_copy(struct vector_clock *dst, const struct vector_clock *src)
{
    vc_clear(dst);
    vc_join(dst, src);
}

bool vc_leq(const struct vector_clock *a, const struct vector_clock *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->at[i] > vc_get(b, (uint32_t)i))
            return false;
    return true;
}
