/* guided_points: two bits a choice point, and candidate sets by runs. */
#include "supervisor/strategies/guided_points.h"

#include <stdlib.h>
#include <string.h>

enum { PREEMPTED = 1, CONTINUED = 2, BITS_PER_POINT = 2, POINTS_PER_WORD = 64 / BITS_PER_POINT };

static void *grown(void *at, size_t *cap, size_t need, size_t unit)
{
    if (need <= *cap)
        return at;
    size_t cap_now = *cap ? *cap : 64;
    while (cap_now < need)
        cap_now += cap_now / 2;
    void *bigger = realloc(at, cap_now * unit);
    if (!bigger)
        abort();
    *cap = cap_now;
    return bigger;
}

static bool same_offer(const struct guided_points *p, const int *threads, size_t n)
{
    if (p->n_offers == 0)
        return false;
    const struct guided_offer *last = &p->offers[p->n_offers - 1];
    return last->n == n && (n == 0 || memcmp(p->threads + last->first, threads, n * sizeof *threads) == 0);
}

void guided_points_add(struct guided_points *p, bool preempted, bool continued, const int *threads, size_t n)
{
    size_t word = p->n / POINTS_PER_WORD, shift = p->n % POINTS_PER_WORD * BITS_PER_POINT;
    p->bits = grown(p->bits, &p->cap_words, word + 1, sizeof *p->bits);
    if (shift == 0)
        p->bits[word] = 0;
    p->bits[word] |= (uint64_t)((preempted ? PREEMPTED : 0) | (continued ? CONTINUED : 0)) << shift;
    if (!same_offer(p, threads, n)) {
        p->offers = grown(p->offers, &p->cap_offers, p->n_offers + 1, sizeof *p->offers);
        p->threads = grown(p->threads, &p->cap_threads, p->n_threads + n, sizeof *p->threads);
        if (n)
            memcpy(p->threads + p->n_threads, threads, n * sizeof *threads);
        p->offers[p->n_offers++] = (struct guided_offer){p->n, p->n_threads, n};
        p->n_threads += n;
    }
    p->n++;
}

void guided_points_clear(struct guided_points *p)
{
    p->n = p->n_offers = p->n_threads = 0;
}

static unsigned point_bits(const struct guided_points *p, size_t i)
{
    return (unsigned)(p->bits[i / POINTS_PER_WORD] >> (i % POINTS_PER_WORD * BITS_PER_POINT)) & 3u;
}

bool guided_points_preempted(const struct guided_points *p, size_t i) { return point_bits(p, i) & PREEMPTED; }
bool guided_points_continued(const struct guided_points *p, size_t i) { return point_bits(p, i) & CONTINUED; }

const int *guided_points_offered(const struct guided_points *p, size_t i, size_t *n)
{
    size_t lo = 0, hi = p->n_offers;    /* the last offer from a point <= i */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->offers[mid].from_point <= i)
            lo = mid;
        else
            hi = mid;
    }
    *n = p->offers[lo].n;
    return p->threads + p->offers[lo].first;
}

static void *copied(void *dst, size_t *cap, const void *src, size_t n, size_t unit)
{
    dst = grown(dst, cap, n ? n : 1, unit);
    if (n)
        memcpy(dst, src, n * unit);
    return dst;
}

void guided_points_copy(struct guided_points *dst, const struct guided_points *src)
{
    size_t words = (src->n + POINTS_PER_WORD - 1) / POINTS_PER_WORD;
    dst->bits = copied(dst->bits, &dst->cap_words, src->bits, words, sizeof *src->bits);
    dst->offers = copied(dst->offers, &dst->cap_offers, src->offers, src->n_offers, sizeof *src->offers);
    dst->threads = copied(dst->threads, &dst->cap_threads, src->threads, src->n_threads, sizeof *src->threads);
    dst->n = src->n;
    dst->n_offers = src->n_offers;
    dst->n_threads = src->n_threads;
}

void guided_points_free(struct guided_points *p)
{
    free(p->bits);
    free(p->offers);
    free(p->threads);
    *p = (struct guided_points){0};
}
