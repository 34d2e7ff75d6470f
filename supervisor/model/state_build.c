/* state_build: the exec_state after a step: every thread with its status,
 * place and next operation (or what it waits on) and, under
 * --memory-model tso, the stores in its buffer; every sync object with
 * holder, value and waiters in the order they started waiting, and the
 * watched expressions. Built on request only: it reads the tracee's memory
 * for every object. */
#include "supervisor/debuginfo/text_out.h"
#include "supervisor/engine/store_buffer.h"
#include "supervisor/model/glibc_sync.h"
#include "supervisor/model/model_internal.h"
#include "supervisor/model/source_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    *buf = realloc(*buf, n * elem);
    if (!*buf)
        abort();
    *cap = n;
}

struct sync_object *model_register_object(struct model *m, enum sync_kind kind, uint64_t addr)
{
    struct sync_object *o = sync_model_get(&m->sync, addr);
    if (o) {
        if (o->kind == SYNC_FUTEX)
            o->kind = kind;
        return o;
    }
    char name[96];
    model_name_object(m, addr, name, sizeof name);
    return sync_model_add(&m->sync, kind, addr, name);
}

/* ---------- watches ---------- */

static bool watch_sync_value(struct model *m, uint64_t addr, char *buf, size_t len);

/* Evaluates each watched expression now into out; a thread-local one in
 * the thread that ran the last step. */
void model_watch_values(void *state, struct state_watch *out)
{
    struct model *m = state;
    struct execution *ex = m->ex;
    struct data_reader rd = model_reader(m);
    const struct mthread *current = exec_thread_by_id(ex, ex->last_thread ? ex->last_thread : 1);
    uint64_t tls_size = 0, align;
    bool has_tls = debuginfo_tls_block(ex->cfg->exe, &tls_size, &align);
    for (int i = 0; i < ex->cfg->n_watches; i++) {
        struct state_watch *w = &out[i];
        memset(w, 0, sizeof *w);
        snprintf(w->expr, sizeof w->expr, "%s", ex->cfg->watches[i]);
        uint64_t addr;
        const struct dwarf_type *type;
        char err[128];
        bool ok;
        if (has_tls && current && model_thread_pointer(current))
            ok = debuginfo_eval_thread(ex->cfg->exe, w->expr, &rd, model_thread_pointer(current) - tls_size, &addr,
                                       &type, err, sizeof err);
        else
            ok = debuginfo_eval(ex->cfg->exe, w->expr, &rd, &addr, &type, err, sizeof err);
        if (ok && watch_sync_value(m, addr, w->value, sizeof w->value))
            continue;
        if (ok) {
            debuginfo_format_value(ex->cfg->exe, type, addr, &rd, w->value, sizeof w->value);
        } else {
            w->error = true;
            snprintf(w->value, sizeof w->value, "%s", err);
        }
    }
}

/* ---------- threads ---------- */

static void fill_thread(struct model *m, const struct mthread *t, struct state_thread *st, uint64_t *object)
{
    struct execution *ex = m->ex;
    memset(st, 0, sizeof *st);
    st->id = t->id;
    st->status = model_thread_status(m, t, object);
    uint64_t start_pc = 0;
    if (t->id == 1 || t->start_routine)
        snprintf(st->start, sizeof st->start, "%s", model_thread_label(m, t, &start_pc));
    if (t->state == TS_EXITED)
        return;
    /* Not started yet: where its code begins (a std::thread's callable,
     * not libstdc++'s start routine). */
    bool unstarted = t->op == OP_START && t->id != 1 && start_pc;
    uint64_t pc = unstarted ? start_pc : exec_user_pc(ex, t);
    /* Inside the C++ library (blocked in std::latch::wait, spinning in a
     * semaphore's acquire): at the user's line that called it. */
    if (unstarted)
        exec_format_code(ex, pc, st->location, sizeof st->location);
    else
        model_format_place(m, t, pc, st->location, sizeof st->location, &pc, NULL, 0);
    if (t->state == TS_BLOCKED) {
        model_describe_wait(m, t, st->waiting_on, sizeof st->waiting_on, &st->waits_for);
    } else {
        const struct dwarf_type *type;
        model_describe_next(m, t, &st->next, &type);
    }
    st->next.thread = t->id;
}

void model_describe_thread(void *state, const struct mthread *t, struct state_thread *st)
{
    uint64_t object;
    fill_thread(state, t, st, &object);
}

/* ---------- objects ---------- */

/* A holder for the state: the thread, or -1 for one that is not ours. */
static int holder_of_tid(struct model *m, int32_t tid)
{
    if (tid <= 0)
        return 0;
    int id = exec_thread_id_of_tid(m->ex, tid);
    return id ? id : -1;
}

static void fill_mutex(struct model *m, const struct sync_object *o, struct state_object *so)
{
    struct glibc_mutex gm;
    if (!glibc_read_mutex(m->ex->mem_fd, o->addr, &gm))
        return;
    snprintf(so->type, sizeof so->type, "%s", gm.type);
    if (gm.locked) {
        so->holder = holder_of_tid(m, gm.owner_tid);
        if (!so->holder)
            so->holder = -1;
        so->count = strcmp(gm.type, "recursive") == 0 && gm.count ? (int)gm.count : 1;
    }
}

static void fill_object(struct model *m, const struct sync_object *o, struct state_object *so)
{
    int fd = m->ex->mem_fd;
    memset(so, 0, sizeof *so);
    so->kind = o->kind;
    so->addr = o->addr;
    snprintf(so->name, sizeof so->name, "%s", o->name);
    switch (o->kind) {
    case SYNC_MUTEX:
        fill_mutex(m, o, so);
        break;
    case SYNC_SEMAPHORE: {
        int64_t v;
        if (glibc_read_sem(fd, o->addr, &v))
            so->count = (int)v;
        break;
    }
    case SYNC_CONDVAR:
        so->mutex = o->mutex;
        if (o->mutex) {
            const struct sync_object *mo = sync_model_get(&m->sync, o->mutex);
            if (mo)
                snprintf(so->mutex_name, sizeof so->mutex_name, "%s", mo->name);
            else
                model_name_object(m, o->mutex, so->mutex_name, sizeof so->mutex_name);
        }
        break;
    case SYNC_BARRIER:
        glibc_read_barrier_limit(fd, o->addr, &so->limit);
        break;
    case SYNC_RWLOCK: {
        struct glibc_rwlock rw;
        if (glibc_read_rwlock(fd, o->addr, &rw)) {
            so->count = (int)rw.readers;
            so->holder = holder_of_tid(m, rw.writer_tid);
        }
        break;
    }
    case SYNC_SPINLOCK: {
        bool locked = false;
        glibc_read_spinlock(fd, o->addr, &locked);
        so->holder = locked ? (o->spin_holder ? o->spin_holder : -1) : 0;
        break;
    }
    case SYNC_FUTEX: {
        uint32_t v = 0;
        tracee_read(fd, o->addr, &v, sizeof v);
        so->count = (int)v;
        /* A C++ object's count or value, not the word's four bytes. */
        struct cxx_sync cs;
        if (model_cxx_sync_at(m, o->addr, &cs))
            so->count = cs.counter;
        break;
    }
    default:
        break;
    }
}

/* A watched mutex, rwlock, spinlock, condvar or semaphore (pthread's, C11's,
 * or the C++ class around one: std::mutex, std::shared_mutex, std::
 * condition_variable and _any) as its row in the objects table reads,
 * not glibc's fields: "free", "held by T3", "writer T2", "2 readers",
 * "nobody waits", each with the threads waiting on it ("held by T3,
 * waiting T2 T4"). False for anything else (formatted by its type). */
static bool watch_sync_value(struct model *m, uint64_t addr, char *buf, size_t len)
{
    const struct sync_object *o = sync_model_get(&m->sync, addr);
    if (!o || (o->kind != SYNC_MUTEX && o->kind != SYNC_RWLOCK && o->kind != SYNC_SPINLOCK &&
               o->kind != SYNC_CONDVAR && o->kind != SYNC_SEMAPHORE))
        return false;
    struct state_object so;
    fill_object(m, o, &so);
    struct text_out out = text_out_start(buf, len);
    switch (o->kind) {
    case SYNC_CONDVAR:
        break;
    case SYNC_SEMAPHORE:
        text_out_printf(&out, "value %d", so.count);
        break;
    case SYNC_RWLOCK:
        if (so.holder)
            text_out_printf(&out, so.holder > 0 ? "writer T%d" : "writer outside the program", so.holder);
        else if (so.count)
            text_out_printf(&out, "%d reader%s", so.count, so.count == 1 ? "" : "s");
        else
            text_out_puts(&out, "free");
        break;
    default:
        if (so.holder > 0)
            text_out_printf(&out, "held by T%d", so.holder);
        else
            text_out_puts(&out, so.holder ? "held outside the program" : "free");
        if (so.count > 1)
            text_out_printf(&out, " (%d times)", so.count);
        break;
    }
    const char *sep = o->kind == SYNC_CONDVAR ? "waiting" : ", waiting";
    for (int i = 0; i < m->ex->n_threads; i++) {
        uint64_t object;
        const struct mthread *t = &m->ex->threads[i];
        if (t->state == TS_BLOCKED && model_thread_status(m, t, &object) != THREAD_EXITED && object == o->addr) {
            text_out_printf(&out, "%s T%d", sep, t->id);
            sep = "";
        }
    }
    if (o->kind == SYNC_CONDVAR && *sep)
        text_out_puts(&out, "nobody waits");
    text_out_finish(&out);
    return true;
}

/* Insertion sort by wait order: waiter lists are short. */
static void sort_by_wait_seq(int *ids, int n, const struct mthread *threads)
{
    for (int i = 1; i < n; i++) {
        int v = ids[i], j = i;
        while (j > 0 && threads[ids[j - 1] - 1].wait_seq > threads[v - 1].wait_seq) {
            ids[j] = ids[j - 1];
            j--;
        }
        ids[j] = v;
    }
}

void model_object_touched(struct model *m, uint64_t addr)
{
    const struct sync_object *o = addr ? sync_model_containing(&m->sync, addr) : NULL;
    if (o && (size_t)(o - m->sync.objs) < m->cap_object_stale)
        m->object_stale[o - m->sync.objs] = 1;
}

/* Which objects to read again for this build: the new ones, those a
 * thread is calling (or waits) on (library code changes them while the
 * call runs), those the last steps touched; everything every 256 builds,
 * should anything have changed them unseen. */
static void mark_stale(struct model *m, const uint64_t *waits)
{
    struct execution *ex = m->ex;
    size_t n = m->sync.n;
    if (n > m->cap_object_stale) {
        m->object_stale = realloc(m->object_stale, n * 2);
        if (!m->object_stale)
            abort();
        memset(m->object_stale + m->cap_object_stale, 1, n * 2 - m->cap_object_stale);
        m->cap_object_stale = n * 2;
    }
    /* MDAT_STATE_FULL=1 reads every object at every build: the test that
     * the cache shows what a full reading shows (e2e_model.state_cache). */
    static int full = -1;
    if (full < 0)
        full = getenv("MDAT_STATE_FULL") && strcmp(getenv("MDAT_STATE_FULL"), "1") == 0;
    if (full || m->builds++ % 256 == 0) {
        if (n)  /* none yet: object_stale is not even allocated */
            memset(m->object_stale, 1, n);
        return;
    }
    for (size_t k = m->objects_filled; k < n; k++)
        m->object_stale[k] = 1;
    model_object_touched(m, m->step_call[0]);
    model_object_touched(m, m->step_call[1]);
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *t = &ex->threads[i];
        if (t->state == TS_EXITED)
            continue;
        /* The thread that ran the last step may have finished a call in it. */
        if (t->in_call || t->op == OP_CALL || t->id == ex->last_thread) {
            model_object_touched(m, t->call_arg[0]);
            model_object_touched(m, t->call_arg[1]);
        }
        model_object_touched(m, waits[i]);
    }
}

/* Each blocked thread waits on one object (waits[i], 0 for none): the
 * waiter lists partition the blocked threads, so one pool of n ids holds
 * them all, object after object. The object of each thread is looked up
 * once. */
static void fill_objects(struct model *m, const uint64_t *waits)
{
    struct execution *ex = m->ex;
    int n = ex->n_threads;
    struct sync_model *sm = &m->sync;
    grow((void **)&m->state_objects, &m->cap_state_objects, sm->n, sizeof *m->state_objects);
    grow((void **)&m->state_waiters, &m->cap_state_waiters, (size_t)n, sizeof *m->state_waiters);
    int *owner = malloc(((size_t)n + 1) * sizeof *owner);
    size_t *start = calloc(sm->n + 1, sizeof *start);
    if (!owner || !start)
        abort();
    for (int i = 0; i < n; i++) {
        const struct sync_object *o = waits[i] ? sync_model_containing(sm, waits[i]) : NULL;
        owner[i] = o ? (int)(o - sm->objs) : -1;
        if (o)
            start[owner[i] + 1]++;
    }
    for (size_t k = 0; k < sm->n; k++)
        start[k + 1] += start[k];
    mark_stale(m, waits);
    for (size_t k = 0; k < sm->n; k++) {
        struct state_object *so = &m->state_objects[k];
        if (m->object_stale[k]) {
            fill_object(m, &sm->objs[k], so);
            m->object_stale[k] = 0;
        }
        so->waiters = m->state_waiters + start[k];
        so->n_waiters = 0;
    }
    m->objects_filled = sm->n;
    for (int i = 0; i < n; i++)
        if (owner[i] >= 0) {
            struct state_object *so = &m->state_objects[owner[i]];
            m->state_waiters[start[owner[i]] + (size_t)so->n_waiters++] = ex->threads[i].id;
        }
    for (size_t k = 0; k < sm->n; k++) {
        struct state_object *so = &m->state_objects[k];
        sort_by_wait_seq(m->state_waiters + start[k], so->n_waiters, ex->threads);
        if (so->kind == SYNC_BARRIER)
            so->count = so->n_waiters;
    }
    free(owner);
    free(start);
}

/* ---------- store buffers ---------- */

/* Every thread's pending stores (oldest first) into one pool, each
 * thread's row pointing at its run of it. Under sc there are none and
 * nothing is done. */
static void fill_pending_stores(struct model *m)
{
    struct execution *ex = m->ex;
    if (!ex->tso)
        return;
    size_t total = 0;
    for (int i = 0; i < ex->n_threads; i++)
        total += store_buffers_pending(ex->tso, ex->threads[i].id);
    grow((void **)&m->state_stores, &m->cap_state_stores, total, sizeof *m->state_stores);
    size_t used = 0;
    for (int i = 0; i < ex->n_threads; i++) {
        struct state_thread *st = &m->state_threads[i];
        size_t first = used;
        const struct pending_store *e;
        for (size_t k = 0; (e = store_buffers_at(ex->tso, ex->threads[i].id, k)) != NULL; k++) {
            struct state_store *out = &m->state_stores[used++];
            memset(out, 0, sizeof *out);
            out->addr = e->addr;
            out->size = e->size;
            memcpy(&out->value, e->value, e->size);
            model_name_data(ex, e->addr, out->object, sizeof out->object);
            exec_format_line(ex, e->pc, out->where, sizeof out->where);
            st->n_pending++;
        }
        st->pending = st->n_pending ? m->state_stores + first : NULL;
    }
}

const struct exec_state *model_state(void *state)
{
    struct model *m = state;
    struct execution *ex = m->ex;
    int n = ex->n_threads;
    grow((void **)&m->state_threads, &m->cap_state_threads, (size_t)n, sizeof *m->state_threads);
    uint64_t *waits = calloc((size_t)n + 1, sizeof *waits);
    if (!waits)
        abort();
    for (int i = 0; i < n; i++) {
        fill_thread(m, &ex->threads[i], &m->state_threads[i], &waits[i]);
        /* A futex word nobody named: show it as an object of its own. */
        if (waits[i] && !sync_model_containing(&m->sync, waits[i])) {
            struct sync_object *o = model_register_object(m, SYNC_FUTEX, waits[i]);
            /* libgomp's barrier or lock: named by what it is, not where. */
            if (strncmp(m->state_threads[i].waiting_on, "omp ", 4) == 0)
                snprintf(o->name, sizeof o->name, "%s", m->state_threads[i].waiting_on);
            /* A C++20 latch or semaphore: named with its class. */
            struct cxx_sync cs;
            if (model_cxx_sync_at(m, waits[i], &cs))
                cxx_sync_object_name(&cs, o->name, sizeof o->name);
        }
    }
    fill_pending_stores(m);
    fill_objects(m, waits);
    free(waits);
    grow((void **)&m->state_watches, &m->cap_state_watches, (size_t)ex->cfg->n_watches, sizeof *m->state_watches);
    model_watch_values(m, m->state_watches);
    m->state = (struct exec_state){
        .step = ex->steps,
        .current = ex->last_thread,
        .n_threads = n,
        .threads = m->state_threads,
        .n_objects = (int)m->sync.n,
        .objects = m->state_objects,
        .n_watches = ex->cfg->n_watches,
        .watches = m->state_watches,
    };
    return &m->state;
}
