/* range_index: which of a set of [lo, hi) address ranges contain an address,
 * when ranges may nest or overlap (symbols, functions, inlined code,
 * variables), in O(log n) plus the nesting depth.
 *
 * Entries are sorted by start; max_end[i] is the highest end among entries
 * 0..i, so a search walks back from the last entry starting at or below the
 * address only while an earlier entry could still reach it. */
#ifndef MDAT_SUPERVISOR_RANGE_INDEX_H
#define MDAT_SUPERVISOR_RANGE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct addr_range { uint64_t lo, hi; }; /* [lo, hi) */

struct range_entry {
    uint64_t lo, hi;
    size_t item;        /* the caller's index of what the range belongs to */
};

struct range_index {
    struct range_entry *entries;
    uint64_t *max_end;
    size_t count;
};

/* Takes ownership of entries (malloc'd, may be NULL when count is 0) and sorts
 * them by lo, then by hi descending (an enclosing range before the ranges it
 * contains), then by item. False when out of memory (entries are freed). */
bool range_index_build(struct range_index *index, struct range_entry *entries, size_t count);
void range_index_free(struct range_index *index);

/* The containing entries one by one, innermost first (the latest start; among
 * equal starts the shortest, then the highest item): pass NULL for the first,
 * then the previous answer. NULL when there are no more. */
const struct range_entry *range_index_containing(const struct range_index *index, uint64_t addr,
                                                 const struct range_entry *previous);

#endif
