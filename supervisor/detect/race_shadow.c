/* race_shadow: lines of 64 cells in an open-addressing hash table keyed by
 * the line's address; read sets in a pool with a free list. A line is never
 * removed during an execution (forgetting clears its cells) and lines are
 * allocated one by one, so a cell pointer stays valid until the next
 * reset; a read set pointer only until the next read set is made. */
#include "supervisor/detect/race_shadow.h"

#include <stdlib.h>
#include <string.h>

enum { LINE_BITS = 6, LINE_BYTES = 1 << LINE_BITS };

struct shadow_line {
    uint64_t base;                          /* addr >> LINE_BITS */
    struct shadow_cell cells[LINE_BYTES];
};

struct race_shadow {
    struct shadow_line **slots;             /* open addressing, NULL: empty */
    size_t cap, used;
    struct shadow_reads *reads;             /* the pool */
    size_t n_reads, cap_reads;
    uint32_t *free_reads;                   /* indices of released read sets */
    size_t n_free, cap_free;
};

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

struct race_shadow *race_shadow_new(void)
{
    struct race_shadow *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    return s;
}

void race_shadow_reset(struct race_shadow *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slots[i]);
    free(s->slots);
    s->slots = NULL;
    s->cap = s->used = 0;
    for (size_t i = 0; i < s->n_reads; i++)
        free(s->reads[i].by_thread);
    s->n_reads = 0;
    s->n_free = 0;
}

void race_shadow_free(struct race_shadow *s)
{
    if (!s)
        return;
    race_shadow_reset(s);
    free(s->reads);
    free(s->free_reads);
    free(s);
}

static size_t slot_of(uint64_t base, size_t cap)
{
    uint64_t h = base * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void rehash(struct race_shadow *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    struct shadow_line **slots = calloc(cap, sizeof *slots);
    if (!slots)
        abort();
    for (size_t i = 0; i < s->cap; i++) {
        struct shadow_line *l = s->slots[i];
        if (!l)
            continue;
        size_t k = slot_of(l->base, cap);
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = l;
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
}

struct shadow_cell *race_shadow_cell(struct race_shadow *s, uint64_t addr, bool create)
{
    uint64_t base = addr >> LINE_BITS;
    if (s->cap) {
        for (size_t k = slot_of(base, s->cap); s->slots[k]; k = (k + 1) & (s->cap - 1))
            if (s->slots[k]->base == base)
                return &s->slots[k]->cells[addr & (LINE_BYTES - 1)];
    }
    if (!create)
        return NULL;
    if ((s->used + 1) * 4 > s->cap * 3)
        rehash(s);
    struct shadow_line *l = calloc(1, sizeof *l);
    if (!l)
        abort();
    l->base = base;
    size_t k = slot_of(base, s->cap);
    while (s->slots[k])
        k = (k + 1) & (s->cap - 1);
    s->slots[k] = l;
    s->used++;
    return &l->cells[addr & (LINE_BYTES - 1)];
}

void race_shadow_drop_reads(struct race_shadow *s, struct shadow_cell *c)
{
    if (c->reads) {
        struct shadow_reads *r = &s->reads[c->reads - 1];
        memset(r->by_thread, 0, r->n * sizeof *r->by_thread);
        if (s->n_free == s->cap_free) {
            s->cap_free = s->cap_free ? s->cap_free * 2 : 16;
            s->free_reads = xrealloc(s->free_reads, s->cap_free * sizeof *s->free_reads);
        }
        s->free_reads[s->n_free++] = c->reads - 1;
        c->reads = 0;
    }
    memset(&c->read, 0, sizeof c->read);
}

static void clear_cell(struct race_shadow *s, struct shadow_cell *c)
{
    race_shadow_drop_reads(s, c);
    memset(c, 0, sizeof *c);
}

void race_shadow_forget(struct race_shadow *s, uint64_t addr, uint64_t size)
{
    if (size == 0)
        return;
    uint64_t end = addr + size;
    if (size / LINE_BYTES < s->used) {
        for (uint64_t a = addr; a < end; a++) {
            struct shadow_cell *c = race_shadow_cell(s, a, false);
            if (c)
                clear_cell(s, c);
        }
        return;
    }
    /* A range larger than what is stored (a thread's stack): walk the lines. */
    for (size_t i = 0; i < s->cap; i++) {
        struct shadow_line *l = s->slots[i];
        if (!l)
            continue;
        for (int b = 0; b < LINE_BYTES; b++) {
            uint64_t a = (l->base << LINE_BITS) + (uint64_t)b;
            if (a >= addr && a < end)
                clear_cell(s, &l->cells[b]);
        }
    }
}

void race_shadow_reads_put(struct shadow_reads *r, const struct shadow_access *a)
{
    if (a->thread >= r->n) {
        size_t n = r->n ? r->n : 8;
        while (n <= a->thread)
            n *= 2;
        r->by_thread = xrealloc(r->by_thread, n * sizeof *r->by_thread);
        memset(r->by_thread + r->n, 0, (n - r->n) * sizeof *r->by_thread);
        r->n = n;
    }
    r->by_thread[a->thread] = *a;
}

struct shadow_reads *race_shadow_reads(struct race_shadow *s, struct shadow_cell *c)
{
    if (c->reads)
        return &s->reads[c->reads - 1];
    uint32_t index;
    if (s->n_free) {
        index = s->free_reads[--s->n_free];
    } else {
        if (s->n_reads == s->cap_reads) {
            s->cap_reads = s->cap_reads ? s->cap_reads * 2 : 16;
            s->reads = xrealloc(s->reads, s->cap_reads * sizeof *s->reads);
        }
        index = (uint32_t)s->n_reads++;
        s->reads[index] = (struct shadow_reads){0};
    }
    c->reads = index + 1;
    struct shadow_reads *r = &s->reads[index];
    if (c->read.thread)
        race_shadow_reads_put(r, &c->read);
    memset(&c->read, 0, sizeof c->read);
    return r;
}

size_t race_shadow_memory(const struct race_shadow *s)
{
    size_t bytes = s->cap * sizeof *s->slots + s->used * sizeof(struct shadow_line);
    for (size_t i = 0; i < s->n_reads; i++)
        bytes += s->reads[i].n * sizeof(struct shadow_access);
    return bytes;
}
