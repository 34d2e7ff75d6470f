/* page_cache: copies of the program's pages while none of its threads runs
 * (see page_cache.h for when they hold). Direct-mapped by a hash of the
 * page: a stretch run ahead touches a handful of pages (the lock's, the
 * counter's, the stack, the thread block), but a step of each of hundreds
 * of threads touches its own stack and thread block, and thread stacks lie
 * a power of two apart, so the index is hashed and the slots are many
 * (their memory is touched only as they are used). A collision costs a
 * read (and a write when the page evicted was written). Forgetting every
 * page is a new generation, and writing back visits only the slots
 * written: a resume costs what was used, not the size of the cache. */
#include "supervisor/process/page_cache.h"
#include "supervisor/process/proc_maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

enum { PAGE = 4096, SLOT_BITS = 11, SLOTS = 1 << SLOT_BITS, WRITES_AT_ONCE = 1024 /* UIO_MAXIOV */ };

struct slot {
    uint64_t page;      /* the page's address, when gen is the cache's */
    uint32_t gen;
    /* The program may write it: one write of its own went through. Until
     * then writes go to the program first, so that one it may not make
     * fails where it is made. */
    bool writable;
    bool listed;        /* in cache.written */
    bool read_listed;   /* in cache.read_slots */
    uint16_t dirty_lo, dirty_hi;    /* written here, not yet in the program: [lo, hi) */
    uint8_t bytes[PAGE];
};

/* The followed address space's shared mappings, [start, end) in order. */
struct shared_ranges {
    bool stale;             /* read them again before the next page is copied */
    bool change_pending;    /* a call that may map shared memory is about to run */
    struct page_cache_ranges now;
};

static bool add_range(struct page_cache_ranges *r, uint64_t lo, uint64_t hi)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        uint64_t(*grown)[2] = realloc(r->r, cap * sizeof *grown);
        if (!grown)
            return false;
        r->r = grown;
        r->cap = cap;
    }
    r->r[r->n][0] = lo;
    r->r[r->n][1] = hi;
    r->n++;
    return true;
}

static struct {
    int mem_fd;         /* < 0: following nothing */
    pid_t pid;
    struct shared_ranges shared;
    uint32_t gen;       /* slots of another generation hold nothing */
    uint64_t reads;     /* pages read from the program, ever */
    int n_written;
    uint16_t written[SLOTS];    /* the slots with writes to give back, each once */
    int n_read;
    uint16_t read_slots[SLOTS]; /* the slots read in this generation, each once */
    /* Set for the next resume only (page_cache_keep_next): the pages it
     * cannot change stay held across it. */
    bool (*keep)(void *ctx, uint64_t page);
    void *keep_ctx;
    struct slot slots[SLOTS];
} cache = {.mem_fd = -1, .gen = 1};

static bool holds(const struct slot *s, uint64_t page)
{
    return s->gen == cache.gen && s->page == page;
}

static bool slot_dirty(const struct slot *s)
{
    return s->gen == cache.gen && s->dirty_lo < s->dirty_hi;
}

static void set_clean(struct slot *s)
{
    s->dirty_lo = PAGE;
    s->dirty_hi = 0;
}

bool page_cache_write_back(void)
{
    struct iovec local[WRITES_AT_ONCE], remote[WRITES_AT_ONCE];
    bool ok = true;
    int n = 0;
    ssize_t total = 0;
    for (int i = 0; i < cache.n_written; i++) {
        struct slot *s = &cache.slots[cache.written[i]];
        s->listed = false;
        if (!slot_dirty(s))
            continue;
        size_t len = (size_t)(s->dirty_hi - s->dirty_lo);
        local[n] = (struct iovec){s->bytes + s->dirty_lo, len};
        remote[n] = (struct iovec){(void *)(uintptr_t)(s->page + s->dirty_lo), len};
        total += (ssize_t)len;
        n++;
        set_clean(s);
        if (n == WRITES_AT_ONCE) {
            ok &= process_vm_writev(cache.pid, local, (unsigned long)n, remote, (unsigned long)n, 0) == total;
            n = 0;
            total = 0;
        }
    }
    if (n)
        ok &= process_vm_writev(cache.pid, local, (unsigned long)n, remote, (unsigned long)n, 0) == total;
    cache.n_written = 0;
    return ok;
}

void page_cache_keep_next(bool (*unchanged)(void *ctx, uint64_t page), void *ctx)
{
    cache.keep = unchanged;
    cache.keep_ctx = ctx;
}

/* Carries the held pages the resume cannot change into the new
 * generation, and lists them again. */
static void carry_kept(uint32_t old_gen)
{
    int n = 0;
    for (int i = 0; i < cache.n_read; i++) {
        struct slot *s = &cache.slots[cache.read_slots[i]];
        s->read_listed = false;
        if (s->gen != old_gen || !cache.keep(cache.keep_ctx, s->page))
            continue;
        s->gen = cache.gen;
        s->read_listed = true;
        cache.read_slots[n++] = cache.read_slots[i];
    }
    cache.n_read = n;
}

bool page_cache_forget(void)
{
    bool ok = page_cache_write_back();
    if (cache.shared.change_pending) {     /* the call runs now: its mappings are known when it stopped */
        cache.shared.change_pending = false;
        cache.shared.stale = true;
    }
    uint32_t old_gen = cache.gen;
    if (++cache.gen == 0) {     /* wrapped: no slot may seem current */
        for (int i = 0; i < SLOTS; i++)
            cache.slots[i].gen = 0;
        cache.gen = 1;
        old_gen = 0;
    }
    if (cache.keep && old_gen && !cache.shared.stale)
        carry_kept(old_gen);
    else {
        for (int i = 0; i < cache.n_read; i++)
            cache.slots[cache.read_slots[i]].read_listed = false;
        cache.n_read = 0;
    }
    cache.keep = NULL;
    return ok;
}

void page_cache_follow(int mem_fd, pid_t pid)
{
    if (mem_fd >= 0 && mem_fd == cache.mem_fd) {
        cache.pid = pid;    /* the same address space, through another of its threads */
        return;
    }
    cache.keep = NULL;      /* nothing of the old address space stays */
    page_cache_forget();
    cache.mem_fd = mem_fd;
    cache.pid = pid;
    cache.shared.stale = true;
    cache.shared.now.n = 0;
}

void page_cache_follow_forked(int mem_fd, pid_t pid, const struct page_cache_ranges *at_fork)
{
    page_cache_follow(mem_fd, pid);
    for (size_t i = 0; i < at_fork->n; i++)
        if (!add_range(&cache.shared.now, at_fork->r[i][0], at_fork->r[i][1])) {
            cache.shared.now.n = 0;
            return;     /* stale: read when a page is first copied */
        }
    cache.shared.stale = false;
}

void page_cache_maps_changed(void)
{
    cache.shared.change_pending = true;
    cache.shared.stale = true;
}

/* Which ranges of a process's address space are shared mappings (the
 * fourth letter of the permissions in /proc/PID/maps is 's'). false when
 * they cannot be known: then no page is copied. */
bool page_cache_ranges_read(pid_t pid, struct page_cache_ranges *out)
{
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps))
        return false;
    out->n = 0;
    bool ok = true;
    for (size_t i = 0; i < maps.n && ok; i++)
        if (maps.m[i].shared)
            ok = add_range(out, maps.m[i].start, maps.m[i].end);
    proc_maps_free(&maps);
    return ok;
}

void page_cache_ranges_free(struct page_cache_ranges *r)
{
    free(r->r);
    *r = (struct page_cache_ranges){0};
}

static bool read_shared_ranges(void)
{
    struct shared_ranges *sr = &cache.shared;
    bool ok = page_cache_ranges_read(cache.pid, &sr->now);
    if (ok)
        sr->stale = false;
    return ok;
}

/* Whether page may be copied: it is in no shared mapping. */
static bool private_page(uint64_t page)
{
    struct shared_ranges *sr = &cache.shared;
    if (sr->stale && !read_shared_ranges())
        return false;
    size_t lo = 0, hi = sr->now.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (page < sr->now.r[mid][0])
            hi = mid;
        else if (page >= sr->now.r[mid][1])
            lo = mid + 1;
        else
            return false;
    }
    return true;
}

static bool follows(int mem_fd, pid_t pid)
{
    return cache.mem_fd >= 0 && (mem_fd >= 0 ? mem_fd == cache.mem_fd : pid == cache.pid);
}

static struct slot *slot_of(uint64_t page)
{
    return &cache.slots[((page / PAGE) * 0x9e3779b97f4a7c15u) >> (64 - SLOT_BITS)];
}

/* The copy of page, read from the program when not held; NULL when the
 * program cannot read it, when it is shared (never copied), or when a
 * write evicted to make room failed. */
static struct slot *held(uint64_t page)
{
    struct slot *s = slot_of(page);
    if (holds(s, page))
        return s;
    if (!private_page(page))
        return NULL;
    if (slot_dirty(s)) {
        struct iovec local = {s->bytes + s->dirty_lo, (size_t)(s->dirty_hi - s->dirty_lo)};
        struct iovec remote = {(void *)(uintptr_t)(s->page + s->dirty_lo), local.iov_len};
        if (process_vm_writev(cache.pid, &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len)
            return NULL;
        set_clean(s);
    }
    s->gen = 0;
    struct iovec local = {s->bytes, PAGE}, remote = {(void *)(uintptr_t)page, PAGE};
    cache.reads++;
    if (process_vm_readv(cache.pid, &local, 1, &remote, 1, 0) != PAGE)
        return NULL;
    s->page = page;
    s->gen = cache.gen;
    s->writable = false;
    set_clean(s);
    if (!s->read_listed) {
        s->read_listed = true;
        cache.read_slots[cache.n_read++] = (uint16_t)(s - cache.slots);
    }
    return s;
}

/* How much of [addr + done, addr + len) lies in the page of addr + done. */
static size_t piece(uint64_t addr, size_t done, size_t len)
{
    size_t room = PAGE - (size_t)((addr + done) % PAGE);
    return room < len - done ? room : len - done;
}

static uint64_t page_of(uint64_t addr)
{
    return addr & ~(uint64_t)(PAGE - 1);
}

/* Page 0 is never mapped (mmap_min_addr). */
static bool in_range(int mem_fd, pid_t pid, uint64_t addr, size_t len)
{
    return follows(mem_fd, pid) && addr >= PAGE && addr + len >= addr;
}

uint64_t page_cache_pages_read(void)
{
    return cache.reads;
}

bool page_cache_read(int mem_fd, pid_t pid, uint64_t addr, void *buf, size_t len)
{
    if (!in_range(mem_fd, pid, addr, len))
        return false;
    for (size_t done = 0, n; done < len; done += n) {
        n = piece(addr, done, len);
        const struct slot *s = held(page_of(addr + done));
        if (!s)
            return false;
        memcpy((uint8_t *)buf + done, s->bytes + (addr + done) % PAGE, n);
    }
    return true;
}

bool page_cache_write(int mem_fd, pid_t pid, uint64_t addr, const void *buf, size_t len)
{
    if (!in_range(mem_fd, pid, addr, len))
        return false;
    for (size_t done = 0, n; done < len; done += n) {
        n = piece(addr, done, len);
        const struct slot *s = slot_of(page_of(addr + done));
        if (!holds(s, page_of(addr + done)) || !s->writable)
            return false;
    }
    for (size_t done = 0, n; done < len; done += n) {
        n = piece(addr, done, len);
        struct slot *s = slot_of(page_of(addr + done));
        size_t off = (size_t)((addr + done) % PAGE);
        memcpy(s->bytes + off, (const uint8_t *)buf + done, n);
        if (!s->listed) {
            s->listed = true;
            cache.written[cache.n_written++] = (uint16_t)(s - cache.slots);
        }
        if (off < s->dirty_lo)
            s->dirty_lo = (uint16_t)off;
        if (off + n > s->dirty_hi)
            s->dirty_hi = (uint16_t)(off + n);
    }
    return true;
}

void page_cache_wrote(int mem_fd, pid_t pid, uint64_t addr, const void *buf, size_t len, bool as_program)
{
    if (cache.mem_fd < 0)
        return;
    if (!follows(mem_fd, pid)) {
        page_cache_forget();
        return;
    }
    for (size_t done = 0, n; done < len; done += n) {
        n = piece(addr, done, len);
        struct slot *s = slot_of(page_of(addr + done));
        if (holds(s, page_of(addr + done))) {
            memcpy(s->bytes + (addr + done) % PAGE, (const uint8_t *)buf + done, n);
            s->writable |= as_program;
        }
    }
}
