/* page_owners: the books of page_owners.h. Followed regions and stacks are
 * sorted range lists; a page's state other than untouched is an entry of
 * an open-addressing table keyed by page number; each thread keeps the
 * list of pages live for it, which its next release arms. */
#include "supervisor/sharing/page_owners.h"

#include <stdlib.h>
#include <string.h>

struct range {
    uint64_t start, end;    /* page numbers, end excluded */
    int thread;             /* stacks: whose */
};

struct range_list {
    struct range *at;
    size_t n, cap;
};

struct entry {
    uint64_t page;          /* page number + 1; 0: empty slot */
    uint8_t state;          /* enum page_state */
    bool live;              /* PAGE_PRIVATE: open to its owner */
    bool readers;           /* threads read it side by side: a read hands it on read-shared */
    bool by_read;           /* PAGE_PRIVATE: its owner took it over by reading it */
    int owner;
    uint32_t epoch;         /* PAGE_PRIVATE armed: the owner's last epoch on it */
    /* PAGE_OBSERVED from the middle of the execution on (a block on it
     * freed): the thread that had used it unobserved, and its last epoch
     * on it; 0 when none. */
    int was_owner;
    uint32_t was_epoch;
};

struct live_list {
    uint64_t *pages;
    size_t n, cap;
};

struct page_owners {
    int key_closed, key_read_only;
    int *thread_key;        /* index = thread id */
    /* Reading read-shared pages: open to the thread in its current epoch
     * (its rights let it), and the last epoch in which it was (0: never). */
    bool *ro_open;
    uint32_t *ro_epoch;
    struct live_list *live; /* index = thread id */
    int n_threads;
    struct range_list tracked, stacks;
    struct entry *entries;
    size_t cap, n;          /* cap: a power of two */
    struct page_retag *retags;
    size_t n_retags, cap_retags;
    /* Pages observed, and pages read-shared, in this execution: standing
     * orders, applied again whenever such a page is followed afresh (a
     * heap mapped after the start, memory unmapped and mapped again), or
     * a rerun would meet the same unobserved page, and spin on it, again. */
    struct page_list observe_always, readers_always;
};

static void *grow_array(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    p = realloc(p, c * size);
    if (!p)
        abort();
    *cap = c;
    return p;
}

struct page_owners *page_owners_new(int key_closed, int key_read_only)
{
    struct page_owners *po = calloc(1, sizeof *po);
    if (!po)
        abort();
    po->key_closed = key_closed;
    po->key_read_only = key_read_only;
    return po;
}

void page_owners_free(struct page_owners *po)
{
    if (!po)
        return;
    for (int i = 0; i < po->n_threads; i++)
        free(po->live[i].pages);
    free(po->live);
    free(po->thread_key);
    free(po->ro_open);
    free(po->ro_epoch);
    free(po->tracked.at);
    free(po->stacks.at);
    free(po->entries);
    free(po->retags);
    page_list_free(&po->observe_always);
    page_list_free(&po->readers_always);
    free(po);

}

static void ensure_thread(struct page_owners *po, int thread)
{
    if (thread < po->n_threads)
        return;
    int n = po->n_threads ? po->n_threads : 8;
    while (n <= thread)
        n *= 2;
    po->thread_key = realloc(po->thread_key, (size_t)n * sizeof *po->thread_key);
    po->live = realloc(po->live, (size_t)n * sizeof *po->live);
    po->ro_open = realloc(po->ro_open, (size_t)n * sizeof *po->ro_open);
    po->ro_epoch = realloc(po->ro_epoch, (size_t)n * sizeof *po->ro_epoch);
    if (!po->thread_key || !po->live || !po->ro_open || !po->ro_epoch)
        abort();
    memset(po->thread_key + po->n_threads, 0, (size_t)(n - po->n_threads) * sizeof *po->thread_key);
    memset(po->ro_open + po->n_threads, 0, (size_t)(n - po->n_threads) * sizeof *po->ro_open);
    memset(po->ro_epoch + po->n_threads, 0, (size_t)(n - po->n_threads) * sizeof *po->ro_epoch);
    memset(po->live + po->n_threads, 0, (size_t)(n - po->n_threads) * sizeof *po->live);
    po->n_threads = n;
}

void page_owners_set_thread_key(struct page_owners *po, int thread, int key)
{
    ensure_thread(po, thread);
    po->thread_key[thread] = key;
}

int page_owners_thread_key(const struct page_owners *po, int thread)
{
    return thread > 0 && thread < po->n_threads ? po->thread_key[thread] : 0;
}

bool page_owners_reads_shared(const struct page_owners *po, int thread)
{
    return thread > 0 && thread < po->n_threads && po->ro_open[thread];
}

static void open_reading(struct page_owners *po, const struct hb_clocks *hb, int thread)
{
    ensure_thread(po, thread);
    po->ro_open[thread] = true;
    po->ro_epoch[thread] = hb_epoch(hb, thread);
}

/* ---------- key changes ---------- */

static void retag(struct page_owners *po, uint64_t first, uint64_t end, int key)
{
    if (first >= end)
        return;
    if (po->n_retags) {
        struct page_retag *last = &po->retags[po->n_retags - 1];
        if (last->key == key && last->end == first << PAGE_SHIFT_BITS) {
            last->end = end << PAGE_SHIFT_BITS;
            return;
        }
    }
    po->retags = grow_array(po->retags, &po->cap_retags, po->n_retags + 1, sizeof *po->retags);
    po->retags[po->n_retags++] =
        (struct page_retag){first << PAGE_SHIFT_BITS, end << PAGE_SHIFT_BITS, key};
}

size_t page_owners_take_retags(struct page_owners *po, struct page_retag *out, size_t max)
{
    size_t n = po->n_retags < max ? po->n_retags : max;
    memcpy(out, po->retags, n * sizeof *out);
    memmove(po->retags, po->retags + n, (po->n_retags - n) * sizeof *po->retags);
    po->n_retags -= n;
    return n;
}

bool page_owners_next_retag(const struct page_owners *po, struct page_retag *out)
{
    if (!po->n_retags)
        return false;
    *out = po->retags[0];
    return true;
}

bool page_owners_retags_pending(const struct page_owners *po)

{
    return po->n_retags > 0;
}

/* ---------- range lists ---------- */

/* The first range that ends after page. */
static size_t range_at(const struct range_list *l, uint64_t page)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->at[mid].end <= page)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const struct range *range_find(const struct range_list *l, uint64_t page)
{
    size_t i = range_at(l, page);
    return i < l->n && l->at[i].start <= page ? &l->at[i] : NULL;
}

/* Takes [start, end) out of the list, splitting what overlaps it. */
static void range_remove(struct range_list *l, uint64_t start, uint64_t end)
{
    size_t i = range_at(l, start);
    while (i < l->n && l->at[i].start < end) {
        struct range r = l->at[i];
        if (r.start < start && r.end > end) {
            l->at = grow_array(l->at, &l->cap, l->n + 1, sizeof *l->at);
            memmove(l->at + i + 1, l->at + i, (l->n - i) * sizeof *l->at);
            l->n++;
            l->at[i].end = start;
            l->at[i + 1].start = end;
            return;
        }
        if (r.start < start) {
            l->at[i].end = start;
            i++;
        } else if (r.end > end) {
            l->at[i].start = end;
            return;
        } else {
            memmove(l->at + i, l->at + i + 1, (l->n - i - 1) * sizeof *l->at);
            l->n--;
        }
    }
}

static void range_insert(struct range_list *l, uint64_t start, uint64_t end, int thread)
{
    range_remove(l, start, end);
    size_t i = range_at(l, start);
    l->at = grow_array(l->at, &l->cap, l->n + 1, sizeof *l->at);
    memmove(l->at + i + 1, l->at + i, (l->n - i) * sizeof *l->at);
    l->at[i] = (struct range){start, end, thread};
    l->n++;
}

/* ---------- page entries ---------- */

static size_t slot_of(uint64_t page, size_t cap)
{
    return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static struct entry *entry_find(const struct page_owners *po, uint64_t page)
{
    if (!po->cap)
        return NULL;
    for (size_t s = slot_of(page, po->cap);; s = (s + 1) & (po->cap - 1)) {
        if (po->entries[s].page == page + 1)
            return &po->entries[s];
        if (!po->entries[s].page)
            return NULL;
    }
}

static void entries_grow(struct page_owners *po)
{
    size_t cap = po->cap ? po->cap * 2 : 1024;
    struct entry *e = calloc(cap, sizeof *e);
    if (!e)
        abort();
    for (size_t i = 0; i < po->cap; i++) {
        if (!po->entries[i].page)
            continue;
        size_t s = slot_of(po->entries[i].page - 1, cap);
        while (e[s].page)
            s = (s + 1) & (cap - 1);
        e[s] = po->entries[i];
    }
    free(po->entries);
    po->entries = e;
    po->cap = cap;
}

static struct entry *entry_get(struct page_owners *po, uint64_t page)
{
    struct entry *e = entry_find(po, page);
    if (e)
        return e;
    if ((po->n + 1) * 2 > po->cap)
        entries_grow(po);
    size_t s = slot_of(page, po->cap);
    while (po->entries[s].page)
        s = (s + 1) & (po->cap - 1);
    po->entries[s] = (struct entry){.page = page + 1, .state = PAGE_UNTOUCHED};
    po->n++;
    return &po->entries[s];
}

/* Backward-shift deletion keeps every probe sequence unbroken. */
static void entry_delete(struct page_owners *po, struct entry *e)
{
    size_t hole = (size_t)(e - po->entries);
    po->entries[hole].page = 0;
    po->n--;
    for (size_t s = (hole + 1) & (po->cap - 1); po->entries[s].page; s = (s + 1) & (po->cap - 1)) {
        size_t home = slot_of(po->entries[s].page - 1, po->cap);
        /* Move it into the hole when its home does not lie in (hole, s]. */
        bool between = hole < s ? (home > hole && home <= s) : (home > hole || home <= s);
        if (!between) {
            po->entries[hole] = po->entries[s];
            po->entries[s].page = 0;
            hole = s;
        }
    }
}

static void entries_forget(struct page_owners *po, uint64_t first, uint64_t end)
{
    if (end - first <= po->n) {
        for (uint64_t p = first; p < end; p++) {
            struct entry *e = entry_find(po, p);
            if (e)
                entry_delete(po, e);
        }
        return;
    }
    for (size_t i = 0; i < po->cap;) {
        struct entry *e = &po->entries[i];
        if (e->page && e->page - 1 >= first && e->page - 1 < end)
            entry_delete(po, e);     /* another entry may have moved into slot i */
        else
            i++;
    }
}

/* ---------- states ---------- */

static int key_of(const struct page_owners *po, const struct entry *e)
{
    switch ((enum page_state)e->state) {
    case PAGE_PRIVATE:
        return e->live ? page_owners_thread_key(po, e->owner) : po->key_closed;
    case PAGE_READ_SHARED:
        return po->key_read_only;
    default:
        return po->key_closed;
    }
}

static void live_add(struct page_owners *po, int thread, uint64_t page)
{
    ensure_thread(po, thread);
    struct live_list *l = &po->live[thread];
    l->pages = grow_array(l->pages, &l->cap, l->n + 1, sizeof *l->pages);
    l->pages[l->n++] = page;
}

static void observe_page(struct page_owners *po, uint64_t page)
{
    struct entry *e = entry_get(po, page);
    bool retag_needed = key_of(po, e) != po->key_closed;
    e->state = PAGE_OBSERVED;
    e->live = false;
    if (retag_needed)
        retag(po, page, page + 1, po->key_closed);
}

/* The first index of l whose page is at or above page. */
static size_t first_at_or_above(const struct page_list *l, uint64_t page)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->at[mid] >> PAGE_SHIFT_BITS < page)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void page_owners_track(struct page_owners *po, uint64_t start, uint64_t end)
{
    uint64_t first = start >> PAGE_SHIFT_BITS, last = (end + PAGE_BYTES - 1) >> PAGE_SHIFT_BITS;
    entries_forget(po, first, last);
    range_remove(&po->stacks, first, last);
    range_insert(&po->tracked, first, last, 0);
    retag(po, first, last, po->key_closed);
    const struct page_list *o = &po->observe_always, *r = &po->readers_always;
    for (size_t i = first_at_or_above(o, first); i < o->n && o->at[i] >> PAGE_SHIFT_BITS < last; i++)
        observe_page(po, o->at[i] >> PAGE_SHIFT_BITS);
    for (size_t i = first_at_or_above(r, first); i < r->n && r->at[i] >> PAGE_SHIFT_BITS < last; i++)
        entry_get(po, r->at[i] >> PAGE_SHIFT_BITS)->readers = true;
}

void page_owners_untrack(struct page_owners *po, uint64_t start, uint64_t end)
{
    uint64_t first = start >> PAGE_SHIFT_BITS, last = (end + PAGE_BYTES - 1) >> PAGE_SHIFT_BITS;
    entries_forget(po, first, last);
    range_remove(&po->stacks, first, last);
    range_remove(&po->tracked, first, last);
}

void page_owners_stack(struct page_owners *po, uint64_t start, uint64_t end, int thread)
{
    uint64_t first = start >> PAGE_SHIFT_BITS, last = (end + PAGE_BYTES - 1) >> PAGE_SHIFT_BITS;
    entries_forget(po, first, last);
    range_remove(&po->tracked, first, last);
    range_insert(&po->stacks, first, last, thread);
    int key = page_owners_thread_key(po, thread);
    retag(po, first, last, key ? key : po->key_closed);
}

void page_owners_readers(struct page_owners *po, uint64_t addr)
{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    page_list_add(&po->readers_always, addr);
    if (range_find(&po->tracked, page))
        entry_get(po, page)->readers = true;
}

void page_owners_observe_owned(struct page_owners *po, const struct hb_clocks *hb, uint64_t addr)
{
    int owner;
    if (page_owners_state(po, addr, &owner) == PAGE_PRIVATE) {
        struct entry *e = entry_get(po, addr >> PAGE_SHIFT_BITS);
        e->was_owner = owner;
        e->was_epoch = e->live ? hb_epoch(hb, owner) : e->epoch;
    }
    page_owners_observe(po, addr);
}

void page_owners_observe(struct page_owners *po, uint64_t addr)
{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    page_list_add(&po->observe_always, addr);
    if (range_find(&po->tracked, page))
        observe_page(po, page);
}


enum page_state page_owners_state(const struct page_owners *po, uint64_t addr, int *owner)
{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    *owner = 0;
    const struct range *s = range_find(&po->stacks, page);
    if (s) {
        *owner = s->thread;
        return PAGE_STACK;
    }
    if (!range_find(&po->tracked, page))
        return PAGE_UNTRACKED;
    const struct entry *e = entry_find(po, page);
    if (!e)
        return PAGE_UNTOUCHED;
    *owner = e->owner;
    return (enum page_state)e->state;
}

bool page_owners_native(const struct page_owners *po, int thread, uint64_t addr, bool write)
{
    int owner;
    switch (page_owners_state(po, addr, &owner)) {
    case PAGE_UNTRACKED:
        return true;
    case PAGE_STACK:
        return owner == thread && page_owners_thread_key(po, thread);
    case PAGE_PRIVATE: {
        const struct entry *e = entry_find(po, addr >> PAGE_SHIFT_BITS);
        return owner == thread && e->live && page_owners_thread_key(po, thread);
    }
    case PAGE_READ_SHARED:
        return !write && page_owners_reads_shared(po, thread);
    default:
        return false;
    }
}

/* Whether every read of read-shared pages by a thread but `thread` is
 * known to it: a thread reads them only in the epochs they are open to
 * it in (its rights say so), the last of which it remembers. */
static bool other_readers_over(const struct page_owners *po, const struct hb_clocks *hb, int thread)
{
    for (int x = 1; x < po->n_threads; x++) {
        if (x == thread || !po->ro_epoch[x])
            continue;
        if (po->ro_open[x] && !hb_thread_ended(hb, x))
            return false;   /* it may read them in the epoch it is in */
        if (!hb_knows(hb, thread, x, po->ro_epoch[x]))
            return false;
    }
    return true;
}

/* A touch of an observed page by thread: a step, unless the page was
 * somebody's until the middle of the execution and that thread's
 * unobserved accesses are not known to this one. */
static bool before_observed_unordered(const struct page_owners *po, const struct hb_clocks *hb, int thread,
                                      uint64_t page)
{
    const struct entry *e = entry_find(po, page);
    return e && e->was_owner && e->was_owner != thread && !hb_knows(hb, thread, e->was_owner, e->was_epoch);
}

bool page_owners_unordered(const struct page_owners *po, const struct hb_clocks *hb, int thread, uint64_t addr)
{
    int owner;
    enum page_state st = page_owners_state(po, addr, &owner);
    if (st == PAGE_OBSERVED)
        return before_observed_unordered(po, hb, thread, addr >> PAGE_SHIFT_BITS);
    if (st == PAGE_READ_SHARED)
        return !other_readers_over(po, hb, thread);
    if (st != PAGE_PRIVATE || owner == thread)
        return false;
    const struct entry *e = entry_find(po, addr >> PAGE_SHIFT_BITS);
    uint32_t last = e->live ? hb_epoch(hb, e->owner) : e->epoch;
    bool owner_over = hb_thread_ended(hb, e->owner) || !e->live;
    return !owner_over || !hb_knows(hb, thread, e->owner, last);
}

static void make_live(struct page_owners *po, struct entry *e, int thread)
{
    e->state = PAGE_PRIVATE;
    e->owner = thread;
    e->live = true;
    e->by_read = false;
    e->was_owner = 0;
    live_add(po, thread, e->page - 1);
    retag(po, e->page - 1, e->page, key_of(po, e));
}

enum page_touch page_owners_touch(struct page_owners *po, const struct hb_clocks *hb, int thread, uint64_t addr,
                                  bool write, uint64_t *page_out)
{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    *page_out = page << PAGE_SHIFT_BITS;
    int owner;
    enum page_state st = page_owners_state(po, addr, &owner);
    if (st == PAGE_OBSERVED)
        return before_observed_unordered(po, hb, thread, page) ? TOUCH_CONFLICT : TOUCH_VISIBLE;
    if (!page_owners_thread_key(po, thread)) {
        /* A thread without a key of its own can touch nothing natively:
         * what it touches is observed, or shared unordered. */
        if (st == PAGE_UNTRACKED || (st == PAGE_READ_SHARED && !write))
            return TOUCH_NATIVE;
        return st == PAGE_OBSERVED || st == PAGE_STACK ? TOUCH_VISIBLE : TOUCH_CONFLICT;
    }
    switch (st) {
    case PAGE_UNTRACKED:
        return TOUCH_NATIVE;
    case PAGE_STACK:
        return owner == thread ? TOUCH_NATIVE : TOUCH_VISIBLE;
    case PAGE_OBSERVED:
        return TOUCH_VISIBLE;
    case PAGE_UNTOUCHED: {
        struct entry *e = entry_get(po, page);
        if (e->readers && !write) {
            e->state = PAGE_READ_SHARED;
            retag(po, page, page + 1, po->key_read_only);
            open_reading(po, hb, thread);
        } else {
            make_live(po, e, thread);
        }
        return TOUCH_NATIVE;
    }
    case PAGE_READ_SHARED: {
        if (!write) {
            open_reading(po, hb, thread);
            return TOUCH_NATIVE;
        }
        if (!other_readers_over(po, hb, thread))
            return TOUCH_CONFLICT;
        make_live(po, entry_get(po, page), thread);
        return TOUCH_NATIVE;
    }
    case PAGE_PRIVATE: {
        struct entry *e = entry_get(po, page);
        if (e->owner == thread) {
            if (!e->live)
                make_live(po, e, thread);
            return TOUCH_NATIVE;
        }
        /* The owner's accesses end with its last epoch on the page: the
         * one it is in while the page is live for it. */
        uint32_t last = e->live ? hb_epoch(hb, e->owner) : e->epoch;
        bool owner_over = hb_thread_ended(hb, e->owner) || !e->live;
        if (!owner_over || !hb_knows(hb, thread, e->owner, last))
            return !write && !e->readers ? TOUCH_CONFLICT_READ : TOUCH_CONFLICT;
        if (write || !e->readers) {
            /* Handed on whole (a buffer passed down a pipeline): the
             * reader may write it as well. */
            make_live(po, e, thread);
            e->by_read = !write;

        } else {
            e->state = PAGE_READ_SHARED;
            e->live = false;
            retag(po, page, page + 1, po->key_read_only);
            open_reading(po, hb, thread);
            /* The owner read (or wrote) it in epochs the reader knows of:
             * as if it had read it then. */
            if (!po->ro_epoch[e->owner] || po->ro_epoch[e->owner] < e->epoch)
                po->ro_epoch[e->owner] = e->epoch;
        }
        return TOUCH_NATIVE;
    }
    }
    return TOUCH_CONFLICT;
}

void page_owners_fresh(struct page_owners *po, uint64_t addr, int thread)
{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    if (!range_find(&po->tracked, page) || range_find(&po->stacks, page) || !page_owners_thread_key(po, thread))
        return;
    struct entry *e = entry_get(po, page);
    if (e->state == PAGE_PRIVATE && e->owner == thread && e->live)
        return;
    make_live(po, e, thread);
}

void page_owners_refresh(struct page_owners *po, uint64_t addr)

{
    uint64_t page = addr >> PAGE_SHIFT_BITS;
    const struct range *s = range_find(&po->stacks, page);
    if (s) {
        int key = page_owners_thread_key(po, s->thread);
        retag(po, page, page + 1, key ? key : po->key_closed);
        return;
    }
    if (!range_find(&po->tracked, page))
        return;
    const struct entry *e = entry_find(po, page);
    retag(po, page, page + 1, e ? key_of(po, e) : po->key_closed);
}

static void arm(struct page_owners *po, int thread, uint32_t epoch)
{
    if (thread <= 0 || thread >= po->n_threads)
        return;
    struct live_list *l = &po->live[thread];
    for (size_t i = 0; i < l->n; i++) {
        struct entry *e = entry_find(po, l->pages[i]);
        if (!e || e->state != PAGE_PRIVATE || e->owner != thread || !e->live)
            continue;   /* taken over, shared or forgotten since */
        e->live = false;
        e->epoch = epoch;
        retag(po, l->pages[i], l->pages[i] + 1, po->key_closed);
    }
    l->n = 0;
}

void page_owners_release(struct page_owners *po, int thread, uint32_t ended)
{
    arm(po, thread, ended);
    if (page_owners_reads_shared(po, thread)) {
        po->ro_open[thread] = false;    /* its next read of one says it reads again */
        po->ro_epoch[thread] = ended;
    }
}

void page_owners_thread_end(struct page_owners *po, int thread, uint32_t final_epoch)
{
    page_owners_release(po, thread, final_epoch);
    for (size_t i = 0; i < po->stacks.n; i++)
        if (po->stacks.at[i].thread == thread)
            retag(po, po->stacks.at[i].start, po->stacks.at[i].end, po->key_closed);
    if (thread > 0 && thread < po->n_threads)
        po->thread_key[thread] = 0;
}

void page_owners_each_taken_by_reading(const struct page_owners *po, int thread,
                                       void (*each)(void *ctx, uint64_t page), void *ctx)
{
    for (size_t i = 0; i < po->cap; i++) {
        const struct entry *e = &po->entries[i];
        if (e->page && e->state == PAGE_PRIVATE && e->owner == thread && e->by_read)
            each(ctx, (e->page - 1) << PAGE_SHIFT_BITS);
    }
}
