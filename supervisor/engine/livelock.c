/* livelock: state hashes and the window of repeated states. */
#include "supervisor/engine/livelock.h"
#include "supervisor/process/hash64.h"
#include "supervisor/engine/exec_core.h"
#include "supervisor/process/memory_digest.h"

#include <stdlib.h>
#include <string.h>

struct written_word {
    uint64_t addr;              /* 0: empty slot */
    uint64_t value;
};

/* The states of the last RECENT_STEPS steps, exactly: a state counts as
 * seen before when it is among them. Exact rather than a direct-mapped
 * table that forgets on a collision, so that the verdict depends only on
 * which states are equal and never on their hash values: a value that
 * differs from run to run but stays put within one (a thread's kernel id
 * in a register, as pthread_join's futex wait keeps it) changes every
 * hash, and with a forgetful table it changed which states were forgotten:
 * a replay met the livelock at another step than its run, or not at all. */
/* Both tables start small and grow with the execution: most executions
 * are a few thousand steps long, and zeroing 3.6 MB for each of them cost
 * more than the rest of the livelock watch. */
enum { RECENT_STEPS = 1u << 16, FIRST_RING = 1u << 10 };

struct seen_state {
    uint64_t hash;              /* 0: an empty slot */
    uint64_t step;              /* when it was last seen */
    uint32_t count;             /* how often among the recent steps */
};

struct recent_states {
    struct seen_state *slots;   /* open addressing, linear probing, at most half full */
    size_t n_slots;             /* a power of two */
    size_t n_used;              /* distinct states among the recent steps */
    uint64_t *ring;             /* the states in step order */
    size_t ring_cap;            /* grows to RECENT_STEPS */
    size_t next;                /* the ring's oldest entry once it is full */
    bool full;
};

static bool digest_of_process(const struct execution *ex, uint64_t *out)
{
    return memory_digest(ex->pid, ex->vm_pid, out);
}

void livelock_init(struct livelock *l)
{
    memset(l, 0, sizeof *l);
    l->digest = digest_of_process;
    l->reference_after = LIVELOCK_WINDOW / 2;
}

void livelock_free(struct livelock *l)
{
    free(l->words);
    if (l->recent) {
        free(l->recent->slots);
        free(l->recent->ring);
    }
    free(l->recent);
    free(l->last_ran);
    free(l->thread_hash);
    free(l->touched);
    memset(l, 0, sizeof *l);
}

static struct written_word *word_slot(struct written_word *words, size_t cap, uint64_t addr)
{
    size_t i = (size_t)hash64_mix(addr) & (cap - 1);
    while (words[i].addr && words[i].addr != addr)
        i = (i + 1) & (cap - 1);
    return &words[i];
}

static void grow_words(struct livelock *l)
{
    size_t cap = l->cap_words ? l->cap_words * 2 : 1024;
    struct written_word *words = calloc(cap, sizeof *words);
    if (!words)
        abort();
    for (size_t i = 0; i < l->cap_words; i++)
        if (l->words[i].addr)
            *word_slot(words, cap, l->words[i].addr) = l->words[i];
    free(l->words);
    l->words = words;
    l->cap_words = cap;
}

void livelock_note_write(struct livelock *l, uint64_t addr, unsigned size, uint64_t value)
{
    if (!addr || size == 0)
        return;
    if (size < 8)
        value &= (1ull << (size * 8)) - 1;
    /* Keyed by address and size: a word written whole and in halves are
     * two keys, which only ever adds distinctions. */
    uint64_t key = addr ^ ((uint64_t)size << 58);
    if (2 * (l->n_words + 1) > l->cap_words)
        grow_words(l);
    struct written_word *w = word_slot(l->words, l->cap_words, key);
    if (w->addr)
        l->memory_hash ^= hash64_mix(key ^ hash64_mix(w->value));
    else
        l->n_words++;
    w->addr = key;
    w->value = value;
    l->memory_hash ^= hash64_mix(key ^ hash64_mix(value));
}

static uint64_t thread_hash(const struct mthread *t)
{
    uint64_t h = hash64_mix(((uint64_t)t->id << 32) ^ ((uint64_t)t->state << 8) ^ (uint64_t)t->op);
    if (t->state == TS_EXITED)
        return h;
    /* Everything a thread carries from one step to the next that the
     * program can see: its registers (the loop counter of a compute loop
     * lives in one), where it stands and what it waits for. */
    const uint64_t *r = (const uint64_t *)&t->regs;
    for (size_t i = 0; i < sizeof t->regs / sizeof *r; i++)
        h = hash64_mix(h ^ r[i]);
    return hash64_mix(h ^ t->access_addr ^ ((uint64_t)t->fn << 48));
}

static void ensure_thread(struct livelock *l, int thread)
{
    if ((size_t)thread < l->cap_threads)
        return;
    size_t cap = l->cap_threads ? l->cap_threads : 16;
    while (cap <= (size_t)thread)
        cap *= 2;
    l->last_ran = realloc(l->last_ran, cap * sizeof *l->last_ran);
    l->thread_hash = realloc(l->thread_hash, cap * sizeof *l->thread_hash);
    if (!l->last_ran || !l->thread_hash)
        abort();
    memset(l->last_ran + l->cap_threads, 0, (cap - l->cap_threads) * sizeof *l->last_ran);
    memset(l->thread_hash + l->cap_threads, 0, (cap - l->cap_threads) * sizeof *l->thread_hash);
    l->cap_threads = cap;
}

void livelock_touch(struct livelock *l, int id)
{
    if (l->n_touched == l->cap_touched) {
        l->cap_touched = l->cap_touched ? l->cap_touched * 2 : 16;
        l->touched = realloc(l->touched, l->cap_touched * sizeof *l->touched);
        if (!l->touched)
            abort();
    }
    l->touched[l->n_touched++] = id;
}

/* Replaces thread t's part of the state hash by what it is now. */
static void rehash_thread(struct livelock *l, const struct mthread *t)
{
    ensure_thread(l, t->id);
    l->threads_hash ^= l->thread_hash[t->id];
    l->thread_hash[t->id] = thread_hash(t);
    l->threads_hash ^= l->thread_hash[t->id];
}

/* Every thread that can run now ran since step `since`: the repetition is
 * not a schedule starving someone (a spinner alone while the thread that
 * would release it waits to be scheduled). */
static bool everyone_ran_since(const struct livelock *l, struct execution *ex, uint64_t since)
{
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *t = &ex->threads[i];
        if (t->state != TS_RUNNABLE)
            continue;
        if ((size_t)t->id >= l->cap_threads || l->last_ran[t->id] <= since)
            return false;
    }
    return true;
}

/* Hashes are odd (0 marks an empty slot): their low bit says nothing. */
static size_t home_of(const struct recent_states *r, uint64_t hash)
{
    return (size_t)(hash >> 1) & (r->n_slots - 1);
}

static size_t slot_of(const struct recent_states *r, uint64_t hash)
{
    size_t i = home_of(r, hash);
    while (r->slots[i].hash && r->slots[i].hash != hash)
        i = (i + 1) & (r->n_slots - 1);
    return i;
}

/* Empties slot i and moves later entries of its probe run back into the
 * gap, so that every entry stays reachable from its home slot. */
static void remove_slot(struct recent_states *r, size_t i)
{
    size_t gap = i, mask = r->n_slots - 1;
    for (size_t j = (i + 1) & mask; r->slots[j].hash; j = (j + 1) & mask) {
        size_t home = home_of(r, r->slots[j].hash);
        /* j may fill the gap when its home is not cyclically in (gap, j]. */
        bool home_after_gap = gap <= j ? (home > gap && home <= j) : (home > gap || home <= j);
        if (!home_after_gap) {
            r->slots[gap] = r->slots[j];
            gap = j;
        }
    }
    r->slots[gap] = (struct seen_state){0};
    r->n_used--;
}

static void *zeroed(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        abort();
    return p;
}

/* Room for one more distinct state, the table at most half full. */
static void make_room(struct recent_states *r)
{
    if ((r->n_used + 1) * 2 <= r->n_slots)
        return;
    struct recent_states bigger = *r;
    bigger.n_slots = r->n_slots ? r->n_slots * 2 : 2 * FIRST_RING;
    bigger.slots = zeroed(bigger.n_slots, sizeof *bigger.slots);
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].hash)
            bigger.slots[slot_of(&bigger, r->slots[i].hash)] = r->slots[i];
    free(r->slots);
    *r = bigger;
}

/* Step `step` is in state hash: the oldest step leaves the window. Returns
 * the slot of the state as it was before (hash 0: not among the recent). */
static struct seen_state remember(struct recent_states *r, uint64_t hash, uint64_t step)
{
    if (r->full) {
        size_t old = slot_of(r, r->ring[r->next]);
        if (--r->slots[old].count == 0)
            remove_slot(r, old);
    } else if (r->next == r->ring_cap) {
        /* Not full yet: the ring holds steps 0..next-1 in order. */
        r->ring_cap = r->ring_cap ? r->ring_cap * 2 : FIRST_RING;
        r->ring = realloc(r->ring, r->ring_cap * sizeof *r->ring);
        if (!r->ring)
            abort();
    }
    r->ring[r->next] = hash;
    r->next = (r->next + 1) % RECENT_STEPS;
    r->full = r->full || r->next == 0;
    make_room(r);
    struct seen_state *s = &r->slots[slot_of(r, hash)];
    struct seen_state before = *s;
    r->n_used += !before.hash;
    *s = (struct seen_state){.hash = hash, .step = step, .count = before.count + 1};
    return before;
}

/* Compares the memory with the reference's when the state is the
 * reference's again: at once when the window's verdict waits on it, else
 * at most every CHECK_SPACING repeated steps (a digest reads every page the
 * program wrote). Memory that moved makes the states from here new. */
enum { CHECK_SPACING = 1000 };

static void compare_with_reference(struct livelock *l, struct execution *ex, uint64_t state, bool verdict_waits)
{
    if (!l->has_reference || state != l->reference_state || l->quiet == l->reference_quiet)
        return;
    if (!verdict_waits && l->quiet - l->checked_quiet < CHECK_SPACING)
        return;
    l->checked_quiet = l->quiet;
    uint64_t memory;
    if (!l->digest(ex, &memory))
        return;
    if (memory == l->reference_memory) {
        l->confirmed_quiet = l->quiet;
        return;
    }
    l->epoch++;
    l->quiet = 0;
    l->has_reference = false;
    l->confirmed_quiet = 0;
    /* A program that repeats its visible states while moving on unseen
     * (late_sharing.c) would otherwise pay two digests every few thousand
     * steps: its next reference comes later, up to half a window. */
    l->reference_after = l->reference_after * 2 < LIVELOCK_WINDOW / 2 ? l->reference_after * 2 : LIVELOCK_WINDOW / 2;
}

/* Takes the reference once the repetition is reference_after steps long,
 * and again when the old one was not met for a window. */
static void take_reference(struct livelock *l, struct execution *ex, uint64_t state)
{
    uint64_t last_met = l->confirmed_quiet > l->reference_quiet ? l->confirmed_quiet : l->reference_quiet;
    bool due = !l->has_reference ? l->quiet >= l->reference_after : l->quiet - last_met > LIVELOCK_WINDOW;
    if (!due)
        return;
    l->has_reference = l->digest(ex, &l->reference_memory);
    l->reference_state = state;
    l->reference_quiet = l->checked_quiet = l->quiet;
}

void livelock_judge_within(struct livelock *l, uint64_t enough)
{
    uint64_t after = enough / 2 ? enough / 2 : 1;
    if (after < l->reference_after)
        l->reference_after = after;
}

bool livelock_confirmed(const struct livelock *l)
{
    return l->has_reference && l->confirmed_quiet > l->reference_quiet;
}

bool livelock_fair(const struct livelock *l, struct execution *ex)
{
    return everyone_ran_since(l, ex, ex->steps - l->quiet);
}

bool livelock_after_step(struct livelock *l, struct execution *ex, int ran)
{
    if (!l->recent) {
        l->recent = calloc(1, sizeof *l->recent);
        if (!l->recent)
            abort();
    }
    uint64_t step = ex->steps;
    ensure_thread(l, ran);
    l->last_ran[ran] = step;
    /* Only the thread that ran and those it woke have changed. */
    rehash_thread(l, exec_thread_by_id(ex, ran));
    for (size_t i = 0; i < l->n_touched; i++) {
        const struct mthread *t = exec_thread_by_id(ex, l->touched[i]);
        if (t)
            rehash_thread(l, t);
    }
    l->n_touched = 0;
    uint64_t h = hash64_mix(l->memory_hash ^ l->threads_hash ^ hash64_mix(l->epoch)) | 1;  /* never 0: an empty slot */
    struct seen_state before = remember(l->recent, h, step);
    if (before.hash) {
        l->quiet++;
        l->cycle = step - before.step;
    } else {
        l->quiet = 0;
        l->has_reference = false;
        l->confirmed_quiet = 0;
    }
    /* Fair over the window as a whole: a schedule that runs one thread
     * for a while, then another (PCT), still gives every thread its turn. */
    bool judged = l->quiet >= LIVELOCK_WINDOW && livelock_fair(l, ex);
    compare_with_reference(l, ex, h, judged);
    take_reference(l, ex, h);
    /* quiet again: a comparison that found the memory moved set it to 0. */
    return judged && l->quiet >= LIVELOCK_WINDOW && l->confirmed_quiet == l->quiet;
}
