/* exec_heap: the heap calls of the user's code (malloc, calloc, realloc,
 * free, new and delete, aligned or not, and C's aligned allocators),
 * followed at their entry and where they return.
 *
 * Owns the execution's map of the blocks user code holds (ex->heap: their
 * numbers, sizes and allocating lines, which name addresses in traces)
 * and tells the listeners what the calls do to them: a block handed out,
 * a block about to be freed (a listener may judge that free an error
 * before it runs), a free that has returned. A call that libc or
 * libstdc++ makes inside itself is not followed (code_map.c): a block
 * they hand out is unknown here. */
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_pages.h"
#include "supervisor/sharing/page_owners.h"

static bool ends_block(enum model_fn fn)
{
    return fn == MF_FREE || fn == MF_DELETE || fn == MF_DELETE_SIZED || fn == MF_DELETE_ARRAY ||
           fn == MF_DELETE_ARRAY_SIZED || fn == MF_DELETE_ALIGNED || fn == MF_DELETE_SIZED_ALIGNED ||
           fn == MF_DELETE_ARRAY_ALIGNED || fn == MF_DELETE_ARRAY_SIZED_ALIGNED;
}

static bool hands_out(enum model_fn fn)
{
    return fn == MF_MALLOC || fn == MF_CALLOC || fn == MF_REALLOC || fn == MF_NEW || fn == MF_NEW_ARRAY ||
           fn == MF_NEW_ALIGNED || fn == MF_NEW_ARRAY_ALIGNED || (fn >= MF_POSIX_MEMALIGN && fn <= MF_PVALLOC);
}

/* The bytes asked for, from the arguments at the call's entry. */
static uint64_t size_asked(enum model_fn fn, const struct user_regs_struct *r)
{
    switch (fn) {
    case MF_CALLOC: return r->rdi * r->rsi;
    case MF_REALLOC: case MF_ALIGNED_ALLOC: case MF_MEMALIGN: return r->rsi;
    case MF_POSIX_MEMALIGN: return r->rdx;
    /* Whole pages, at least one. */
    case MF_PVALLOC: return r->rdi ? (r->rdi + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1) : PAGE_BYTES;
    default: return r->rdi;
    }
}

/* Listeners judge a free (or realloc) of addr before it runs. */
static bool tell_freeing(struct execution *ex, struct mthread *t, uint64_t addr, const struct heap_block *b)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->freeing && !l->ops->freeing(l->self, ex, t->id, addr, b, t->heap_site, ex->res))
            return false;
    }
    return true;
}

/* Under page ownership a thread may touch a page natively once it is its
 * own: a use of a freed block would be no step, and nobody would judge
 * it. The blocks freed since are kept, and a fault on one is a step
 * (exec_pages_touch); a page of it a thread owns, the freeing one
 * included, is observed (exec_pages_freed). Once exit() has begun they
 * are kept too: a watched global whose destructor freed what it held
 * is told as destroyed, not read (model/data_names.c). */
static void note_freed(struct execution *ex, struct mthread *t, const struct heap_block *b)
{
    if (!b->addr || (!ex->pages && !ex->exit_began))
        return;
    heap_map_add(&ex->freed, b->addr, b->size, b->how, b->site);
    if (ex->pages)
        exec_pages_freed(ex, t, b->addr, b->size);
}

static void tell_freed(struct execution *ex, struct mthread *t, const struct heap_block *b)
{
    note_freed(ex, t, b);
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->freed)
            l->ops->freed(l->self, ex, t->id, b, t->heap_site);
    }
}

static void tell_allocated(struct execution *ex, const struct mthread *t, uint64_t addr)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->allocated)
            l->ops->allocated(l->self, t->id, addr, t->heap_size);
    }
}

bool exec_heap_call(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t site, uint64_t ret)
{
    t->in_call = false;
    t->heap_fn = fn;
    t->heap_site = site;
    t->heap_size = size_asked(fn, &t->regs);
    t->heap_old = fn == MF_REALLOC ? t->regs.rdi : 0;
    t->heap_out = fn == MF_POSIX_MEMALIGN ? t->regs.rdi : 0;
    t->heap_freeing = (struct heap_block){0};
    uint64_t ending = ends_block(fn) ? t->regs.rdi : t->heap_old;
    if (ending) {
        const struct heap_block *b = heap_map_find(&ex->heap, ending);
        if (b && b->addr != ending)
            b = NULL;   /* inside a block: not one the program was handed */
        if (!tell_freeing(ex, t, ending, b))
            return false;
        if (b && ex->pages)
            exec_pages_freeing(ex, t, b->addr, b->size);
        if (b && ends_block(fn))
            heap_map_remove(&ex->heap, ending, &t->heap_freeing);
    }
    if (hands_out(fn) || t->heap_freeing.addr) {
        t->heap_ret = ret;
        exec_return_break_add(ex, ret);
    }
    return true;
}

void exec_heap_returned(struct execution *ex, struct mthread *t)
{
    t->heap_ret = 0;
    if (ends_block(t->heap_fn)) {
        tell_freed(ex, t, &t->heap_freeing);
        t->heap_freeing = (struct heap_block){0};
        return;
    }
    uint64_t block = t->regs.rax;
    /* posix_memalign returns 0 and the block through its first argument. */
    if (t->heap_fn == MF_POSIX_MEMALIGN)
        block = (uint32_t)t->regs.rax == 0 && tracee_read(ex->mem_fd, t->heap_out, &block, sizeof block) ? block : 0;
    /* realloc moved the block (or freed it, asked for 0 bytes): the old one is over. */
    if (t->heap_old && block != t->heap_old && (block || t->heap_size == 0)) {
        struct heap_block old;
        if (heap_map_remove(&ex->heap, t->heap_old, &old))
            tell_freed(ex, t, &old);
    }
    if (!block)
        return;
    /* A block resized in place is named anew: the add replaces it. */
    heap_map_add(&ex->heap, block, t->heap_size, model_fn_verb(t->heap_fn), t->heap_site);
    heap_map_forget(&ex->freed, block, t->heap_size);
    tell_allocated(ex, t, block);
    if (ex->pages)
        exec_pages_allocated(ex, t, block, t->heap_size);
}
