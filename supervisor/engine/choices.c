/* choices: a list of choices packed into bytes, with a start per block.
 *
 * A choice is a step delta from the choice before it, a kind and a thread.
 * In a long execution nearly every choice is a thread choice one step
 * after the last one, by a thread numbered under 128: that takes one byte
 * (the thread, high bit clear). Any other choice takes a marker byte, its
 * kind and two variable-length integers (the delta and the thread,
 * zig-zag so negative flush threads stay short). A 10-million-step
 * execution's choices fit in about 10 MB instead of 160, which is what
 * lets a failure at the end of one be recorded in bounded memory. */
#include "supervisor/engine/choices.h"

#include <stdlib.h>
#include <string.h>

enum { LONG_FORM = 0x80 };

static void *grown(void *at, size_t *cap, size_t need, size_t unit, size_t first)
{
    if (need <= *cap)
        return at;
    size_t cap_now = *cap > first ? *cap : first;   /* a fitted copy may hold one unit: 1.5x of it is 1 */
    while (cap_now < need)
        cap_now += cap_now / 2;     /* 1.5x: the slack of a long list stays a third */
    void *bigger = realloc(at, cap_now * unit);
    if (!bigger)
        abort();
    *cap = cap_now;
    return bigger;
}

static void put_byte(struct choice_list *l, uint8_t b)
{
    l->bytes = grown(l->bytes, &l->cap_bytes, l->n_bytes + 1, 1, 1024);
    l->bytes[l->n_bytes++] = b;
}

static void put_varint(struct choice_list *l, uint64_t v)
{
    while (v >= 0x80) {
        put_byte(l, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    put_byte(l, (uint8_t)v);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static uint64_t get_varint(const uint8_t *bytes, size_t *at)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = bytes[(*at)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

/* Decodes the choice at bytes[*at] made after step `before`. */
static struct choice decode(const uint8_t *bytes, size_t *at, uint64_t before)
{
    uint8_t first = bytes[(*at)++];
    if (!(first & LONG_FORM))
        return (struct choice){before + 1, CHOICE_THREAD, first};
    char kind = (char)bytes[(*at)++];
    uint64_t delta = get_varint(bytes, at);
    int thread = (int)unzigzag(get_varint(bytes, at));
    return (struct choice){before + delta, kind, thread};
}

void choice_list_add(struct choice_list *l, uint64_t step, char kind, int thread)
{
    if (l->n % CHOICE_BLOCK == 0) {
        size_t k = l->n / CHOICE_BLOCK;
        l->blocks = grown(l->blocks, &l->cap_blocks, k + 1, sizeof *l->blocks, 64);
        l->blocks[k] = (struct choice_block_start){l->n ? l->last_step : 0, l->n_bytes};
    }
    uint64_t before = l->n ? l->last_step : 0;
    if (kind == CHOICE_THREAD && step == before + 1 && thread >= 0 && thread < LONG_FORM) {
        put_byte(l, (uint8_t)thread);
    } else {
        /* Steps only grow along an execution, but a delta that does not
         * (a hand-written schedule file) still round-trips: it wraps. */
        put_byte(l, LONG_FORM);
        put_byte(l, (uint8_t)kind);
        put_varint(l, step - before);
        put_varint(l, zigzag(thread));
    }
    l->last_step = step;
    l->n++;
}

/* The choice i, leaving *byte at the choice after it. */
static struct choice choice_and_end(const struct choice_list *l, size_t i, size_t *byte)
{
    const struct choice_block_start *b = &l->blocks[i / CHOICE_BLOCK];
    *byte = b->byte;
    struct choice c = {.step = b->step_before};
    for (size_t k = i - i % CHOICE_BLOCK; k <= i; k++)
        c = decode(l->bytes, byte, c.step);
    return c;
}

struct choice choice_list_at(const struct choice_list *l, size_t i)
{
    size_t byte;
    return choice_and_end(l, i, &byte);
}

void choice_list_truncate(struct choice_list *l, size_t n)
{
    if (n >= l->n)
        return;
    if (n == 0) {
        l->n = l->n_bytes = 0;
        l->last_step = 0;
        return;
    }
    size_t end;
    l->last_step = choice_and_end(l, n - 1, &end).step;
    l->n_bytes = end;
    l->n = n;
}

/* Room for exactly need units: a copy does not grow, and a long list's
 * copy should not hold half as much again as it needs. */
static void *fitted(void *at, size_t *cap, size_t need, size_t unit)
{
    if (need <= *cap)
        return at;
    void *bigger = realloc(at, need * unit);
    if (!bigger)
        abort();
    *cap = need;
    return bigger;
}

void choice_list_copy_prefix(struct choice_list *dst, const struct choice_list *src, size_t n)
{
    if (n > src->n)
        n = src->n;
    choice_list_truncate(dst, 0);
    size_t n_bytes = src->n_bytes;
    uint64_t last_step = src->last_step;
    if (n == 0)
        n_bytes = last_step = 0;
    else if (n < src->n)
        last_step = choice_and_end(src, n - 1, &n_bytes).step;
    dst->bytes = fitted(dst->bytes, &dst->cap_bytes, n_bytes, 1);
    if (n_bytes)
        memcpy(dst->bytes, src->bytes, n_bytes);
    size_t n_blocks = (n + CHOICE_BLOCK - 1) / CHOICE_BLOCK;
    dst->blocks = fitted(dst->blocks, &dst->cap_blocks, n_blocks, sizeof *dst->blocks);
    if (n_blocks)
        memcpy(dst->blocks, src->blocks, n_blocks * sizeof *dst->blocks);
    dst->n = n;
    dst->n_bytes = n_bytes;
    dst->last_step = last_step;
    choice_list_copy_setting(dst, src);
}

void choice_list_copy(struct choice_list *dst, const struct choice_list *src)
{
    choice_list_copy_prefix(dst, src, src->n);
}

void choice_list_copy_setting(struct choice_list *dst, const struct choice_list *src)
{
    dst->pages = src->pages;
    dst->spins_judged = src->spins_judged;
    page_list_copy(&dst->observed, &src->observed);
    page_list_copy(&dst->read_shared, &src->read_shared);
}

void choice_list_move(struct choice_list *dst, struct choice_list *src)
{
    if (dst == src)
        return;
    choice_list_free(dst);
    *dst = *src;
    *src = (struct choice_list){0};
}

void choice_list_free(struct choice_list *l)
{
    free(l->bytes);
    free(l->blocks);
    page_list_free(&l->observed);
    page_list_free(&l->read_shared);
    *l = (struct choice_list){0};
}
