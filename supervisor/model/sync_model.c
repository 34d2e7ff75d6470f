/* sync_model: a registry kept in first-seen order for stable views, with a
 * sorted index for lookups by address. */
#include "supervisor/model/sync_model.h"
#include "supervisor/model/glibc_sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sync_model_init(struct sync_model *m)
{
    memset(m, 0, sizeof *m);
}

void sync_model_free(struct sync_model *m)
{
    free(m->objs);
    free(m->by_addr);
    memset(m, 0, sizeof *m);
}

/* Position in by_addr of the first object whose address is >= addr. */
static size_t lower_bound(const struct sync_model *m, uint64_t addr)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->objs[m->by_addr[mid]].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct sync_object *sync_model_get(struct sync_model *m, uint64_t addr)
{
    size_t i = lower_bound(m, addr);
    return i < m->n && m->objs[m->by_addr[i]].addr == addr ? &m->objs[m->by_addr[i]] : NULL;
}

struct sync_object *sync_model_containing(struct sync_model *m, uint64_t addr)
{
    size_t i = lower_bound(m, addr + 1);    /* first object above addr */
    if (i == 0)
        return NULL;
    struct sync_object *o = &m->objs[m->by_addr[i - 1]];
    return addr < o->addr + glibc_sync_size(o->kind) ? o : NULL;
}

struct sync_object *sync_model_add(struct sync_model *m, enum sync_kind kind, uint64_t addr, const char *name)
{
    size_t pos = lower_bound(m, addr);
    if (pos < m->n && m->objs[m->by_addr[pos]].addr == addr) {
        struct sync_object *o = &m->objs[m->by_addr[pos]];
        if (o->kind == SYNC_FUTEX)
            o->kind = kind;
        return o;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 32;
        m->objs = realloc(m->objs, m->cap * sizeof *m->objs);
        m->by_addr = realloc(m->by_addr, m->cap * sizeof *m->by_addr);
        if (!m->objs || !m->by_addr)
            abort();
    }
    struct sync_object *o = &m->objs[m->n];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->addr = addr;
    snprintf(o->name, sizeof o->name, "%s", name);
    memmove(&m->by_addr[pos + 1], &m->by_addr[pos], (m->n - pos) * sizeof *m->by_addr);
    m->by_addr[pos] = (uint32_t)m->n;
    m->n++;
    return o;
}
