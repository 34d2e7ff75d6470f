/* omp_regions: OpenMP's parallel regions in source terms.
 *
 * gcc turns `#pragma omp parallel` into an outlined function
 * (main._omp_fn.0) that every thread of the team runs with one argument:
 * a struct, in the frame of the thread that started the region, whose
 * members are named after the shared variables: pointers to those shared
 * by reference, copies of the others (DWARF describes it: the outlined
 * function's parameter). A region becomes known when user code calls
 * GOMP_parallel (or a worker starts for it): its shared variables are
 * then named by their source names ("sum", "hist[3]") instead of as
 * another thread's stack, and a thread sleeping in libgomp is said to
 * wait at the region's barrier (or for a critical section: libgomp's own
 * lock) rather than on a futex word. */
#include "supervisor/model/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A struct's members are few; more would not be a region's data. */
enum { DATA_MAX_BYTES = 1024 };

bool model_fn_starts_omp_region(enum model_fn fn)
{
    return fn >= MF_OMP_PARALLEL && fn <= MF_OMP_PARALLEL_SECTIONS;
}

/* The struct type behind the outlined function's parameter. */
static const struct dwarf_type *data_struct(struct model *m, uint64_t fn)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(m->ex, fn, &fa, &lib);
    const struct dwarf_type *t = di ? dwarf_type_strip(debuginfo_omp_data_type(di, fa)) : NULL;
    if (t && t->kind == DWARF_TYPE_POINTER)
        t = dwarf_type_strip(t->target);
    return t && dwarf_type_is_record(t) && dwarf_type_size(t) <= DATA_MAX_BYTES ? t : NULL;
}

const struct omp_region *model_omp_region_add(struct model *m, uint64_t fn, uint64_t data)
{
    const struct dwarf_type *type = data_struct(m, fn);
    uint64_t size = type ? dwarf_type_size(type) : 0;
    /* A region whose data the new one overlaps is over: its frame is reused. */
    size_t kept = 0;
    for (size_t i = 0; i < m->n_regions; i++) {
        const struct omp_region *r = &m->regions[i];
        uint64_t rsize = r->data_type ? dwarf_type_size(r->data_type) : 0;
        bool same = r->fn == fn && r->data == data;
        bool overlaps = data < r->data + rsize && r->data < data + size;
        if (same)
            return r;
        if (!overlaps)
            m->regions[kept++] = *r;
    }
    m->n_regions = kept;
    if (m->n_regions == m->cap_regions) {
        m->cap_regions = m->cap_regions ? m->cap_regions * 2 : 8;
        m->regions = realloc(m->regions, m->cap_regions * sizeof *m->regions);
        if (!m->regions)
            abort();
    }
    struct omp_region *r = &m->regions[m->n_regions++];
    *r = (struct omp_region){ .fn = fn, .data = data, .data_type = type };
    exec_format_line(m->ex, fn, r->line, sizeof r->line);
    snprintf(r->label, sizeof r->label, "omp parallel%s%s", r->line[0] ? " at " : "", r->line);
    return r;
}

/* addr in the region's struct (a copy, or the pointer to a shared
 * variable: "&counter"), or in a variable a member points to. */
static bool name_in_region(struct model *m, const struct omp_region *r, uint64_t addr, char *buf, size_t len,
                           const struct dwarf_type **type)
{
    const struct dwarf_type *s = r->data_type;
    uint64_t size = dwarf_type_size(s);
    uint8_t bytes[DATA_MAX_BYTES];
    if (!s || !size || !tracee_read(m->ex->mem_fd, r->data, bytes, size))
        return false;
    for (size_t i = 0; i < s->member_count; i++) {
        const struct dwarf_member *mb = &s->members[i];
        const struct dwarf_type *mt = dwarf_type_strip(mb->type);
        if (!mb->name || !mt)
            continue;
        uint64_t extent = dwarf_member_extent(mb);
        bool pointer = mt->kind == DWARF_TYPE_POINTER;
        if (addr >= r->data + mb->offset && addr < r->data + mb->offset + extent) {
            if (!pointer) {
                *type = debuginfo_name_part(mb->name, mb->type, addr - r->data - mb->offset, buf, len);
                return true;
            }
            snprintf(buf, len, "&%s", mb->name);
            *type = addr == r->data + mb->offset ? mb->type : NULL;
            return true;
        }
        uint64_t target;
        if (!pointer || mb->offset + 8 > size)
            continue;
        memcpy(&target, bytes + mb->offset, sizeof target);
        uint64_t pointee = dwarf_type_size(mt->target);
        if (target && addr >= target && addr < target + (pointee ? pointee : 1)) {
            *type = debuginfo_name_part(mb->name, mt->target, addr - target, buf, len);
            return true;
        }
    }
    return false;
}

bool model_omp_name_data(struct model *m, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type)
{
    for (size_t i = m->n_regions; i-- > 0;)
        if (name_in_region(m, &m->regions[i], addr, buf, len, type))
            return true;
    return false;
}

static bool in_libgomp(struct model *m, uint64_t addr)
{
    uint64_t fa;
    const char *lib = NULL;
    return exec_module_of(m->ex, addr, &fa, &lib) && lib && strncmp(lib, "libgomp", 7) == 0;
}

/* The region t works in: the outlined function its last user code is in,
 * else the one it was started for, else the newest. */
static const struct omp_region *region_of(struct model *m, const struct mthread *t)
{
    struct src_loc loc;
    const char *in = t->last_user_pc && exec_code_location(m->ex, t->last_user_pc, &loc) ? loc.function : NULL;
    uint64_t started_for = model_thread_info(m, t->id)->region_fn;
    for (size_t i = m->n_regions; in && strstr(in, "._omp_fn.") && i-- > 0;) {
        char fn[96];
        exec_format_function(m->ex, m->regions[i].fn, fn, sizeof fn);
        if (strcmp(fn, in) == 0)
            return &m->regions[i];
    }
    for (size_t i = m->n_regions; started_for && i-- > 0;)
        if (m->regions[i].fn == started_for)
            return &m->regions[i];
    return m->n_regions ? &m->regions[m->n_regions - 1] : NULL;
}

/* What the libgomp function the user called waits for, by its name. */
static const struct {
    const char *prefix;
    enum thread_status status;
    const char *what;       /* "lock": named after the word; "barrier": after the region */
} omp_calls[] = {
    {"omp_set_lock", THREAD_WAITING_LOCK, "lock"},
    {"omp_set_nest_lock", THREAD_WAITING_LOCK, "lock"},
    {"GOMP_critical_name_start", THREAD_WAITING_LOCK, "named critical"},
    {"GOMP_critical_start", THREAD_WAITING_LOCK, "omp critical section"},
    {"GOMP_atomic_start", THREAD_WAITING_LOCK, "omp atomic section"},
    {"GOMP_ordered_start", THREAD_WAITING_LOCK, "omp ordered (an earlier iteration's turn)"},
    {"GOMP_taskwait", THREAD_WAITING_BARRIER, "omp taskwait"},
    {"GOMP_taskgroup_end", THREAD_WAITING_BARRIER, "omp taskgroup end"},
    {"GOMP_barrier", THREAD_WAITING_BARRIER, "omp barrier"},
    {"GOMP_loop_end", THREAD_WAITING_BARRIER, "omp barrier at the end of a for"},
    {"GOMP_sections_end", THREAD_WAITING_BARRIER, "omp barrier at the end of sections"},
    {"GOMP_single_copy", THREAD_WAITING_BARRIER, "omp barrier of a single"},
    {"GOMP_parallel", THREAD_WAITING_BARRIER, "omp barrier at the end of the parallel region"},
};

bool model_omp_wait(struct model *m, const struct mthread *t, uint64_t word, char *buf, size_t len,
                    enum thread_status *status)
{
    if (!word || !in_libgomp(m, t->regs.rip))
        return false;
    const struct omp_region *r = region_of(m, t);
    char region[64] = "";
    if (r && r->line[0])
        snprintf(region, sizeof region, " (parallel region at %s)", r->line);
    /* Where the thread is, by the libgomp function the user called. */
    uint64_t call_pc = 0;
    const char *fn = exec_library_call(m->ex, t, &call_pc);
    for (size_t i = 0; fn && i < sizeof omp_calls / sizeof omp_calls[0]; i++) {
        if (strncmp(fn, omp_calls[i].prefix, strlen(omp_calls[i].prefix)) != 0)
            continue;
        *status = omp_calls[i].status;
        char name[96];
        if (strcmp(omp_calls[i].what, "lock") == 0) {
            model_name_object(m, word, name, sizeof name);
            /* The word is the first member of omp_lock_t: name the lock. */
            char *inside = strstr(name, "._x");
            if (inside)
                *inside = '\0';
            snprintf(buf, len, "omp lock %s", name);
        } else if (strcmp(omp_calls[i].what, "named critical") == 0) {
            /* The lock lives in a common symbol .gomp_critical_user_NAME. */
            model_name_object(m, word, name, sizeof name);
            const char *user = strstr(name, "gomp_critical_user_");
            snprintf(buf, len, "omp critical section %s", user ? user + 19 : name);
        } else if (omp_calls[i].status == THREAD_WAITING_BARRIER) {
            char line[48] = "";
            if (strcmp(omp_calls[i].prefix, "GOMP_parallel") != 0)
                exec_format_line(m->ex, call_pc, line, sizeof line);
            snprintf(buf, len, "%s%s%s%s", omp_calls[i].what, line[0] ? " at " : "", line, line[0] ? "" : region);
        } else {
            snprintf(buf, len, "%s", omp_calls[i].what);
        }
        return true;
    }
    /* No call of the user's: a worker between regions or at the end of
     * one; libgomp's own locks (critical sections) live in its data. */
    if (in_libgomp(m, word)) {
        *status = THREAD_WAITING_LOCK;
        snprintf(buf, len, "omp critical section");
        return true;
    }
    *status = THREAD_WAITING_BARRIER;
    snprintf(buf, len, "omp barrier%s", region);
    return true;
}
