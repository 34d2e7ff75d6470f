/* page_list: a sorted array with binary search. */
#include "supervisor/sharing/page_list.h"

#include <stdlib.h>
#include <string.h>

enum { PAGE_MASK = ~(uint64_t)4095 };

void page_list_free(struct page_list *l)
{
    free(l->at);
    memset(l, 0, sizeof *l);
}

void page_list_copy(struct page_list *dst, const struct page_list *src)
{
    page_list_free(dst);
    if (!src || !src->n)
        return;
    dst->at = malloc(src->n * sizeof *dst->at);
    if (!dst->at)
        abort();
    memcpy(dst->at, src->at, src->n * sizeof *dst->at);
    dst->n = dst->cap = src->n;
}

static size_t lower_bound(const struct page_list *l, uint64_t page)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->at[mid] < page)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool page_list_has(const struct page_list *l, uint64_t addr)
{
    uint64_t page = addr & PAGE_MASK;
    size_t i = lower_bound(l, page);
    return i < l->n && l->at[i] == page;
}

bool page_list_add(struct page_list *l, uint64_t addr)
{
    uint64_t page = addr & PAGE_MASK;
    size_t i = lower_bound(l, page);
    if (i < l->n && l->at[i] == page)
        return false;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->at = realloc(l->at, l->cap * sizeof *l->at);
        if (!l->at)
            abort();
    }
    memmove(l->at + i + 1, l->at + i, (l->n - i) * sizeof *l->at);
    l->at[i] = page;
    l->n++;
    return true;
}
