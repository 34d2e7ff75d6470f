/* race_detector: FastTrack over mdat's steps.
 *
 * Each thread has a vector clock C; each sync object a clock L. A release
 * (unlock, post, signal, the start of a wait, an atomic store) joins C into
 * L and ticks the thread's own entry, so that what the thread does next is
 * not covered by L; an acquire (a lock call returning, a wait ending, an
 * atomic load) joins L into C. An access races with the byte's last write
 * (or reads) when that epoch is not covered by the accessing thread's C.
 *
 * Calls that acquire are completed when they return: at once when the
 * thread does not wait after its call step, else at the first later step
 * after which it no longer waits (its wake-up, possibly after waiting again
 * for the mutex a condition wait re-takes). Edges the engine reports in the
 * middle of a step (a new thread, a wake, an exit) are applied after the
 * step's own operation. */
#include "supervisor/detect/race_detector.h"
#include "supervisor/detect/race_shadow.h"
#include "supervisor/sharing/vector_clock.h"
#include "supervisor/code/code_map.h"

#include <stdlib.h>
#include <string.h>

/* Several clocks per object address: the tag sits above any user address. */
enum clock_tag { TAG_OBJECT, TAG_READERS, TAG_ARRIVALS, TAG_ROUND };

static uint64_t key_of(uint64_t addr, enum clock_tag tag)
{
    return addr ^ ((uint64_t)tag << 58);
}

/* A blocking call on a descriptor, as a pending call (no model_fn of its own). */
enum { CALL_IO = MF_COUNT };

enum held_mode { HELD_MUTEX, HELD_READ, HELD_WRITE };

struct held {
    uint64_t obj;
    enum held_mode mode;
};

struct rthread {
    bool known;
    bool exited;
    uint64_t pthread;
    struct vector_clock clock;
    uint32_t joined;            /* bumped whenever clock takes in what another thread knew */
    /* The call whose acquire waits for its return (-1: none). */
    int pending_fn;
    uint64_t pending_obj, pending_mutex;
    struct held *held;          /* locks it holds, the newest last */
    size_t n_held, cap_held;
};

enum edge_kind { EDGE_CREATED, EDGE_WOKE, EDGE_EXITED, EDGE_RELEASE, EDGE_ACQUIRE, EDGE_ACQUIRE_RELEASE };

/* EDGE_RELEASE, EDGE_ACQUIRE and EDGE_ACQUIRE_RELEASE: thread `from` with
 * the clock of key `object`. */
struct edge {
    enum edge_kind kind;
    int from, to;
    uint64_t object;            /* EDGE_EXITED: the pthread_t; the others above: a key */
};

/* A lock's (or a word's, a barrier round's) clock. A thread that releases
 * the same lock over and over, with nobody else in between, would join its
 * whole clock into the lock's each time, and take it back at each acquire:
 * with hundreds of threads that is most of a step. same_as remembers that
 * the clock equals that thread's but for the thread's own entry, for as
 * long as that thread took in nothing from anyone (joined unchanged). */
struct sync_clock {
    struct vector_clock vc;
    int same_as;                /* 0: none */
    uint32_t same_as_joined;
};

struct race_detector {
    struct rthread *threads;    /* index = thread id */
    size_t n_threads;
    uint64_t *keys;             /* sync clocks: open addressing, 0 empty */
    uint32_t *clock_index;
    size_t cap_keys, n_keys;
    struct sync_clock *clocks;
    size_t cap_clocks;
    struct edge *edges;         /* learned during the current step */
    size_t n_edges, cap_edges;
    struct race_shadow *shadow;
};

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

/* ---------- threads ---------- */

static struct rthread *thread_of(struct race_detector *d, int id)
{
    size_t i = id > 0 ? (size_t)id : 0;
    if (i >= d->n_threads) {
        size_t n = d->n_threads ? d->n_threads : 8;
        while (n <= i)
            n *= 2;
        d->threads = xrealloc(d->threads, n * sizeof *d->threads);
        memset(d->threads + d->n_threads, 0, (n - d->n_threads) * sizeof *d->threads);
        d->n_threads = n;
    }
    struct rthread *t = &d->threads[i];
    if (!t->known) {
        t->known = true;
        t->pending_fn = -1;
        vc_set(&t->clock, (uint32_t)i, 1);
    }
    return t;
}

static void hold(struct rthread *t, uint64_t obj, enum held_mode mode)
{
    if (t->n_held == t->cap_held) {
        t->cap_held = t->cap_held ? t->cap_held * 2 : 4;
        t->held = xrealloc(t->held, t->cap_held * sizeof *t->held);
    }
    t->held[t->n_held++] = (struct held){obj, mode};
}

/* Lets go of obj (the newest hold of it); returns how it was held. */
static enum held_mode let_go(struct rthread *t, uint64_t obj)
{
    for (size_t i = t->n_held; i-- > 0;) {
        if (t->held[i].obj != obj)
            continue;
        enum held_mode mode = t->held[i].mode;
        memmove(&t->held[i], &t->held[i + 1], (t->n_held - i - 1) * sizeof *t->held);
        t->n_held--;
        return mode;
    }
    return HELD_MUTEX;
}

static uint64_t newest_mutex(const struct rthread *t)
{
    for (size_t i = t->n_held; i-- > 0;)
        if (t->held[i].mode == HELD_MUTEX)
            return t->held[i].obj;
    return 0;
}

/* ---------- sync clocks ---------- */

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void grow_keys(struct race_detector *d)
{
    size_t cap = d->cap_keys ? d->cap_keys * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *index = calloc(cap, sizeof *index);
    if (!keys || !index)
        abort();
    for (size_t i = 0; i < d->cap_keys; i++) {
        if (!d->keys[i])
            continue;
        size_t k = slot_of(d->keys[i], cap);
        while (keys[k])
            k = (k + 1) & (cap - 1);
        keys[k] = d->keys[i];
        index[k] = d->clock_index[i];
    }
    free(d->keys);
    free(d->clock_index);
    d->keys = keys;
    d->clock_index = index;
    d->cap_keys = cap;
}

/* The clock of key; NULL when there is none and !create. */
static struct sync_clock *sync_clock(struct race_detector *d, uint64_t key, bool create)
{
    if (d->cap_keys) {
        for (size_t k = slot_of(key, d->cap_keys); d->keys[k]; k = (k + 1) & (d->cap_keys - 1))
            if (d->keys[k] == key)
                return &d->clocks[d->clock_index[k]];
    }
    if (!create)
        return NULL;
    if ((d->n_keys + 1) * 4 > d->cap_keys * 3)
        grow_keys(d);
    if (d->n_keys == d->cap_clocks) {
        size_t old = d->cap_clocks;
        d->cap_clocks = old ? old * 2 : 64;
        d->clocks = xrealloc(d->clocks, d->cap_clocks * sizeof *d->clocks);
        for (size_t i = old; i < d->cap_clocks; i++)
            vc_init(&d->clocks[i].vc);
    }
    size_t k = slot_of(key, d->cap_keys);
    while (d->keys[k])
        k = (k + 1) & (d->cap_keys - 1);
    d->keys[k] = key;
    d->clock_index[k] = (uint32_t)d->n_keys;
    struct sync_clock *c = &d->clocks[d->n_keys++];
    vc_clear(&c->vc);
    c->same_as = 0;
    return c;
}

/* into takes in what from knows. */
static void take_in(struct rthread *into, const struct vector_clock *from)
{
    if (vc_join(&into->clock, from) & VC_SRC_AHEAD)
        into->joined++;
}

/* l's clock is t's (thread id's) but for t's own entry. */
static bool mirrors(const struct sync_clock *l, int id, const struct rthread *t)
{
    return l->same_as == id && l->same_as_joined == t->joined;
}

static void release(struct race_detector *d, int id, uint64_t key)
{
    struct rthread *t = thread_of(d, id);
    struct sync_clock *l = sync_clock(d, key, true);
    if (mirrors(l, id, t)) {
        vc_set(&l->vc, (uint32_t)id, vc_get(&t->clock, (uint32_t)id));
    } else if (vc_join(&l->vc, &t->clock) & VC_DST_AHEAD) {
        l->same_as = 0;
    } else {
        l->same_as = id;
        l->same_as_joined = t->joined;
    }
    vc_tick(&t->clock, (uint32_t)id);
}

static void acquire(struct race_detector *d, int id, uint64_t key)
{
    const struct sync_clock *l = sync_clock(d, key, false);
    struct rthread *t = thread_of(d, id);
    if (l && !mirrors(l, id, t))   /* else the lock knows nothing t does not */
        take_in(t, &l->vc);
}

/* ---------- life cycle ---------- */

struct race_detector *race_detector_new(void)
{
    struct race_detector *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->shadow = race_shadow_new();
    race_detector_begin(d);
    return d;
}

static void forget_threads(struct race_detector *d)
{
    for (size_t i = 0; i < d->n_threads; i++) {
        vc_free(&d->threads[i].clock);
        free(d->threads[i].held);
    }
    if (d->n_threads)
        memset(d->threads, 0, d->n_threads * sizeof *d->threads);
}

void race_detector_free(struct race_detector *d)
{
    if (!d)
        return;
    forget_threads(d);
    free(d->threads);
    free(d->keys);
    free(d->clock_index);
    for (size_t i = 0; i < d->cap_clocks; i++)
        vc_free(&d->clocks[i].vc);
    free(d->clocks);
    free(d->edges);
    race_shadow_free(d->shadow);
    free(d);
}

void race_detector_begin(struct race_detector *d)
{
    forget_threads(d);
    if (d->cap_keys)
        memset(d->keys, 0, d->cap_keys * sizeof *d->keys);
    d->n_keys = 0;
    d->n_edges = 0;
    race_shadow_reset(d->shadow);
    thread_of(d, 1);
}

static void add_edge(struct race_detector *d, struct edge e)
{
    if (d->n_edges == d->cap_edges) {
        d->cap_edges = d->cap_edges ? d->cap_edges * 2 : 8;
        d->edges = xrealloc(d->edges, d->cap_edges * sizeof *d->edges);
    }
    d->edges[d->n_edges++] = e;
}

void race_detector_thread_created(struct race_detector *d, int parent, int child)
{
    add_edge(d, (struct edge){EDGE_CREATED, parent, child, 0});
}

void race_detector_woke(struct race_detector *d, int waker, int woken, uint64_t addr)
{
    (void)addr;
    add_edge(d, (struct edge){EDGE_WOKE, waker, woken, 0});
}

void race_detector_thread_exited(struct race_detector *d, int thread, uint64_t pthread)
{
    add_edge(d, (struct edge){EDGE_EXITED, thread, thread, pthread});
}

/* from's clock flows into to's (a send), and from moves on. */
static void send(struct race_detector *d, int from, int to)
{
    if (from <= 0 || to <= 0 || from == to)
        return;
    struct rthread *src = thread_of(d, from);
    struct rthread *dst = thread_of(d, to);
    take_in(dst, &src->clock);
    vc_tick(&src->clock, (uint32_t)from);
}

static void apply_edges(struct race_detector *d)
{
    for (size_t i = 0; i < d->n_edges; i++) {
        const struct edge *e = &d->edges[i];
        switch (e->kind) {
        case EDGE_CREATED:
            thread_of(d, e->to);
            send(d, e->from, e->to);
            break;
        case EDGE_WOKE:
            send(d, e->from, e->to);
            break;
        case EDGE_EXITED: {
            struct rthread *t = thread_of(d, e->from);
            t->exited = true;
            t->pthread = e->object;
            break;
        }
        case EDGE_ACQUIRE:
            acquire(d, e->from, e->object);
            break;
        case EDGE_RELEASE:
            release(d, e->from, e->object);
            break;
        case EDGE_ACQUIRE_RELEASE:
            acquire(d, e->from, e->object);
            release(d, e->from, e->object);
            break;
        }
    }
    d->n_edges = 0;
}

/* ---------- accesses ---------- */

static struct shadow_access access_now(const struct race_detector *d, const struct race_step *s)
{
    const struct rthread *t = &d->threads[s->thread];
    return (struct shadow_access){(uint32_t)s->thread, vc_get(&t->clock, (uint32_t)s->thread), s->step,
                                  s->op->pc};
}

static bool ordered(const struct shadow_access *a, const struct vector_clock *c)
{
    return a->thread == 0 || epoch_leq((struct epoch){a->thread, a->clock}, c);
}

static void note_race(struct race *r, bool *have, uint64_t addr, const struct shadow_access *earlier,
                      bool earlier_write, const struct shadow_access *now, bool now_write)
{
    if (*have || !r)
        return;
    *have = true;
    r->addr = addr;
    r->earlier = (struct race_access){(int)earlier->thread, earlier_write, earlier->step, earlier->pc};
    r->later = (struct race_access){(int)now->thread, now_write, now->step, now->pc};
}

static void read_byte(struct race_detector *d, const struct vector_clock *c, const struct shadow_access *now,
                      uint64_t addr, struct race *r, bool *have)
{
    struct shadow_cell *cell = race_shadow_cell(d->shadow, addr, true);
    if (!ordered(&cell->write, c))
        note_race(r, have, addr, &cell->write, true, now, false);
    if (cell->reads) {
        race_shadow_reads_put(race_shadow_reads(d->shadow, cell), now);
    } else if (cell->read.thread == now->thread || ordered(&cell->read, c)) {
        cell->read = *now;      /* reads still totally ordered: one epoch is enough */
    } else {
        race_shadow_reads_put(race_shadow_reads(d->shadow, cell), now);
    }
}

static void write_byte(struct race_detector *d, const struct vector_clock *c, const struct shadow_access *now,
                       uint64_t addr, struct race *r, bool *have)
{
    struct shadow_cell *cell = race_shadow_cell(d->shadow, addr, true);
    if (!ordered(&cell->write, c))
        note_race(r, have, addr, &cell->write, true, now, true);
    if (cell->reads) {
        const struct shadow_reads *reads = race_shadow_reads(d->shadow, cell);
        for (size_t t = 1; t < reads->n; t++)
            if (reads->by_thread[t].thread && !ordered(&reads->by_thread[t], c))
                note_race(r, have, addr, &reads->by_thread[t], false, now, true);
    } else if (!ordered(&cell->read, c)) {
        note_race(r, have, addr, &cell->read, false, now, true);
    }
    race_shadow_drop_reads(d->shadow, cell);
    cell->write = *now;
}

/* Whether the access is to a sync location: atomic by its instruction or
 * its type, or at a byte some atomic access touched before (a spinlock's
 * word released by a plain store). */
static bool is_atomic(struct race_detector *d, const struct race_step *s)
{
    if (s->op->atomic || s->atomic_object)
        return true;
    for (uint64_t i = 0; i < s->op->size; i++) {
        const struct shadow_cell *cell = race_shadow_cell(d->shadow, s->op->addr + i, false);
        if (cell && cell->atomic)
            return true;
    }
    return false;
}

/* An atomic load acquires what stores to the same object released. */
static void synchronise_as_atomic(struct race_detector *d, const struct race_step *s)
{
    const struct visible_op *op = s->op;
    uint64_t key = key_of(op->addr, TAG_OBJECT);
    if (op->kind != VIS_WRITE)
        acquire(d, s->thread, key);
    if (op->kind != VIS_READ)
        release(d, s->thread, key);
}

static void atomic_access(struct race_detector *d, const struct race_step *s)
{
    const struct visible_op *op = s->op;
    for (uint64_t i = 0; i < op->size; i++)
        race_shadow_cell(d->shadow, op->addr + i, true)->atomic = true;
    synchronise_as_atomic(d, s);
}


static bool memory_access(struct race_detector *d, const struct race_step *s, struct race *r)
{
    const struct visible_op *op = s->op;
    if (!op->addr || !op->size)
        return false;
    if (is_atomic(d, s)) {
        atomic_access(d, s);
        return false;
    }
    if (s->atomic_line) {
        synchronise_as_atomic(d, s);
        return false;
    }
    const struct vector_clock *c = &d->threads[s->thread].clock;
    struct shadow_access now = access_now(d, s);
    bool have = false;
    for (uint64_t i = 0; i < op->size; i++) {
        if (op->kind == VIS_READ)
            read_byte(d, c, &now, op->addr + i, r, &have);
        else
            write_byte(d, c, &now, op->addr + i, r, &have);
    }
    return have;
}

/* ---------- calls ---------- */

static const struct rthread *exited_thread(const struct race_detector *d, uint64_t pthread)
{
    for (size_t i = d->n_threads; i-- > 1;)
        if (d->threads[i].known && d->threads[i].exited && d->threads[i].pthread == pthread)
            return &d->threads[i];
    return NULL;
}

/* The call's acquire, now that it has returned. */
static void complete_call(struct race_detector *d, int id)
{
    struct rthread *t = thread_of(d, id);
    int fn = t->pending_fn;
    uint64_t obj = t->pending_obj;
    t->pending_fn = -1;
    switch (fn) {
    case MF_MUTEX_LOCK: case MF_MUTEX_TRYLOCK: case MF_MUTEX_TIMEDLOCK: case MF_SPIN_LOCK:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        hold(t, obj, HELD_MUTEX);
        break;
    case MF_RWLOCK_RDLOCK: case MF_RWLOCK_TRYRDLOCK:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        hold(t, obj, HELD_READ);
        break;
    case MF_RWLOCK_WRLOCK: case MF_RWLOCK_TRYWRLOCK:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        acquire(d, id, key_of(obj, TAG_READERS));
        hold(t, obj, HELD_WRITE);
        break;
    case MF_SEM_WAIT: case MF_SEM_TRYWAIT: case MF_SEM_TIMEDWAIT:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        break;
    case MF_COND_WAIT: case MF_COND_TIMEDWAIT:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        if (t->pending_mutex) {
            acquire(d, id, key_of(t->pending_mutex, TAG_OBJECT));
            hold(t, t->pending_mutex, HELD_MUTEX);
        }
        break;
    case MF_BARRIER_WAIT:
        acquire(d, id, key_of(obj, TAG_ROUND));
        break;
    case MF_THREAD_JOIN: {
        const struct rthread *target = exited_thread(d, obj);
        if (target)
            take_in(t, &target->clock);
        break;
    }
    case CALL_IO:
        acquire(d, id, key_of(obj, TAG_OBJECT));
        break;
    default:
        break;
    }
}

/* Arrival at a barrier: the last thread to arrive (the one that does not
 * wait) collects everyone's arrival into the round's clock, which each
 * departs with. */
static void barrier_arrive(struct race_detector *d, const struct race_step *s, uint64_t obj)
{
    if (s->waiting) {
        release(d, s->thread, key_of(obj, TAG_ARRIVALS));
        return;
    }
    struct rthread *t = thread_of(d, s->thread);
    struct sync_clock *arrivals = sync_clock(d, key_of(obj, TAG_ARRIVALS), true);
    take_in(t, &arrivals->vc);
    vc_clear(&arrivals->vc);
    arrivals->same_as = 0;
    struct sync_clock *round = sync_clock(d, key_of(obj, TAG_ROUND), true);
    vc_copy(&round->vc, &t->clock);
    round->same_as = 0;
    vc_tick(&t->clock, (uint32_t)s->thread);
}

/* What the call does at its start; its acquire comes at its return. */
static void call(struct race_detector *d, const struct race_step *s, int fn, uint64_t obj)
{
    struct rthread *t = thread_of(d, s->thread);
    uint64_t mutex = 0;
    switch (fn) {
    case MF_MUTEX_UNLOCK: case MF_SPIN_UNLOCK:
        let_go(t, obj);
        release(d, s->thread, key_of(obj, TAG_OBJECT));
        return;
    case MF_RWLOCK_UNLOCK:
        release(d, s->thread, key_of(obj, let_go(t, obj) == HELD_READ ? TAG_READERS : TAG_OBJECT));
        return;
    case MF_SEM_POST: case MF_COND_SIGNAL: case MF_COND_BROADCAST:
        release(d, s->thread, key_of(obj, TAG_OBJECT));
        return;
    case MF_COND_WAIT: case MF_COND_TIMEDWAIT:
        mutex = s->mutex ? s->mutex : newest_mutex(t);
        if (mutex) {
            let_go(t, mutex);
            release(d, s->thread, key_of(mutex, TAG_OBJECT));
        }
        break;
    case MF_BARRIER_WAIT:
        barrier_arrive(d, s, obj);
        break;
    case MF_MUTEX_LOCK: case MF_MUTEX_TRYLOCK: case MF_MUTEX_TIMEDLOCK: case MF_SPIN_LOCK:
    case MF_RWLOCK_RDLOCK: case MF_RWLOCK_TRYRDLOCK: case MF_RWLOCK_WRLOCK: case MF_RWLOCK_TRYWRLOCK:
    case MF_SEM_WAIT: case MF_SEM_TRYWAIT: case MF_SEM_TIMEDWAIT: case MF_THREAD_JOIN: case CALL_IO:
        break;
    default:
        return;     /* pthread_exit and calls that are no sync: nothing to order */
    }
    t->pending_fn = fn;
    t->pending_obj = obj;
    t->pending_mutex = mutex;
    if (!s->waiting)
        complete_call(d, s->thread);
}

bool race_detector_step(struct race_detector *d, const struct race_step *s, struct race *found)
{
    const struct visible_op *op = s->op;
    struct rthread *t = thread_of(d, s->thread);
    if (t->pending_fn >= 0 && !(op->kind == VIS_RESUME && s->waiting))
        complete_call(d, s->thread);
    bool raced = false;
    switch ((enum visible_kind)op->kind) {
    case VIS_READ: case VIS_WRITE: case VIS_UPDATE:
        raced = memory_access(d, s, found);
        break;
    case VIS_SYNC: case VIS_JOIN:
        if (op->addr)
            call(d, s, op->fn, op->addr);
        break;
    case VIS_IO:
        /* What one thread writes into a pipe, the reader sees after it. */
        release(d, s->thread, key_of(op->addr, TAG_OBJECT));
        call(d, s, CALL_IO, op->addr);
        break;
    case VIS_START: case VIS_SPAWN: case VIS_YIELD: case VIS_RESUME: case VIS_EXIT:
        break;
    }
    apply_edges(d);
    return raced;
}

void race_detector_once_entered(struct race_detector *d, int thread, uint64_t once)
{
    acquire(d, thread, key_of(once, TAG_OBJECT));
}

void race_detector_once_returned(struct race_detector *d, int thread, uint64_t once)
{
    release(d, thread, key_of(once, TAG_OBJECT));
}

void race_detector_futex_call(struct race_detector *d, int thread, uint64_t addr, bool wakes)
{
    /* Plain loads and stores of a futex word (an __atomic_load_n, a release
     * store) are acquires and releases from now on, not races. */
    for (uint64_t i = 0; i < 4; i++)
        race_shadow_cell(d->shadow, addr + i, true)->atomic = true;
    add_edge(d, (struct edge){wakes ? EDGE_RELEASE : EDGE_ACQUIRE, thread, thread, key_of(addr, TAG_OBJECT)});
}

void race_detector_library_atomic(struct race_detector *d, int thread, uint64_t addr)
{
    add_edge(d, (struct edge){EDGE_ACQUIRE_RELEASE, thread, thread, key_of(addr, TAG_OBJECT)});
}

void race_detector_forget(struct race_detector *d, uint64_t addr, uint64_t size)
{
    race_shadow_forget(d->shadow, addr, size);
}

size_t race_detector_memory(const struct race_detector *d)
{
    return race_shadow_memory(d->shadow) + d->cap_keys * (sizeof *d->keys + sizeof *d->clock_index) +
           d->n_threads * sizeof *d->threads;
}
