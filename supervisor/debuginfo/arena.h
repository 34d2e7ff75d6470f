/* arena: storage for tables that are loaded once and kept until the whole
 * table is freed (DWARF types, variables, names).
 *
 * Owns bump allocation in large chunks (so pointers stay valid while the
 * tables grow, and freeing is one pass over the chunks) and string interning
 * (each distinct string stored once: DWARF repeats file, type and member
 * names in every compilation unit), and the growable arrays those tables are
 * collected in before they are sorted. */
#ifndef MDAT_SUPERVISOR_ARENA_H
#define MDAT_SUPERVISOR_ARENA_H

#include <stdbool.h>
#include <stddef.h>

struct arena {
    char **chunks;
    size_t chunk_count;
    char *free_space;
    size_t free_left;
    const char **slots; /* open-addressing hash set of interned strings */
    size_t slot_count, used;
};

/* A zeroed, 16-byte aligned block, or NULL when out of memory. */
void *arena_alloc(struct arena *arena, size_t size);
/* The arena's copy of s (the same pointer for equal strings), NULL when out of memory. */
const char *arena_intern(struct arena *arena, const char *s);
/* A copy of s that is not interned (for strings that are built once). */
const char *arena_strdup(struct arena *arena, const char *s);
/* Doubles a malloc'd array's capacity (at least 64 elements); false when out
 * of memory (the array is unchanged). ARRAY_ROOM makes room for one more. */
bool array_grow(void **array, size_t *cap, size_t elem_size);
#define ARRAY_ROOM(array, count, cap) \
    ((count) < (cap) || array_grow((void **)&(array), &(cap), sizeof *(array)))

/* Frees every block and string; the arena is empty (zeroed) afterwards. */
void arena_free(struct arena *arena);

#endif
