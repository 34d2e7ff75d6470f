/* symbol_names: a cache of demangled symbol names, keyed by the symbol's
 * own (stable) name pointer in an open-addressing table. */
#include "supervisor/debuginfo/symbol_names.h"
#include "supervisor/debuginfo/arena.h"
#include "supervisor/debuginfo/cxx_names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    const char *key;
    const char *shown;
};

/* A C++ function by its demangled name, for finding one by name. */
struct named_function {
    const char *name;
    uint64_t addr;
};

struct symbol_names {
    struct slot *slots;
    size_t cap, used;           /* cap: a power of two, or 0 */
    struct arena text;
    struct named_function *by_name;   /* sorted by name, built on first use */
    size_t n_by_name;
    bool by_name_built;
};

struct symbol_names *symbol_names_new(void)
{
    return calloc(1, sizeof(struct symbol_names));
}

void symbol_names_free(struct symbol_names *names)
{
    if (!names)
        return;
    free(names->slots);
    free(names->by_name);
    arena_free(&names->text);
    free(names);
}

static size_t slot_of(const struct slot *slots, size_t cap, const char *key)
{
    size_t i = ((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15u & (cap - 1);
    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & (cap - 1);
    return i;
}

static bool grow(struct symbol_names *names)
{
    size_t cap = names->cap ? names->cap * 2 : 64;
    struct slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < names->cap; i++)
        if (names->slots[i].key)
            slots[slot_of(slots, cap, names->slots[i].key)] = names->slots[i];
    free(names->slots);
    names->slots = slots;
    names->cap = cap;
    return true;
}

const char *symbol_names_get(struct symbol_names *names, const struct elf_symbol *sym)
{
    if (!names || strncmp(sym->name, "_Z", 2) != 0)
        return sym->name;
    if ((names->used + 1) * 2 > names->cap && !grow(names))
        return sym->name;
    size_t i = slot_of(names->slots, names->cap, sym->name);
    if (names->slots[i].key)
        return names->slots[i].shown;
    char shown[512];
    cxx_readable_symbol(sym->name, sym->is_func, shown, sizeof shown);
    const char *copy = arena_intern(&names->text, shown);
    if (!copy)
        return sym->name;
    names->slots[i] = (struct slot){ sym->name, copy };
    names->used++;
    return copy;
}

static int compare_named(const void *a, const void *b)
{
    return strcmp(((const struct named_function *)a)->name, ((const struct named_function *)b)->name);
}

static void build_by_name(struct symbol_names *names, const elf_image *img)
{
    names->by_name_built = true;
    const struct elf_symbol *fns;
    size_t n = elf_image_functions(img, &fns);
    names->by_name = calloc(n ? n : 1, sizeof *names->by_name);
    if (!names->by_name)
        return;
    for (size_t i = 0; i < n; i++) {
        char demangled[1024], name[512];
        if (!cxx_demangle(fns[i].name, demangled, sizeof demangled))
            continue;
        cxx_signature_name(demangled, name, sizeof name);
        const char *copy = arena_intern(&names->text, name);
        if (copy)
            names->by_name[names->n_by_name++] = (struct named_function){ copy, fns[i].addr };
    }
    qsort(names->by_name, names->n_by_name, sizeof *names->by_name, compare_named);
}

uint64_t symbol_names_find_function(struct symbol_names *names, const elf_image *img, const char *name)
{
    if (!names)
        return 0;
    if (!names->by_name_built)
        build_by_name(names, img);
    struct named_function key = { name, 0 };
    const struct named_function *found =
        names->n_by_name ? bsearch(&key, names->by_name, names->n_by_name, sizeof key, compare_named) : NULL;
    return found ? found->addr : 0;
}
