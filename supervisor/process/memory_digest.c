/* memory_digest: writable pages, found by the maps and pagemap, hashed. */
#include "supervisor/process/memory_digest.h"
#include "supervisor/process/hash64.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/proc_maps.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

enum { PAGE = 4096, BATCH_PAGES = 64, ENTRY_CHUNK = 16384 };

/* PAGEMAP_SCAN (Linux 6.7): the present ranges of a region in one call,
 * instead of 8 bytes of pagemap for every page of it (a program's
 * 16 GB allocator region costs 32 MB of entries, ~100 ms, that way).
 * Spelled out here: Debian 12's kernel headers predate it. */
struct scan_region {
    uint64_t start, end, categories;
};
struct scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define SCAN_IS_PRESENT (1ull << 3)
#define SCAN_IS_SWAPPED (1ull << 4)
#define SCAN_IOCTL _IOWR('f', 16, struct scan_arg)
enum { SCAN_REGIONS = 256 };

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)

/* Hashes a page's words with their addresses: the digest is an XOR over
 * pages, so the order pages are read in does not matter. */
static uint64_t page_hash(uint64_t addr, const uint64_t *words)
{
    uint64_t h = hash64_mix(addr);
    for (size_t i = 0; i < PAGE / sizeof *words; i++)
        h = hash64_mix(h ^ words[i]) + i;
    return h;
}

/* The pages [addr, end), all present, read in runs of up to BATCH_PAGES
 * into buf and hashed into *digest. */
static bool digest_pages(pid_t vm_pid, uint64_t addr, uint64_t end, uint64_t *buf, uint64_t *digest)
{
    while (addr < end) {
        size_t run = (size_t)((end - addr) / PAGE);
        if (run > BATCH_PAGES)
            run = BATCH_PAGES;
        struct iovec local = {buf, run * PAGE}, remote = {(void *)(uintptr_t)addr, run * PAGE};
        if (process_vm_readv(vm_pid, &local, 1, &remote, 1, 0) != (ssize_t)(run * PAGE))
            return false;
        for (size_t k = 0; k < run; k++)
            *digest ^= page_hash(addr + k * PAGE, buf + k * (PAGE / sizeof *buf));
        addr += run * PAGE;
    }
    return true;
}

/* The present pages of [start, end) found through their pagemap entries,
 * read a chunk at a time: an untouched region of gigabytes costs its
 * entries only (the fallback for kernels without PAGEMAP_SCAN). */
static bool digest_range(pid_t vm_pid, int pagemap, uint64_t start, uint64_t end, uint64_t *buf, uint64_t *digest)
{
    uint64_t *entries = malloc(ENTRY_CHUNK * sizeof *entries);
    bool ok = entries != NULL;
    for (uint64_t at = start; ok && at < end;) {
        size_t n = (size_t)((end - at) / PAGE);
        if (n > ENTRY_CHUNK)
            n = ENTRY_CHUNK;
        off_t off = (off_t)(at / PAGE * sizeof(uint64_t));
        ok = pread(pagemap, entries, n * sizeof *entries, off) == (ssize_t)(n * sizeof *entries);
        for (size_t i = 0; ok && i < n;) {
            size_t run = 0;
            while (i + run < n && (entries[i + run] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
                run++;
            if (run)
                ok = digest_pages(vm_pid, at + i * PAGE, at + (i + run) * PAGE, buf, digest);
            i += run ? run : 1;
        }
        at += n * PAGE;
    }
    free(entries);
    return ok;
}

/* Through PAGEMAP_SCAN; *supported false when the kernel has none. */
static bool scan_range(pid_t vm_pid, int pagemap, uint64_t start, uint64_t end, uint64_t *buf, uint64_t *digest,
                       bool *supported)
{
    struct scan_region regions[SCAN_REGIONS];
    for (uint64_t at = start; at < end;) {
        struct scan_arg arg = {
            .size = sizeof arg, .start = at, .end = end, .vec = (uint64_t)(uintptr_t)regions,
            .vec_len = SCAN_REGIONS, .category_anyof_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED,
            .return_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED,
        };
        long n = ioctl(pagemap, SCAN_IOCTL, &arg);
        if (n < 0) {
            *supported = false;
            return false;
        }
        for (long i = 0; i < n; i++)
            if (!digest_pages(vm_pid, regions[i].start, regions[i].end, buf, digest))
                return false;
        if (arg.walk_end <= at)
            break;
        at = arg.walk_end;
    }
    return true;
}

bool memory_digest(pid_t pid, pid_t vm_pid, uint64_t *digest)
{
    /* What running ahead wrote may still be only in mdat's copies. */
    page_cache_write_back();
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps))
        return false;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
    int pagemap = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t *buf = malloc(BATCH_PAGES * PAGE);
    bool ok = pagemap >= 0 && buf;
    *digest = 0;
    bool scan = true;
    for (size_t i = 0; ok && i < maps.n; i++) {
        if (!maps.m[i].write || !maps.m[i].read)
            continue;
        uint64_t before = *digest;
        if (scan && !scan_range(vm_pid, pagemap, maps.m[i].start, maps.m[i].end, buf, digest, &scan) && scan)
            ok = false;
        if (!scan) {
            *digest = before;
            ok = digest_range(vm_pid, pagemap, maps.m[i].start, maps.m[i].end, buf, digest);
        }
    }
    free(buf);
    if (pagemap >= 0)
        close(pagemap);
    proc_maps_free(&maps);
    return ok;
}
