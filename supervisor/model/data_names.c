/* data_names: data addresses of a running execution in source terms.
 *
 * The order of answers: a variable of the executable (with its member or
 * element, or an object reached through a pointer variable), a heap block
 * by its allocation ("heap#2 (malloc at q.c:9)+8"), a thread-local
 * variable ("tls_hits (T2)"), a symbol of a library, a shared variable of
 * an OpenMP parallel region ("sum"), a thread's stack; hex at worst. A
 * std::condition_variable_any's own mutex, in a heap block of its own, is
 * named for the condvar ("table_changed (its mutex)"). */
#include "supervisor/model/model_internal.h"
#include "supervisor/model/source_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool read_tracee(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct model *m = ctx;
    return tracee_read(m->ex->mem_fd, addr, buf, n);
}

static uint64_t heap_extent(void *ctx, uint64_t addr)
{
    const struct model *m = ctx;
    const struct heap_block *b = heap_map_find(&m->ex->heap, addr);
    return b ? b->addr + b->size - addr : 0;
}

static const struct mthread *thread_with_stack(struct execution *ex, uint64_t addr);

/* Once exit() has begun: memory the user's code freed since (a
 * destructor exit() ran), not handed out again by a call mdat followed;
 * or heap memory it never allocated (a buffer the C++ library made), which
 * may have been freed unseen. A live block, a global, a stack are intact. */
static enum after_exit after_exit(void *ctx, uint64_t addr)
{
    struct model *m = ctx;
    struct execution *ex = m->ex;
    if (!ex->exit_began || heap_map_find(&ex->heap, addr))
        return AFTER_EXIT_INTACT;
    if (heap_map_find(&ex->freed, addr))
        return AFTER_EXIT_FREED;
    if (code_map_in_own_module(ex->cfg->code, addr) || thread_with_stack(ex, addr))
        return AFTER_EXIT_INTACT;
    return AFTER_EXIT_UNKNOWN;
}

struct data_reader model_reader(struct model *m)
{
    return (struct data_reader){read_tracee, m, code_map_bias(m->ex->cfg->code), heap_extent, after_exit};
}

uint64_t model_thread_pointer(const struct mthread *t)
{
    return t->tls ? t->tls : t->regs.fs_base;
}

static const struct mthread *thread_with_stack(struct execution *ex, uint64_t addr)
{
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].stack_hi && addr >= ex->threads[i].stack_lo && addr < ex->threads[i].stack_hi)
            return &ex->threads[i];
    return NULL;
}

/* A thread-local variable of the executable: "tls_counter (T2)". */
static bool name_tls(struct model *m, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type)
{
    struct execution *ex = m->ex;
    uint64_t size, align;
    if (!debuginfo_tls_block(ex->cfg->exe, &size, &align))
        return false;
    for (int i = 0; i < ex->n_threads; i++) {
        uint64_t tp = model_thread_pointer(&ex->threads[i]);
        if (!tp || addr >= tp || addr < tp - size)
            continue;
        char name[96];
        if (!debuginfo_name_tls(ex->cfg->exe, addr - (tp - size), name, sizeof name, type))
            return false;
        snprintf(buf, len, "%s (T%d)", name, ex->threads[i].id);
        return true;
    }
    return false;
}

/* The condition_variable_any objects the program declares, found once
 * per execution among the first condvars known (the declared ones come
 * first; a C array of thousands is not evaluated one by one): libstdc++
 * gives each a std::mutex of its own in a heap block (shared_ptr<mutex>
 * _M_mutex), which its waits and notifies lock. */
enum { CV_ANY_SEARCH_LIMIT = 64 };

static void find_cv_any(struct model *m)
{
    m->cv_any_known = true;
    struct data_reader rd = model_reader(m);
    size_t condvars = 0;
    for (size_t i = 0; i < m->sync.n && condvars < CV_ANY_SEARCH_LIMIT; i++) {
        const struct sync_object *o = &m->sync.objs[i];
        condvars += o->kind == SYNC_CONDVAR;
        uint64_t addr, offset;
        const struct dwarf_type *type;
        char err[128];
        if (o->kind != SYNC_CONDVAR || !debuginfo_eval(m->ex->cfg->exe, o->name, &rd, &addr, &type, err, sizeof err))
            continue;
        const struct dwarf_type *t = dwarf_type_strip(type);
        if (!t || !t->name || strcmp(t->name, "condition_variable_any") != 0 ||
            !dwarf_type_find_member(t, "_M_mutex", &offset))
            continue;
        struct cv_any *grown = realloc(m->cv_any, (m->n_cv_any + 1) * sizeof *grown);
        if (!grown)
            abort();
        m->cv_any = grown;
        m->cv_any[m->n_cv_any].mutex_pointer_at = addr + offset;
        snprintf(m->cv_any[m->n_cv_any].name, sizeof m->cv_any[m->n_cv_any].name, "%s", o->name);
        m->n_cv_any++;
    }
}

enum { STD_MUTEX_BYTES = 40 };  /* a pthread_mutex_t on x86-64 */

/* addr inside the mutex of a declared condition_variable_any: "table_changed
 * (its mutex)", not the heap block libstdc++ put it in. */
static bool name_cv_any_mutex(struct model *m, uint64_t addr, char *buf, size_t len)
{
    if (!m->cv_any_known)
        find_cv_any(m);
    for (size_t i = 0; i < m->n_cv_any; i++) {
        uint64_t mutex = 0;
        if (!tracee_read(m->ex->mem_fd, m->cv_any[i].mutex_pointer_at, &mutex, sizeof mutex) || !mutex ||
            addr < mutex || addr >= mutex + STD_MUTEX_BYTES)
            continue;
        if (addr == mutex)
            snprintf(buf, len, "%s (its mutex)", m->cv_any[i].name);
        else
            snprintf(buf, len, "%s (its mutex)+%" PRIu64, m->cv_any[i].name, addr - mutex);
        return true;
    }
    return false;
}

static bool name_heap(struct model *m, uint64_t addr, char *buf, size_t len)
{
    const struct heap_block *b = heap_map_find(&m->ex->heap, addr);
    if (!b)
        return false;
    exec_format_heap_addr(m->ex, b, addr, buf, len);
    return true;
}

/* A symbol of a loaded library: "stdout (libc.so.6)". */
static bool name_in_library(struct model *m, uint64_t addr, char *buf, size_t len)
{
    uint64_t fa;
    const char *lib;
    const debuginfo *di = exec_module_of(m->ex, addr, &fa, &lib);
    if (!di || di == m->ex->cfg->exe)
        return false;
    debuginfo_format_data(di, fa, buf, len);
    if (!buf[0])
        return false;
    size_t n = strlen(buf);
    if (lib && n + 1 < len)
        snprintf(buf + n, len - n, " (%s)", lib);
    return true;
}

void model_name_typed(struct model *m, uint64_t addr, char *buf, size_t len, const struct dwarf_type **type)
{
    buf[0] = '\0';
    *type = NULL;
    struct data_reader rd = model_reader(m);
    if (debuginfo_name_data(m->ex->cfg->exe, addr, &rd, buf, len, type))
        return;
    *type = NULL;
    if (name_cv_any_mutex(m, addr, buf, len) || name_heap(m, addr, buf, len))
        return;
    if (name_tls(m, addr, buf, len, type))
        return;
    *type = NULL;
    if (name_in_library(m, addr, buf, len))
        return;
    if (model_omp_name_data(m, addr, buf, len, type))
        return;
    *type = NULL;
    const struct mthread *owner = thread_with_stack(m->ex, addr);
    if (owner)
        snprintf(buf, len, "0x%" PRIx64 " (stack of T%d)", addr, owner->id);
    else
        snprintf(buf, len, "0x%" PRIx64, addr);
}

void model_name_object(struct model *m, uint64_t addr, char *buf, size_t len)
{
    const struct dwarf_type *type;
    model_name_typed(m, addr, buf, len, &type);
}

void model_name_data(struct execution *ex, uint64_t addr, char *buf, size_t len)
{
    if (ex->model_state && ex->model == &source_model_ops)
        model_name_object(ex->model_state, addr, buf, len);
    else
        snprintf(buf, len, "0x%" PRIx64, addr);
}
