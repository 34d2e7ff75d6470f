/* vma_list: a sorted array of ranges, split and merged in place. */
#include "supervisor/sharing/vma_list.h"

#include <stdlib.h>
#include <string.h>

void vma_list_init(struct vma_list *l)
{
    memset(l, 0, sizeof *l);
}

void vma_list_free(struct vma_list *l)
{
    free(l->at);
    vma_list_init(l);
}

static void reserve(struct vma_list *l, size_t n)
{
    if (n <= l->cap)
        return;
    size_t cap = l->cap ? l->cap : 32;
    while (cap < n)
        cap *= 2;
    l->at = realloc(l->at, cap * sizeof *l->at);
    if (!l->at)
        abort();
    l->cap = cap;
}

void vma_list_copy(struct vma_list *dst, const struct vma_list *src)
{
    reserve(dst, src->n);
    if (src->n)
        memcpy(dst->at, src->at, src->n * sizeof *src->at);
    dst->n = src->n;
}

/* The first range that ends after addr. */
static size_t first_after(const struct vma_list *l, uint64_t addr)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->at[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void vma_list_remove(struct vma_list *l, uint64_t start, uint64_t end)
{
    size_t i = first_after(l, start);
    while (i < l->n && l->at[i].start < end) {
        struct vma v = l->at[i];
        if (v.start < start && v.end > end) {
            reserve(l, l->n + 1);
            memmove(l->at + i + 1, l->at + i, (l->n - i) * sizeof *l->at);
            l->n++;
            l->at[i].end = start;
            l->at[i + 1].start = end;
            return;
        }
        if (v.start < start) {
            l->at[i++].end = start;
        } else if (v.end > end) {
            l->at[i].start = end;
            return;
        } else {
            memmove(l->at + i, l->at + i + 1, (l->n - i - 1) * sizeof *l->at);
            l->n--;
        }
    }
}

void vma_list_set(struct vma_list *l, uint64_t start, uint64_t end, int prot, bool shared)
{
    if (start >= end)
        return;
    vma_list_remove(l, start, end);
    size_t i = first_after(l, start);
    reserve(l, l->n + 1);
    memmove(l->at + i + 1, l->at + i, (l->n - i) * sizeof *l->at);
    l->at[i] = (struct vma){start, end, prot, shared};
    l->n++;
}

void vma_list_pieces(const struct vma_list *l, uint64_t start, uint64_t end,
                     void (*each)(void *ctx, uint64_t start, uint64_t end, int prot), void *ctx)
{
    for (size_t i = first_after(l, start); i < l->n && l->at[i].start < end; i++) {
        uint64_t s = l->at[i].start > start ? l->at[i].start : start;
        uint64_t e = l->at[i].end < end ? l->at[i].end : end;
        /* Neighbours with the same rights: one call for both. */
        while (i + 1 < l->n && l->at[i + 1].start == e && l->at[i + 1].prot == l->at[i].prot && e < end) {
            i++;
            e = l->at[i].end < end ? l->at[i].end : end;
        }
        each(ctx, s, e, l->at[i].prot);
    }
}

const struct vma *vma_list_find(const struct vma_list *l, uint64_t addr)
{
    size_t i = first_after(l, addr);
    return i < l->n && l->at[i].start <= addr ? &l->at[i] : NULL;
}
