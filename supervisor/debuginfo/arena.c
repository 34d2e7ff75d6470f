/* arena: chunked bump allocation and an interning hash set over it. */
#include "supervisor/debuginfo/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool grow_slots(struct arena *arena)
{
    size_t new_count = arena->slot_count ? arena->slot_count * 2 : 256;
    const char **slots = calloc(new_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < arena->slot_count; i++) {
        const char *s = arena->slots[i];
        if (!s)
            continue;
        size_t j = hash_string(s) & (new_count - 1);
        while (slots[j])
            j = (j + 1) & (new_count - 1);
        slots[j] = s;
    }
    free(arena->slots);
    arena->slots = slots;
    arena->slot_count = new_count;
    return true;
}

/* Blocks bigger than a chunk get a chunk of their own; the current chunk's
 * free space is then kept for the small blocks that follow. */
static void *take(struct arena *arena, size_t size, size_t align)
{
    size_t pad = (size_t)(-(uintptr_t)arena->free_space & (align - 1));
    if (arena->free_space && pad + size <= arena->free_left) {
        char *block = arena->free_space + pad;
        arena->free_space += pad + size;
        arena->free_left -= pad + size;
        return block;
    }
    char **chunks = realloc(arena->chunks, (arena->chunk_count + 1) * sizeof *chunks);
    if (!chunks)
        return NULL;
    arena->chunks = chunks;
    size_t chunk_size = size > ARENA_CHUNK ? size : ARENA_CHUNK;
    char *chunk = malloc(chunk_size); /* malloc's alignment covers ARENA_ALIGN */
    if (!chunk)
        return NULL;
    arena->chunks[arena->chunk_count++] = chunk;
    if (chunk_size - size >= arena->free_left) {
        arena->free_space = chunk + size;
        arena->free_left = chunk_size - size;
    }
    return chunk;
}

void *arena_alloc(struct arena *arena, size_t size)
{
    void *block = take(arena, size ? size : 1, ARENA_ALIGN);
    if (block)
        memset(block, 0, size);
    return block;
}

static char *store_string(struct arena *arena, const char *s)
{
    size_t len = strlen(s);
    char *copy = take(arena, len + 1, 1);
    if (copy)
        memcpy(copy, s, len + 1);
    return copy;
}

const char *arena_strdup(struct arena *arena, const char *s) { return store_string(arena, s); }

const char *arena_intern(struct arena *arena, const char *s)
{
    if ((arena->used + 1) * 2 > arena->slot_count && !grow_slots(arena))
        return NULL;
    size_t mask = arena->slot_count - 1;
    size_t i = hash_string(s) & mask;
    for (; arena->slots[i]; i = (i + 1) & mask)
        if (strcmp(arena->slots[i], s) == 0)
            return arena->slots[i];
    const char *copy = store_string(arena, s);
    if (copy) {
        arena->slots[i] = copy;
        arena->used++;
    }
    return copy;
}

bool array_grow(void **array, size_t *cap, size_t elem_size)
{
    size_t new_cap = *cap ? *cap * 2 : 64;
    void *grown = realloc(*array, new_cap * elem_size);
    if (!grown)
        return false;
    *array = grown;
    *cap = new_cap;
    return true;
}

void arena_free(struct arena *arena)
{
    for (size_t i = 0; i < arena->chunk_count; i++)
        free(arena->chunks[i]);
    free(arena->chunks);
    free(arena->slots);
    memset(arena, 0, sizeof *arena);
}
