/* page_owners: which thread may touch each page of the program's memory at
 * native speed, and what it means when another thread touches it.
 *
 * mdat observes sharing, not data. A page only one thread has touched
 * (since it was last handed on through synchronisation) cannot race and
 * cannot be reordered with another thread's step: its accesses are no
 * steps. Each page of the memory mdat follows (the program's data, heap,
 * anonymous mappings and stacks) is in one state:
 *
 *   untouched    nobody touched it in this execution
 *   private      one thread's; "live" while that thread may touch it
 *                natively, "armed" after the thread's last release (its
 *                next touch tells mdat that the page is in use again)
 *   read-shared  read by several threads, written by none since
 *   observed     shared: every access is a visible operation
 *   stack        a thread's stack: its own accesses are never observed,
 *                any other thread's always are
 *
 * A touch by a thread that may not touch the page natively (the CPU's
 * protection key fault, or the same question asked while mdat runs the
 * thread ahead) is judged here: taken over when the page is untouched, or
 * when the previous owner's accesses happened before (hb_clocks.h: the
 * owner's last epoch on the page is known to the toucher); a visible
 * operation on an observed page or another thread's stack; else a
 * conflict: two threads touched the page without an order between them,
 * some of it unobserved, and the execution must run again with that page
 * observed from its start (the engine's restart).
 *
 * This file keeps the books and says which protection key each page must
 * carry (page_owners_retags); carrying them out in the program, and what
 * a key lets a thread do, is the engine's (engine/exec_pages.c). */
#ifndef MDAT_SHARING_PAGE_OWNERS_H
#define MDAT_SHARING_PAGE_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/sharing/hb_clocks.h"
#include "supervisor/sharing/page_list.h"

enum { PAGE_SHIFT_BITS = 12, PAGE_BYTES = 1 << PAGE_SHIFT_BITS };

enum page_state {
    PAGE_UNTRACKED,
    PAGE_UNTOUCHED,
    PAGE_PRIVATE,
    PAGE_READ_SHARED,
    PAGE_OBSERVED,
    PAGE_STACK,
};

enum page_touch {
    TOUCH_NATIVE,       /* the thread may now touch it natively (retags queued) */
    TOUCH_VISIBLE,      /* observed, or another thread's stack: a visible operation */
    TOUCH_CONFLICT,     /* unordered sharing of a page with unobserved accesses */
    TOUCH_CONFLICT_READ,/* the same where the toucher only reads: the next run may share the page for
                         * reading (page_owners_readers) before it has to observe it */
};

/* Pages [start, end) are to carry protection key `key`. */
struct page_retag {
    uint64_t start, end;
    int key;
};

struct page_owners;

/* key_closed: the key no thread may touch; key_read_only: the key every
 * thread may read but not write. */
struct page_owners *page_owners_new(int key_closed, int key_read_only);
void page_owners_free(struct page_owners *po);

/* The key whose pages thread may touch natively (0: none of its own). */
void page_owners_set_thread_key(struct page_owners *po, int thread, int key);
int page_owners_thread_key(const struct page_owners *po, int thread);
/* thread may read read-shared pages now (its rights must say so): from its
 * first read of one in an epoch to the end of that epoch. */
bool page_owners_reads_shared(const struct page_owners *po, int thread);

/* [start, end) (page aligned) is followed from now on, untouched. */
void page_owners_track(struct page_owners *po, uint64_t start, uint64_t end);
/* [start, end) is gone (munmap): forgotten, no key to set. */
void page_owners_untrack(struct page_owners *po, uint64_t start, uint64_t end);
/* [start, end) is thread's stack (or its thread block). */
void page_owners_stack(struct page_owners *po, uint64_t start, uint64_t end, int thread);
/* Threads read the page holding addr side by side (the execution's initial
 * set): a thread that reads it after its owner's accesses shares it for
 * reading with the others, where it would take it over alone. */
void page_owners_readers(struct page_owners *po, uint64_t addr);
/* Calls each(ctx, page address) for every page thread took over by
 * reading it after another thread's accesses: when a third thread reads
 * one of them, the data they hold (a table filled once) is likely read
 * by all, and the next run shares them all for reading. */
void page_owners_each_taken_by_reading(const struct page_owners *po, int thread,
                                       void (*each)(void *ctx, uint64_t page), void *ctx);

/* The page holding addr is observed from now on (the execution's initial
 * set, or a page its first run found shared). Only followed pages. */
void page_owners_observe(struct page_owners *po, uint64_t addr);

/* The same in the middle of an execution for a page a thread may have
 * used natively until now: a later touch by a thread those uses are not
 * known to is a conflict (they were unordered and unobserved), where a
 * touch of an observed page is otherwise a step. */
void page_owners_observe_owned(struct page_owners *po, const struct hb_clocks *hb, uint64_t addr);

enum page_state page_owners_state(const struct page_owners *po, uint64_t addr, int *owner);
/* thread may touch addr natively now: no fault, and nothing to note. */
bool page_owners_native(const struct page_owners *po, int thread, uint64_t addr, bool write);
/* thread touches addr (a write when write). *page gets the page judged. */
enum page_touch page_owners_touch(struct page_owners *po, const struct hb_clocks *hb, int thread, uint64_t addr,
                                  bool write, uint64_t *page);

/* Another thread touched the page holding addr unobserved, in accesses
 * not known to thread (a touch by thread would be a conflict, also of a
 * page observed by page_owners_observe_owned since); the books do not
 * change. */
bool page_owners_unordered(const struct page_owners *po, const struct hb_clocks *hb, int thread, uint64_t addr);

/* The page holding addr is fresh memory of thread's (an allocator handed
 * it out whole): whatever touched it before is over. */
void page_owners_fresh(struct page_owners *po, uint64_t addr, int thread);
/* The page holding addr gets the key its state calls for again (the

 * program's was found different). */
void page_owners_refresh(struct page_owners *po, uint64_t addr);

/* thread released something, ending its epoch `ended`: the pages it may
 * touch natively are armed (closed to it too), so that its next touch of
 * each says it is in use in the new epoch. */
void page_owners_release(struct page_owners *po, int thread, uint32_t ended);
/* thread is gone: its pages are closed (its key may serve another). */
void page_owners_thread_end(struct page_owners *po, int thread, uint32_t final_epoch);

/* Moves up to max pending key changes, oldest first, into out; returns
 * how many. Later ones may override earlier ones: apply them in order. */
size_t page_owners_take_retags(struct page_owners *po, struct page_retag *out, size_t max);
/* The oldest pending key change, left pending; false when none. */
bool page_owners_next_retag(const struct page_owners *po, struct page_retag *out);

bool page_owners_retags_pending(const struct page_owners *po);

#endif
