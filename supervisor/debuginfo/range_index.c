/* range_index: sorted ranges with a running maximum of their ends. */
#include "supervisor/debuginfo/range_index.h"

#include <stdlib.h>

static int compare_entries(const void *a, const void *b)
{
    const struct range_entry *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi > y->hi ? -1 : 1;
    return (x->item > y->item) - (x->item < y->item);
}

bool range_index_build(struct range_index *index, struct range_entry *entries, size_t count)
{
    *index = (struct range_index){ 0 };
    uint64_t *max_end = malloc((count ? count : 1) * sizeof *max_end);
    if (!max_end) {
        free(entries);
        return false;
    }
    if (count > 0) /* qsort's base must not be NULL, even for 0 items */
        qsort(entries, count, sizeof *entries, compare_entries);
    uint64_t highest = 0;
    for (size_t i = 0; i < count; i++) {
        if (entries[i].hi > highest)
            highest = entries[i].hi;
        max_end[i] = highest;
    }
    *index = (struct range_index){ entries, max_end, count };
    return true;
}

void range_index_free(struct range_index *index)
{
    free(index->entries);
    free(index->max_end);
    *index = (struct range_index){ 0 };
}

const struct range_entry *range_index_containing(const struct range_index *index, uint64_t addr,
                                                 const struct range_entry *previous)
{
    size_t i;
    if (previous) {
        i = (size_t)(previous - index->entries);
    } else {
        size_t lo = 0, hi = index->count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (index->entries[mid].lo <= addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
    }
    while (i-- > 0 && index->max_end[i] > addr) {
        const struct range_entry *entry = &index->entries[i];
        if (addr < entry->hi)
            return entry;
    }
    return NULL;
}
