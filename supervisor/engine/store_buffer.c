/* store_buffer: a growable FIFO of pending stores per thread id. */
#include "supervisor/engine/store_buffer.h"

#include <stdlib.h>
#include <string.h>

struct fifo {
    struct pending_store *at;
    size_t head, n, cap;        /* entries at[head .. head + n) */
};

struct store_buffers {
    struct store_memory mem;
    struct fifo *threads;       /* index = thread id */
    size_t cap_threads;
    int viewer;
};

struct store_buffers *store_buffers_new(const struct store_memory *mem)
{
    struct store_buffers *sb = calloc(1, sizeof *sb);
    if (!sb)
        abort();
    sb->mem = *mem;
    return sb;
}

void store_buffers_free(struct store_buffers *sb)
{
    if (!sb)
        return;
    for (size_t i = 0; i < sb->cap_threads; i++)
        free(sb->threads[i].at);
    free(sb->threads);
    free(sb);
}

static struct fifo *fifo_of(const struct store_buffers *sb, int thread)
{
    return thread > 0 && (size_t)thread < sb->cap_threads ? &sb->threads[thread] : NULL;
}

static struct fifo *fifo_made(struct store_buffers *sb, int thread)
{
    if ((size_t)thread >= sb->cap_threads) {
        size_t cap = sb->cap_threads ? sb->cap_threads : 16;
        while (cap <= (size_t)thread)
            cap *= 2;
        sb->threads = realloc(sb->threads, cap * sizeof *sb->threads);
        if (!sb->threads)
            abort();
        memset(sb->threads + sb->cap_threads, 0, (cap - sb->cap_threads) * sizeof *sb->threads);
        sb->cap_threads = cap;
    }
    return &sb->threads[thread];
}

static struct pending_store *entry(struct fifo *f, size_t i)
{
    return &f->at[f->head + i];
}

static void drop_oldest(struct fifo *f)
{
    f->head++;
    if (--f->n == 0)
        f->head = 0;
}

/* Takes the viewer's stores off, newest first: each store's bytes go back
 * to what they replaced, unless something else wrote there meanwhile. */
static bool take_off(struct store_buffers *sb)
{
    struct fifo *f = fifo_of(sb, sb->viewer);
    sb->viewer = 0;
    if (!f || f->n == 0)
        return true;
    size_t kept = 0;
    bool *overwritten = calloc(f->n, sizeof *overwritten);
    if (!overwritten)
        abort();
    for (size_t i = f->n; i-- > 0;) {
        struct pending_store *e = entry(f, i);
        uint8_t now[8];
        if (!sb->mem.read(sb->mem.ctx, e->addr, now, e->size)) {
            free(overwritten);
            return false;
        }
        if (memcmp(now, e->value, e->size) != 0) {
            overwritten[i] = true;
            continue;
        }
        if (!sb->mem.write(sb->mem.ctx, e->addr, e->replaced, e->size)) {
            free(overwritten);
            return false;
        }
    }
    for (size_t i = 0; i < f->n; i++)
        if (!overwritten[i])
            f->at[kept++] = *entry(f, i);
    f->head = 0;
    f->n = kept;
    free(overwritten);
    return true;
}

static bool lay_over(struct store_buffers *sb, int thread)
{
    sb->viewer = thread;
    struct fifo *f = fifo_of(sb, thread);
    for (size_t i = 0; f && i < f->n; i++) {
        struct pending_store *e = entry(f, i);
        if (!sb->mem.read(sb->mem.ctx, e->addr, e->replaced, e->size) ||
            !sb->mem.write(sb->mem.ctx, e->addr, e->value, e->size))
            return false;
    }
    return true;
}

bool store_buffers_view(struct store_buffers *sb, int thread)
{
    if (sb->viewer == thread)
        return true;
    return take_off(sb) && lay_over(sb, thread);
}

int store_buffers_viewer(const struct store_buffers *sb)
{
    return sb->viewer;
}

void store_buffers_add(struct store_buffers *sb, uint64_t addr, unsigned size, const void *value,
                       const void *replaced, uint64_t pc, uint64_t step)
{
    struct fifo *f = fifo_made(sb, sb->viewer);
    if (f->head + f->n == f->cap) {
        if (f->head > 0) {
            memmove(f->at, f->at + f->head, f->n * sizeof *f->at);
            f->head = 0;
        } else {
            f->cap = f->cap ? f->cap * 2 : 8;
            f->at = realloc(f->at, f->cap * sizeof *f->at);
            if (!f->at)
                abort();
        }
    }
    struct pending_store *e = &f->at[f->head + f->n++];
    memset(e, 0, sizeof *e);
    e->addr = addr;
    e->pc = pc;
    e->step = step;
    e->size = (uint8_t)(size > 8 ? 8 : size);
    memcpy(e->value, value, e->size);
    memcpy(e->replaced, replaced, e->size);
}

size_t store_buffers_pending(const struct store_buffers *sb, int thread)
{
    const struct fifo *f = fifo_of(sb, thread);
    return f ? f->n : 0;
}

const struct pending_store *store_buffers_oldest(const struct store_buffers *sb, int thread)
{
    struct fifo *f = fifo_of(sb, thread);
    return f && f->n ? entry(f, 0) : NULL;
}

const struct pending_store *store_buffers_at(const struct store_buffers *sb, int thread, size_t i)
{
    struct fifo *f = fifo_of(sb, thread);
    return f && i < f->n ? entry(f, i) : NULL;
}

bool store_buffers_commit_oldest(struct store_buffers *sb, int thread)
{
    struct fifo *f = fifo_of(sb, thread);
    if (!f || f->n == 0)
        return true;
    if (sb->viewer != thread) {
        /* Everyone's memory is under the viewer's stores: take them off,
         * write, and let the next view lay them on again. */
        if (!take_off(sb))
            return false;
        struct pending_store *e = entry(f, 0);
        if (!sb->mem.write(sb->mem.ctx, e->addr, e->value, e->size))
            return false;
    }
    /* Laid over, the store is in memory already; the newer ones replaced
     * bytes that include it. */
    drop_oldest(f);
    return true;
}

bool store_buffers_drain(struct store_buffers *sb, int thread)
{
    while (store_buffers_pending(sb, thread))
        if (!store_buffers_commit_oldest(sb, thread))
            return false;
    return true;
}

size_t store_buffers_threads(const struct store_buffers *sb, int *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 1; i < sb->cap_threads; i++)
        if (sb->threads[i].n) {
            if (k < max)
                out[k] = (int)i;
            k++;
        }
    return k;
}
