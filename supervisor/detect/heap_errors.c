/* heap_errors: the freed blocks of one execution, sorted by address, each
 * with what the allocator left in it (heap_errors.h says why). */
#include "supervisor/detect/heap_errors.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/process/heap_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes compared: glibc's chunk header (8 bytes before the block) and
 * the block's first 16, where every free writes its links (tcache: next
 * and key; the bins: fd and bk; merged into top: the header). A chunk is
 * at least 32 bytes, so these are the block's own even for malloc(1). */
enum { WATCH_BEFORE = 8, WATCH_BYTES = 24 };

struct freed_block {
    struct heap_block block;
    int thread;             /* who freed it */
    uint64_t step;          /* the step whose free it was */
    uint64_t call_pc;       /* the user's free */
    bool watched;           /* left[] could be read */
    uint8_t left[WATCH_BYTES];
};

struct heap_errors {
    struct execution *ex;   /* the running one */
    struct freed_block *freed;
    size_t n, cap;
};

struct heap_errors *heap_errors_new(void)
{
    struct heap_errors *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    return h;
}

void heap_errors_free(struct heap_errors *h)
{
    if (!h)
        return;
    free(h->freed);
    free(h);
}

static uint64_t block_end(const struct heap_block *b)
{
    return b->addr + (b->size ? b->size : 1);
}

/* Index of the first freed block that ends after addr. */
static size_t first_ending_after(const struct heap_errors *h, uint64_t addr)
{
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (block_end(&h->freed[mid].block) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The freed block [addr, addr + size) overlaps, NULL when none. */
static struct freed_block *overlapping(struct heap_errors *h, uint64_t addr, uint64_t size)
{
    size_t i = first_ending_after(h, addr);
    return i < h->n && h->freed[i].block.addr < addr + (size ? size : 1) ? &h->freed[i] : NULL;
}

/* Forgets every freed block that [addr, addr + size) overlaps. */
static void forget(struct heap_errors *h, uint64_t addr, uint64_t size)
{
    size_t from = first_ending_after(h, addr), to = from;
    while (to < h->n && h->freed[to].block.addr < addr + (size ? size : 1))
        to++;
    if (to == from)
        return;
    memmove(&h->freed[from], &h->freed[to], (h->n - to) * sizeof *h->freed);
    h->n -= to - from;
}

/* The bytes watched of the block at addr, as they are now. */
static bool read_watched(const struct execution *ex, uint64_t addr, uint8_t out[WATCH_BYTES])
{
    return tracee_read(ex->mem_fd, addr - WATCH_BEFORE, out, WATCH_BYTES);
}

/* Whether fb is still as its free left it. */
static bool untouched_since_free(const struct execution *ex, const struct freed_block *fb)
{
    uint8_t now[WATCH_BYTES];
    return fb->watched && read_watched(ex, fb->block.addr, now) && memcmp(now, fb->left, sizeof now) == 0;
}

static void on_begin(void *self, struct execution *ex)
{
    struct heap_errors *h = self;
    h->ex = ex;
    h->n = 0;
}

/* A thread's end hands the blocks in its own cache back to the arena
 * (glibc's tcache): the link in a block's first 8 bytes changes, though
 * nobody took the block. A block the ending thread freed whose header and
 * second 8 bytes (tcache's key, which glibc clears when it hands the block
 * out again) are still as its free left them is still free: what it holds
 * now is what the arena left. */
enum { LINK_BYTES = WATCH_BEFORE + 8 };

static void on_thread_exited(void *self, int thread, uint64_t pthread)
{
    struct heap_errors *h = self;
    for (size_t i = 0; i < h->n; i++) {
        struct freed_block *fb = &h->freed[i];
        uint8_t now[WATCH_BYTES];
        if (fb->thread != thread || !fb->watched || !read_watched(h->ex, fb->block.addr, now))
            continue;
        if (memcmp(now, fb->left, WATCH_BEFORE) == 0 &&
            memcmp(now + LINK_BYTES, fb->left + LINK_BYTES, WATCH_BYTES - LINK_BYTES) == 0)
            memcpy(fb->left, now, sizeof now);
    }
}

static void on_allocated(void *self, int thread, uint64_t addr, uint64_t size)
{
    forget(self, addr, size);
}

static void on_freed(void *self, struct execution *ex, int thread, const struct heap_block *b, uint64_t call_pc)
{
    struct heap_errors *h = self;
    if (!b->addr)
        return;
    forget(h, b->addr, b->size);
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->freed = realloc(h->freed, h->cap * sizeof *h->freed);
        if (!h->freed)
            abort();
    }
    struct freed_block fb = {.block = *b, .thread = thread, .step = ex->steps + 1, .call_pc = call_pc};
    fb.watched = read_watched(ex, b->addr, fb.left);
    size_t at = first_ending_after(h, b->addr);
    memmove(&h->freed[at + 1], &h->freed[at], (h->n - at) * sizeof *h->freed);
    h->freed[at] = fb;
    h->n++;
}

/* "which T1 freed at step 9 (uaf.c:24)" */
static void describe_free(struct execution *ex, const struct freed_block *fb, char *buf, size_t len)
{
    char where[96];
    exec_format_line(ex, fb->call_pc, where, sizeof where);
    snprintf(buf, len, "T%d freed it at step %llu%s%s%s", fb->thread, (unsigned long long)fb->step,
             where[0] ? " (" : "", where, where[0] ? ")" : "");
}

static void fail_at(struct execution *ex, struct exec_result *res, int thread, uint64_t pc)
{
    res->kind = FAIL_HEAP;
    res->thread = thread;
    exec_format_line(ex, pc, res->location, sizeof res->location);
    exec_format_function(ex, pc, res->function, sizeof res->function);
}

static bool on_freeing(void *self, struct execution *ex, int thread, uint64_t addr, const struct heap_block *b,
                       uint64_t call_pc, struct exec_result *res)
{
    struct heap_errors *h = self;
    struct freed_block *fb = b ? NULL : overlapping(h, addr, 1);
    if (!fb || fb->block.addr != addr)
        return true;
    if (!untouched_since_free(ex, fb)) {
        /* Handed out again by a call mdat did not follow (strdup), and
         * now freed by its holder: no longer the block that was freed. */
        forget(h, fb->block.addr, fb->block.size);
        return true;
    }
    char name[160], freed[160];
    exec_format_heap_addr(ex, &fb->block, addr, name, sizeof name);
    describe_free(ex, fb, freed, sizeof freed);
    const struct mthread *t = exec_thread_by_id(ex, thread);
    bool realloc_call = t && t->heap_fn == MF_REALLOC;
    snprintf(res->message, sizeof res->message, "%s: T%d %s %s, but %s", realloc_call ? "realloc after free" : "double free",
             thread, realloc_call ? "reallocates" : "frees", name, freed);
    fail_at(ex, res, thread, call_pc);
    return false;
}

static const char *use_verb(const struct visible_op *op)
{
    switch (op->kind) {
    case VIS_READ: return "reads";
    case VIS_WRITE: return "writes";
    case VIS_UPDATE: return "updates";
    default: return "uses";
    }
}

/* Judged before the operation runs, on the memory it would touch: later
 * in its step the block may be handed out and freed again by code mdat
 * does not follow (and a thread's last step ends it, which changes its
 * freed blocks' links). */
static bool on_before_step(void *self, struct execution *ex, int thread, const struct visible_op *op,
                           struct exec_result *res)
{
    struct heap_errors *h = self;
    bool access = op->kind == VIS_READ || op->kind == VIS_WRITE || op->kind == VIS_UPDATE;
    if (h->n == 0 || !op->addr || !(access || op->kind == VIS_SYNC))
        return true;
    struct freed_block *fb = overlapping(h, op->addr, op->size ? op->size : 8);
    if (!fb || !untouched_since_free(ex, fb))
        return true;
    char name[160], freed[160];
    exec_format_heap_addr(ex, &fb->block, op->addr, name, sizeof name);
    describe_free(ex, fb, freed, sizeof freed);
    snprintf(res->message, sizeof res->message, "use after free: T%d %s %s, but %s", thread, use_verb(op), name,
             freed);
    fail_at(ex, res, thread, op->pc);
    return false;
}

static const struct exec_listener_ops heap_errors_ops = {
    .begin = on_begin,
    .before_step = on_before_step,
    .allocated = on_allocated,
    .freeing = on_freeing,
    .freed = on_freed,
    .thread_exited = on_thread_exited,
};

struct exec_listener heap_errors_hooks(struct heap_errors *h)
{
    return (struct exec_listener){&heap_errors_ops, h};
}
