/* page_cache: copies of the program's pages in mdat, kept while none of its
 * threads runs.
 *
 * When mdat carries out a stretch of the program itself (exec_ahead.c), a
 * lock's fast path or a loop over a shared counter reads the same few
 * words over and over, each a system call (process_vm_readv or a pread of
 * /proc/PID/mem) that costs as much as the emulation around it. While
 * every thread of the program is stopped, nothing but mdat changes its
 * memory: a page read once stays true until a thread is resumed. tracee.c
 * serves reads of the followed address space from here. Writes go to the
 * program the first time a page is written (so that a write the program
 * may not make fails where it is made), then only here until a thread is
 * resumed or something reads the program around the copies: they are
 * written back then (one system call for all), and resuming any thread
 * forgets every page the thread could change (page_cache_keep_next).
 *
 * The engine follows one address space at a time, and none while some
 * other process may share its memory (a forked child runs free). Pages of
 * shared mappings (MAP_SHARED: a memfd, shm, shared anonymous memory) are
 * never copied: one may be mapped at two addresses (a "magic" ring
 * buffer), or written by another process, and a copy per address would
 * miss the other view's stores. Which ranges are shared is read from
 * /proc/PID/maps when the mappings may have changed (page_cache_maps_changed)
 * and a page is first read. */
#ifndef MDAT_ENGINE_PAGE_CACHE_H
#define MDAT_ENGINE_PAGE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The address space reached through mem_fd (/proc/PID/mem) and through
 * pid (process_vm_readv); mem_fd < 0: none. The same mem_fd with another
 * pid (a thread of it that lives on) keeps the pages. */
void page_cache_follow(int mem_fd, pid_t pid);

/* The shared mappings of a process, in order (a fork server's template:
 * each copy forked from it starts with the same). */
struct page_cache_ranges {
    size_t n, cap;
    uint64_t (*r)[2];
};
bool page_cache_ranges_read(pid_t pid, struct page_cache_ranges *out);
void page_cache_ranges_free(struct page_cache_ranges *r);
/* page_cache_follow for a process forked from one whose shared mappings
 * were at_fork: they are not read again until they may have changed. */
void page_cache_follow_forked(int mem_fd, pid_t pid, const struct page_cache_ranges *at_fork);
/* Writes what mdat wrote into the copies to the program: before anything
 * else reads its memory (a thread, the kernel, a read that bypasses the
 * copies). false when the program could not take it. */
bool page_cache_write_back(void);
/* A thread is about to run: writes back, then every copy is stale, but
 * for the pages page_cache_keep_next said it cannot change. */
bool page_cache_forget(void);
/* For the next page_cache_forget only (the next resume): the pages for
 * which unchanged(ctx, page) is true stay held. The engine knows them:
 * with page ownership, a page closed to every thread's rights cannot be
 * changed by a thread running natively, nor by the kernel on its behalf
 * (pkeys hold for the kernel's accesses to user memory too), so the
 * shared pages a step reads over and over are read once, not once per
 * resume. The caller must be sure of it: no thread in a call that runs
 * with every key open, no key change pending, no signal delivered. */
void page_cache_keep_next(bool (*unchanged)(void *ctx, uint64_t page), void *ctx);
/* How many pages were copied in from the program so far: what a stretch
 * run ahead spent on reads (each a system call and 4 KB). */
uint64_t page_cache_pages_read(void);
/* Copies [addr, addr + len) out of the followed address space, when the
 * handle (a mem_fd, or a pid with mem_fd -1) reaches it, reading the
 * pages not held yet. false: the caller reads the program itself (another
 * address space, or a page the program cannot read). */
bool page_cache_read(int mem_fd, pid_t pid, uint64_t addr, void *buf, size_t len);
/* Writes [addr, addr + len) into the copies alone, when every page of it
 * is held and the program has written it before; false: the caller writes
 * the program itself, then calls page_cache_wrote. */
bool page_cache_write(int mem_fd, pid_t pid, uint64_t addr, const void *buf, size_t len);
/* The program's [addr, addr + len) was just written through the handle
 * (as_program: as the program itself could, which shows the page
 * writable): the copies follow. A write into any other address space
 * forgets them all (a vfork child shares the memory). */
void page_cache_wrote(int mem_fd, pid_t pid, uint64_t addr, const void *buf, size_t len, bool as_program);
/* A thread of the followed address space is about to make a call that may
 * map shared memory (mmap with MAP_SHARED, mremap, shmat): the shared
 * ranges are read again once it has run. */
void page_cache_maps_changed(void);

#endif
