/* heap_map: a sorted array; programs under mdat keep few live blocks. */
#include "supervisor/process/heap_map.h"

#include <stdlib.h>
#include <string.h>

void heap_map_init(struct heap_map *h)
{
    memset(h, 0, sizeof *h);
}

void heap_map_free(struct heap_map *h)
{
    free(h->blocks);
    memset(h, 0, sizeof *h);
}

/* Index of the first block whose address is >= addr. */
static size_t lower_bound(const struct heap_map *h, uint64_t addr)
{
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h->blocks[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A zero-sized block still has an address worth naming. */
static uint64_t block_end(const struct heap_block *b)
{
    return b->addr + (b->size ? b->size : 1);
}

/* Drops the blocks that share a byte with [addr, end); returns where a
 * block at addr goes. */
static size_t drop_overlaps(struct heap_map *h, uint64_t addr, uint64_t end)
{
    size_t pos = lower_bound(h, addr);
    while (pos > 0 && block_end(&h->blocks[pos - 1]) > addr)
        pos--;
    size_t last = pos;
    while (last < h->n && h->blocks[last].addr < end)
        last++;
    if (last > pos) {
        memmove(&h->blocks[pos], &h->blocks[last], (h->n - last) * sizeof *h->blocks);
        h->n -= last - pos;
    }
    return pos;
}

void heap_map_forget(struct heap_map *h, uint64_t addr, uint64_t size)
{
    drop_overlaps(h, addr, addr + (size ? size : 1));
}

unsigned heap_map_add(struct heap_map *h, uint64_t addr, uint64_t size, const char *how, uint64_t site)
{
    struct heap_block nb = {addr, size, ++h->next_id, site, how};
    /* A free mdat did not see leaves a stale block behind: drop overlaps. */
    size_t pos = drop_overlaps(h, addr, block_end(&nb));
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->blocks = realloc(h->blocks, h->cap * sizeof *h->blocks);
        if (!h->blocks)
            abort();
    }
    memmove(&h->blocks[pos + 1], &h->blocks[pos], (h->n - pos) * sizeof *h->blocks);
    h->blocks[pos] = nb;
    h->n++;
    return nb.id;
}

bool heap_map_remove(struct heap_map *h, uint64_t addr, struct heap_block *removed)
{
    size_t pos = lower_bound(h, addr);
    if (pos >= h->n || h->blocks[pos].addr != addr)
        return false;
    if (removed)
        *removed = h->blocks[pos];
    memmove(&h->blocks[pos], &h->blocks[pos + 1], (h->n - pos - 1) * sizeof *h->blocks);
    h->n--;
    return true;
}

bool heap_map_overlaps(const struct heap_map *h, uint64_t lo, uint64_t hi)
{
    size_t pos = lower_bound(h, lo);
    if (pos > 0 && block_end(&h->blocks[pos - 1]) > lo)
        return true;
    return pos < h->n && h->blocks[pos].addr < hi;
}

const struct heap_block *heap_map_find(const struct heap_map *h, uint64_t addr)
{
    size_t pos = lower_bound(h, addr + 1);
    if (pos == 0)
        return NULL;
    const struct heap_block *b = &h->blocks[pos - 1];
    return addr < block_end(b) ? b : NULL;
}
