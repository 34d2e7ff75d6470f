/* heap_map: the live heap blocks of one execution, as the engine follows
 * the user's malloc, new, realloc and free: for naming addresses no
 * variable names ("heap#3 (malloc at prod.c:22)+8") and for knowing which
 * block a free ends.
 *
 * Blocks are numbered in allocation order, which a schedule fixes, so the
 * same replay gives the same names. */
#ifndef MDAT_PROCESS_HEAP_MAP_H
#define MDAT_PROCESS_HEAP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct heap_block {
    uint64_t addr, size;
    unsigned id;            /* 1, 2, ... in allocation order */
    uint64_t site;          /* runtime address of the allocating call */
    const char *how;        /* "malloc", "calloc", "realloc" */
};

struct heap_map {
    struct heap_block *blocks;  /* sorted by address, never overlapping */
    size_t n, cap;
    unsigned next_id;
};

void heap_map_init(struct heap_map *h);
void heap_map_free(struct heap_map *h);
/* Records a new block (replacing any stale one it overlaps); returns its id. */
unsigned heap_map_add(struct heap_map *h, uint64_t addr, uint64_t size, const char *how, uint64_t site);
/* Forgets every block that shares a byte with [addr, addr + size). */
void heap_map_forget(struct heap_map *h, uint64_t addr, uint64_t size);
/* Forgets the block that starts at addr (into *removed when not NULL);
 * false when there is none. */
bool heap_map_remove(struct heap_map *h, uint64_t addr, struct heap_block *removed);
/* Whether some block shares a byte with [lo, hi). */
bool heap_map_overlaps(const struct heap_map *h, uint64_t lo, uint64_t hi);
/* The block containing addr, or NULL. */
const struct heap_block *heap_map_find(const struct heap_map *h, uint64_t addr);

#endif
