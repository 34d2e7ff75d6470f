/* sync_globals: walks every non-TLS variable's type for sync objects. */
#include "supervisor/debuginfo/sync_globals.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WALK_DEPTH_LIMIT = 16 };

struct collector {
    struct arena *arena;
    struct sync_global *items;
    size_t count, cap;
    bool full;
};

/* What a type is, if it is a sync object: the typedef names of POSIX and
 * C11, the class names of the C++ standard library. */
static bool sync_kind_of(const struct dwarf_type *t, enum sync_kind *kind)
{
    static const struct { const char *name; enum sync_kind kind; } typedefs[] = {
        { "pthread_mutex_t", SYNC_MUTEX },     { "sem_t", SYNC_SEMAPHORE },
        { "pthread_cond_t", SYNC_CONDVAR },    { "pthread_barrier_t", SYNC_BARRIER },
        { "pthread_rwlock_t", SYNC_RWLOCK },   { "pthread_spinlock_t", SYNC_SPINLOCK },
        { "mtx_t", SYNC_MUTEX },               { "cnd_t", SYNC_CONDVAR },
    };
    static const struct { const char *name; enum sync_kind kind; } classes[] = {
        { "mutex", SYNC_MUTEX },              { "recursive_mutex", SYNC_MUTEX },
        { "timed_mutex", SYNC_MUTEX },        { "recursive_timed_mutex", SYNC_MUTEX },
        { "condition_variable", SYNC_CONDVAR }, { "shared_mutex", SYNC_RWLOCK },
        /* (its std::condition_variable, and so the pthread_cond_t, is its
         * first member: the condvar's address is the variable's) */
        { "condition_variable_any", SYNC_CONDVAR },
    };
    for (int hop = 0; t && hop < WALK_DEPTH_LIMIT; hop++, t = t->target) {
        if (t->kind == DWARF_TYPE_TYPEDEF && t->name) {
            for (size_t i = 0; i < sizeof typedefs / sizeof typedefs[0]; i++)
                if (strcmp(t->name, typedefs[i].name) == 0) {
                    *kind = typedefs[i].kind;
                    return true;
                }
        } else if (t->kind == DWARF_TYPE_CLASS && t->name) {
            for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
                if (strcmp(t->name, classes[i].name) == 0) {
                    *kind = classes[i].kind;
                    return true;
                }
            return false;
        } else if (t->kind != DWARF_TYPE_TYPEDEF && t->kind != DWARF_TYPE_CONST &&
                   t->kind != DWARF_TYPE_VOLATILE && t->kind != DWARF_TYPE_ATOMIC) {
            return false;
        }
    }
    return false;
}

/* Whether a walk into t can find anything: decides before an array's
 * elements are visited one by one. */
static bool contains_sync(const struct dwarf_type *t, int depth)
{
    enum sync_kind kind;
    if (depth > WALK_DEPTH_LIMIT)
        return false;
    if (sync_kind_of(t, &kind))
        return true;
    t = dwarf_type_strip(t);
    if (t && t->kind == DWARF_TYPE_ARRAY)
        return t->count_known && contains_sync(t->target, depth + 1);
    if (!dwarf_type_is_record(t))
        return false;
    for (size_t i = 0; i < t->member_count; i++)
        if (!t->members[i].bit_size && contains_sync(t->members[i].type, depth + 1))
            return true;
    return false;
}

static void add(struct collector *c, enum sync_kind kind, uint64_t addr, const char *name)
{
    if (c->count == SYNC_GLOBALS_LIMIT) {
        c->full = true;
        return;
    }
    const char *copy = arena_strdup(c->arena, name);
    if (!copy || !ARRAY_ROOM(c->items, c->count, c->cap)) {
        c->full = true;
        return;
    }
    c->items[c->count++] = (struct sync_global){ kind, addr, copy };
}

static void visit(struct collector *c, const char *name, const struct dwarf_type *t, uint64_t addr, int depth)
{
    enum sync_kind kind;
    if (c->full || depth > WALK_DEPTH_LIMIT)
        return;
    if (sync_kind_of(t, &kind)) {
        add(c, kind, addr, name);
        return;
    }
    if (!contains_sync(t, depth))
        return;
    const struct dwarf_type *s = dwarf_type_strip(t);
    char inner[256];
    if (s->kind == DWARF_TYPE_ARRAY) {
        uint64_t element_size = dwarf_type_size(s->target);
        for (uint64_t i = 0; i < s->count && !c->full; i++) {
            snprintf(inner, sizeof inner, "%s[%" PRIu64 "]", name, i);
            visit(c, inner, s->target, addr + i * element_size, depth + 1);
        }
        return;
    }
    for (size_t i = 0; i < s->member_count && !c->full; i++) {
        const struct dwarf_member *m = &s->members[i];
        if (m->bit_size)
            continue;
        if (m->name)
            snprintf(inner, sizeof inner, "%s.%s", name, m->name);
        else
            snprintf(inner, sizeof inner, "%s", name);
        visit(c, inner, m->type, addr + m->offset, depth + 1);
    }
}

size_t sync_globals_collect(const dwarf_info *dw, struct arena *arena, struct sync_global **out)
{
    struct collector c = { .arena = arena };
    const struct dwarf_variable *vars;
    size_t count = dw ? dwarf_info_variables(dw, &vars) : 0;
    for (size_t i = 0; i < count && !c.full; i++)
        if (!vars[i].tls)
            visit(&c, vars[i].name, vars[i].type, vars[i].addr, 0);
    *out = c.items;
    return c.count;
}
