/* mdat_alloc: the allocator mdat puts into a program whose memory it
 * follows by page (docs/architecture.md, "Observing sharing, not data").
 *
 * mdat learns that memory is shared when a second thread touches a page.
 * glibc's malloc puts blocks of different threads side by side on a page,
 * and hands a thread's freed arena to the next thread that starts: pages
 * look shared where only the blocks beside each other are, and every
 * access to them becomes a step. This allocator keeps threads apart by
 * page, as the per-thread heaps of deterministic runtimes do (Dthreads,
 * CoreDet): blocks of more than SMALL_MAX bytes get whole pages of their
 * own; smaller ones come from spans of pages that only the thread that
 * allocates from them hands out. It keeps its books in its own .bss,
 * never in the pages it hands out. A freed block's first 16 bytes get a
 * mark, and a block handed out loses it, as glibc's tcache does with its
 * key: mdat tells a block still free from one the C library's own calls
 * were handed again by that mark (detect/heap_errors.c). It is deterministic: the same calls in the same order give the
 * same addresses.
 *
 * Loaded by mdat through LD_PRELOAD (launch/spawn.c) into the program
 * only: it is no part of mdat itself, and knows nothing of it. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum {
    PAGE = 4096,
    SMALL_MAX = 2048,
    SPAN_PAGES = 4,
    SPAN_BYTES = SPAN_PAGES * PAGE,
    MIN_BLOCK = 16,
    MAX_SPAN_BLOCKS = SPAN_BYTES / MIN_BLOCK,
    MAX_SPANS = 1 << 18,            /* 4 GB of small blocks */
    CLASSES = 8,                    /* 16, 32, ... 2048 */
    MAX_FREE_RUNS = 1 << 16,
};
/* The region its pages come from: reserved at the first allocation, at
 * most REGION_BYTES, less under a limit on the address space (--max-memory,
 * a grader's limits): a quarter of the limit, leaving room for stacks and
 * the program's own mappings. When no region can be had, every call goes
 * to glibc's allocator: slower under mdat (blocks of threads share pages),
 * never wrong. */
#define REGION_BYTES (16ull << 30)
#define REGION_MIN (64ull << 20)
#define REGION_PAGES (REGION_BYTES / PAGE)

/* What a page of the region is: the first page of a run of `pages` pages
 * (a large block, or a free run), a page of span number `span`, or the
 * rest of a run. */
enum { PAGE_UNUSED, PAGE_LARGE, PAGE_SPAN, PAGE_INSIDE };
struct page_info {
    uint32_t kind : 2;
    uint32_t value : 30;            /* PAGE_LARGE: pages; PAGE_SPAN: span index */
};

struct span {
    uint8_t cls;
    uint16_t blocks;
    _Atomic uint32_t free_count;
    uint64_t owner;                 /* the thread that hands out its blocks */
    _Atomic uint64_t free_bits[MAX_SPAN_BLOCKS / 64];   /* 1: free */
};

struct run {
    uint32_t first, pages;
};

static uint8_t *region;
static size_t region_bytes;
/* The region as mdat reads it at the program's entry point: reserved
 * before (a C++ library's constructors allocate), it is already there, and
 * mdat must follow its pages (launch/pages_setup.c). */
EXPORT uint64_t mdat_alloc_region[2];
static int use_glibc;          /* no region: glibc's allocator serves every call */
static _Atomic uint64_t region_next;    /* pages handed out from the region's start */
static struct page_info page_info[REGION_PAGES];
static struct span spans[MAX_SPANS];
static _Atomic uint32_t n_spans;
static struct run free_runs[MAX_FREE_RUNS];
static size_t n_free_runs;
static atomic_flag lock = ATOMIC_FLAG_INIT;

/* Each thread's current span per size class (0: none; index + 1). */
static __thread uint32_t current[CLASSES] __attribute__((tls_model("initial-exec")));
static __thread uint64_t me __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t next_thread_token = 1;

static void take_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        syscall(SYS_sched_yield);
}

static void drop_lock(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

static uint64_t thread_token(void)
{
    if (!me)
        me = atomic_fetch_add(&next_thread_token, 1);
    return me;
}

static int region_ready(void)
{
    if (region)
        return 1;
    take_lock();
    if (!region && !use_glibc) {
        size_t want = REGION_BYTES;
        struct rlimit as;
        if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && as.rlim_cur / 4 < want)
            want = (size_t)(as.rlim_cur / 4) & ~(size_t)(PAGE - 1);
        for (; want >= REGION_MIN && !region; want /= 2) {
            void *p = (void *)syscall(SYS_mmap, NULL, want, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if ((long)p < 0 && (long)p > -4096)
                continue;
            region = p;
            region_bytes = want;
            mdat_alloc_region[0] = (uint64_t)(uintptr_t)p;
            mdat_alloc_region[1] = want;
        }
        use_glibc = !region;
    }
    drop_lock();
    return region != NULL;
}

static size_t page_of(const void *p)
{
    return (size_t)(((const uint8_t *)p - region) / PAGE);
}

static int in_region(const void *p)
{
    return region && (const uint8_t *)p >= region && (const uint8_t *)p < region + region_bytes;
}

/* A run of pages: the first free run that fits (what is left of it stays
 * free), else new pages. */
static void *take_pages(size_t pages)
{
    if (!region_ready())
        return NULL;
    take_lock();
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < n_free_runs; i++) {
        if (free_runs[i].pages < pages)
            continue;
        first = free_runs[i].first;
        free_runs[i].first += (uint32_t)pages;
        free_runs[i].pages -= (uint32_t)pages;
        if (free_runs[i].pages == 0)
            free_runs[i] = free_runs[--n_free_runs];
        break;
    }
    if (first == SIZE_MAX) {
        first = atomic_fetch_add(&region_next, pages);
        if (first + pages > region_bytes / PAGE) {
            drop_lock();
            return NULL;
        }
    }
    drop_lock();
    return region + first * PAGE;
}

static void give_pages(size_t first, size_t pages)
{
    take_lock();
    if (n_free_runs < MAX_FREE_RUNS)
        free_runs[n_free_runs++] = (struct run){(uint32_t)first, (uint32_t)pages};
    drop_lock();
}

static int class_of(size_t size)
{
    int c = 0;
    size_t s = MIN_BLOCK;
    while (s < size) {
        s *= 2;
        c++;
    }
    return c;
}

static size_t class_size(int c)
{
    return (size_t)MIN_BLOCK << c;
}

/* A new span of class c for this thread: its index + 1 (0: none left),
 * its first byte in *base. */
static uint32_t new_span(int c, uint8_t **base_out)
{
    uint32_t i = atomic_fetch_add(&n_spans, 1);
    if (i >= MAX_SPANS)
        return 0;
    uint8_t *base = take_pages(SPAN_PAGES);
    if (!base)
        return 0;
    struct span *s = &spans[i];
    s->cls = (uint8_t)c;
    s->blocks = (uint16_t)(SPAN_BYTES / class_size(c));
    s->owner = thread_token();
    for (size_t w = 0; w < MAX_SPAN_BLOCKS / 64; w++)
        atomic_store(&s->free_bits[w], 0);
    for (size_t b = 0; b < s->blocks; b++)
        atomic_fetch_or(&s->free_bits[b / 64], 1ull << (b % 64));
    atomic_store(&s->free_count, s->blocks);
    size_t first = page_of(base);
    for (size_t k = 0; k < SPAN_PAGES; k++)
        page_info[first + k] = (struct page_info){PAGE_SPAN, i};
    *base_out = base;
    return i + 1;
}

/* The first byte of each current span. */
static __thread uint8_t *current_base[CLASSES] __attribute__((tls_model("initial-exec")));

static void *take_block(int c)
{
    for (int tries = 0; tries < 2; tries++) {
        uint32_t s = current[c];
        if (s) {
            struct span *sp = &spans[s - 1];
            for (size_t w = 0; w * 64 < sp->blocks; w++) {
                uint64_t bits = atomic_load(&sp->free_bits[w]);
                while (bits) {
                    int b = __builtin_ctzll(bits);
                    uint64_t was = atomic_fetch_and(&sp->free_bits[w], ~(1ull << b));
                    if (was & (1ull << b)) {
                        atomic_fetch_sub(&sp->free_count, 1);
                        return current_base[c] + (w * 64 + (size_t)b) * class_size(c);
                    }
                    bits = atomic_load(&sp->free_bits[w]);
                }
            }
        }
        uint8_t *base;
        uint32_t fresh = new_span(c, &base);
        if (!fresh)
            return NULL;
        current[c] = fresh;
        current_base[c] = base;
    }
    return NULL;
}

static size_t usable(const void *p)
{
    size_t page = page_of(p);
    struct page_info pi = page_info[page];
    if (pi.kind == PAGE_LARGE)
        return (size_t)pi.value * PAGE - ((uintptr_t)p % PAGE);
    if (pi.kind == PAGE_SPAN)
        return class_size(spans[pi.value].cls);
    return 0;
}

static void *large(size_t size, size_t align)
{
    size_t pages = (size + PAGE - 1) / PAGE;
    if (align > PAGE)
        pages += align / PAGE;
    uint8_t *base = take_pages(pages);
    if (!base)
        return NULL;
    uint8_t *p = base;
    if (align > PAGE)
        p = (uint8_t *)(((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1));
    size_t first = page_of(base), skip = page_of(p) - first;
    if (skip)   /* the pages before an aligned block go back */
        give_pages(first, skip);
    size_t head = page_of(p), n = pages - skip;
    page_info[head] = (struct page_info){PAGE_LARGE, (uint32_t)n};
    for (size_t k = 1; k < n; k++)
        page_info[head + k] = (struct page_info){PAGE_INSIDE, 0};
    return p;
}

/* glibc's own entry points (exported for allocators like this one). */
extern void *__libc_malloc(size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

/* What free writes over a block's first 16 bytes (every block has them):
 * a link-like word and a key no program's data has by chance. */
#define FREED_KEY 0x6d6461742d667265ull      /* "erf-tadm" */

static void mark_freed(void *p)
{
    uint64_t mark[2] = {FREED_KEY ^ (uint64_t)(uintptr_t)p, FREED_KEY};
    memcpy(p, mark, sizeof mark);
}

static void mark_handed_out(void *p)
{
    uint64_t none = 0;
    memcpy((uint8_t *)p + 8, &none, sizeof none);
}

static void *allocate(size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    if (!region_ready())
        return align <= MIN_BLOCK ? __libc_malloc(size) : __libc_memalign(align, size);
    void *p;
    if (size <= SMALL_MAX && align <= MIN_BLOCK) {
        int c = class_of(size);
        p = take_block(c);
    } else if (size <= SMALL_MAX && align <= SMALL_MAX) {
        /* A class aligned as its size: block sizes are powers of two. */
        int c = class_of(size > align ? size : align);
        p = take_block(c);
    } else {
        p = large(size, align);
    }
    if (!p)
        errno = ENOMEM;
    else
        mark_handed_out(p);
    return p;
}

EXPORT void free(void *p)
{
    if (!p)
        return;
    if (!in_region(p)) {
        /* glibc's when it served the calls; else memory from before this
         * allocator (the loader's), which nobody frees. */
        if (use_glibc)
            __libc_free(p);
        return;
    }
    size_t page = page_of(p);
    struct page_info pi = page_info[page];
    if (pi.kind == PAGE_LARGE) {
        size_t n = pi.value;
        mark_freed(p);
        give_pages(page, n);
        return;
    }
    if (pi.kind != PAGE_SPAN)
        return;
    mark_freed(p);
    struct span *sp = &spans[pi.value];
    size_t base_page = page;
    while (base_page > 0 && page_info[base_page - 1].kind == PAGE_SPAN && page_info[base_page - 1].value == pi.value)
        base_page--;
    size_t b = (size_t)((uint8_t *)p - (region + base_page * PAGE)) / class_size(sp->cls);
    atomic_fetch_or(&sp->free_bits[b / 64], 1ull << (b % 64));
    atomic_fetch_add(&sp->free_count, 1);
}

EXPORT void *malloc(size_t size)
{
    return allocate(size, MIN_BLOCK);
}

EXPORT void *calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = allocate(total, MIN_BLOCK);
    if (p)
        memset(p, 0, total);
    return p;
}

EXPORT void *realloc(void *old, size_t size)
{
    if (!old)
        return malloc(size);
    if (size == 0) {
        free(old);
        return NULL;
    }
    if (!in_region(old) && use_glibc)
        return __libc_realloc(old, size);
    size_t have = in_region(old) ? usable(old) : 0;
    if (have >= size)
        return old;
    void *p = malloc(size);
    if (p && old) {
        /* Memory from before this allocator: its size is unknown here;
         * copy what the new block holds (the old one is at least there). */
        memcpy(p, old, have ? have : size);
        free(old);
    }
    return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(old, total);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = allocate(size, align);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
    if (!align || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return allocate(size, align);
}

EXPORT void *memalign(size_t align, size_t size)
{
    return aligned_alloc(align, size);
}

EXPORT void *valloc(size_t size)
{
    return allocate(size < SMALL_MAX + 1 ? SMALL_MAX + 1 : size, PAGE);
}

EXPORT void *pvalloc(size_t size)
{
    return valloc((size + PAGE - 1) & ~(size_t)(PAGE - 1));
}

EXPORT size_t malloc_usable_size(void *p)
{
    return p && in_region(p) ? usable(p) : 0;
}
