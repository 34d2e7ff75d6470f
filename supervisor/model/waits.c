/* waits: what a thread is doing in a student's words, and what a blocked
 * thread waits for ("mutex lock_b (held by T3)", "condvar c (with mutex m)",
 * "join T2").
 *
 * The modeled call a thread is in says what kind of object it waits on;
 * for a condvar the futex word it sits on says which phase it is in
 * (waiting to be signalled, or for the mutex again); holders are read from
 * glibc's own fields. */
#include "supervisor/process/io_wait.h"
#include "supervisor/debuginfo/text_out.h"
#include "supervisor/model/glibc_sync.h"
#include "supervisor/model/model_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int model_mutex_holder(struct model *m, uint64_t mutex)
{
    struct glibc_mutex gm;
    if (!glibc_read_mutex(m->ex->mem_fd, mutex, &gm))
        return 0;
    return exec_thread_id_of_tid(m->ex, gm.owner_tid);
}

bool model_is_cond_wait(enum model_fn fn)
{
    return fn == MF_COND_WAIT || fn == MF_COND_TIMEDWAIT;
}

/* A thread in pthread_cond_wait first waits on the condvar, then, once
 * signalled, for the mutex: the futex word says which. */
static bool cond_waiter_wants_mutex(struct model *m, const struct mthread *t)
{
    const struct futex_waiter *w = futex_table_get(&m->ex->futex, t->id);
    return w && w->addr >= t->call_arg[1] && w->addr < t->call_arg[1] + glibc_sync_size(SYNC_MUTEX);
}

/* What the modeled call a thread is in says it waits on, and on what. */
static enum thread_status status_by_call(struct model *m, const struct mthread *t, uint64_t *object)
{
    switch (t->call_fn) {
    case MF_MUTEX_LOCK:
    case MF_MUTEX_TIMEDLOCK:
    case MF_RWLOCK_RDLOCK:
    case MF_RWLOCK_WRLOCK:
    case MF_SPIN_LOCK:
        *object = t->call_arg[0];
        return THREAD_WAITING_LOCK;
    case MF_COND_WAIT:
    case MF_COND_TIMEDWAIT:
        if (cond_waiter_wants_mutex(m, t)) {
            *object = t->call_arg[1];
            return THREAD_WAITING_LOCK;
        }
        *object = t->call_arg[0];
        return THREAD_WAITING_COND;
    case MF_SEM_WAIT:
    case MF_SEM_TIMEDWAIT:
        *object = t->call_arg[0];
        return THREAD_WAITING_SEM;
    case MF_BARRIER_WAIT:
        *object = t->call_arg[0];
        return THREAD_WAITING_BARRIER;
    case MF_THREAD_JOIN:
        *object = 0;
        return THREAD_WAITING_JOIN;
    default:
        return THREAD_WAITING_FUTEX;
    }
}

static enum sync_kind kind_of_status(enum thread_status st, enum model_fn fn)
{
    switch (st) {
    case THREAD_WAITING_LOCK:
        return fn == MF_RWLOCK_RDLOCK || fn == MF_RWLOCK_WRLOCK ? SYNC_RWLOCK
               : fn == MF_SPIN_LOCK                             ? SYNC_SPINLOCK
                                                                : SYNC_MUTEX;
    case THREAD_WAITING_COND: return SYNC_CONDVAR;
    case THREAD_WAITING_SEM: return SYNC_SEMAPHORE;
    case THREAD_WAITING_BARRIER: return SYNC_BARRIER;
    default: return SYNC_FUTEX;
    }
}

/* The futex word a thread sleeps on is where it really waits: the call it
 * entered last may be over (library code went on to wait elsewhere: the
 * condvar inside an rwlock of its own making). The word's object decides
 * when the call's object does not contain it. */
static enum thread_status status_by_word(struct model *m, const struct mthread *t, uint64_t word,
                                        uint64_t *object)
{
    *object = word;
    /* A proxy of libstdc++'s waiter pool: the object it stands for. */
    uint64_t proxied = word ? model_cxx_pool_object(m, t, word) : 0;
    if (proxied) {
        *object = proxied;
        return THREAD_WAITING_FUTEX;
    }
    for (int i = 0; i < m->ex->n_threads; i++)
        if (m->ex->threads[i].ctid && m->ex->threads[i].ctid == word) {
            *object = 0;
            return THREAD_WAITING_JOIN;     /* the tid word the kernel clears at its exit */
        }
    const struct sync_object *o = word ? sync_model_containing(&m->sync, word) : NULL;
    if (!o)
        return THREAD_WAITING_FUTEX;
    *object = o->addr;
    switch (o->kind) {
    case SYNC_MUTEX: case SYNC_RWLOCK: case SYNC_SPINLOCK: return THREAD_WAITING_LOCK;
    case SYNC_CONDVAR: return THREAD_WAITING_COND;
    case SYNC_SEMAPHORE: return THREAD_WAITING_SEM;
    case SYNC_BARRIER: return THREAD_WAITING_BARRIER;
    default: return THREAD_WAITING_FUTEX;
    }
}

/* The status of a blocked thread and the object it is blocked on (0 for a
 * join, which waits for a thread). */
static enum thread_status blocked_status(struct model *m, const struct mthread *t, uint64_t *object)
{
    if (t->io_wait) {
        *object = 0;
        return THREAD_WAITING_IO;
    }
    const struct futex_waiter *w = futex_table_get(&m->ex->futex, t->id);
    uint64_t word = w ? w->addr : 0;
    if (t->in_call) {
        enum thread_status st = status_by_call(m, t, object);
        if (st == THREAD_WAITING_JOIN || !word)
            return st;
        if (st != THREAD_WAITING_FUTEX && word >= *object &&
            word < *object + glibc_sync_size(kind_of_status(st, t->call_fn)))
            return st;
    }
    enum thread_status st = status_by_word(m, t, word, object);
    char what[8];
    if (st == THREAD_WAITING_FUTEX)
        model_omp_wait(m, t, word, what, sizeof what, &st);     /* libgomp's barriers and locks */
    return st;
}

enum thread_status model_thread_status(struct model *m, const struct mthread *t, uint64_t *object)
{
    *object = 0;
    switch (t->state) {
    case TS_EXITED:
        return THREAD_EXITED;
    case TS_BLOCKED:
        return blocked_status(m, t, object);
    case TS_RUNNABLE:
        break;
    }
    if (t->id == m->ex->last_thread)
        return THREAD_RUNNING;
    return t->yielded ? THREAD_SLEEPING : THREAD_READY;
}

static void describe_lock_wait(struct model *m, const struct mthread *t, uint64_t object, char *buf, size_t len,
                               int *holder)
{
    char name[96];
    model_name_object(m, object, name, sizeof name);
    /* The object's own kind when it is known, else the call's. */
    const struct sync_object *o = sync_model_get(&m->sync, object);
    enum sync_kind kind = o ? o->kind : kind_of_status(THREAD_WAITING_LOCK, t->call_fn);
    if (kind == SYNC_RWLOCK) {
        struct glibc_rwlock rw;
        if (glibc_read_rwlock(m->ex->mem_fd, object, &rw))
            *holder = exec_thread_id_of_tid(m->ex, rw.writer_tid);
        snprintf(buf, len, "rwlock %s", name);
    } else if (kind == SYNC_SPINLOCK) {
        snprintf(buf, len, "spinlock %s", name);
    } else {
        *holder = model_mutex_holder(m, object);
        snprintf(buf, len, "mutex %s", name);
    }
    if (*holder)
        text_append(buf, len, " (held by T%d)", *holder);
    if (model_is_cond_wait(t->call_fn))
        text_append(buf, len, ", to return from pthread_cond_wait");
}

/* What the wait was, kept for naming the thread's wake-up (the call it is
 * in may say nothing about it: libstdc++ joining, libgomp's barriers): as
 * first described, when the thread blocked, so that the wake-up reads the
 * same whether or not states were built in between. */
static void remember_wait(struct model *m, const struct mthread *t, const char *object, const char *verb)
{
    struct model_thread *info = model_thread_info(m, t->id);
    if (info->waited && info->wait_seq == t->wait_seq)
        return;
    info->waited = true;
    info->wait_seq = t->wait_seq;
    snprintf(info->wait_object, sizeof info->wait_object, "%s", object);
    snprintf(info->wait_verb, sizeof info->wait_verb, "%s", verb);
}

static void describe_blocked(struct model *m, const struct mthread *t, char *buf, size_t len, int *holder)
{
    *holder = 0;
    uint64_t object;
    enum thread_status st = blocked_status(m, t, &object);
    char name[96], mname[96];
    const struct futex_waiter *w = futex_table_get(&m->ex->futex, t->id);
    /* A barrier or a critical section of libgomp's (blocked_status said so). */
    enum thread_status omp_status;
    if (!t->io_wait && w && object == w->addr && model_omp_wait(m, t, w->addr, buf, len, &omp_status) &&
        omp_status == st)
        return;
    switch (st) {
    case THREAD_WAITING_LOCK:
        describe_lock_wait(m, t, object, buf, len, holder);
        return;
    case THREAD_WAITING_COND: {
        model_name_object(m, object, name, sizeof name);
        const struct sync_object *o = sync_model_get(&m->sync, object);
        uint64_t mutex = object == t->call_arg[0] || !o ? t->call_arg[1] : o->mutex;
        model_name_object(m, mutex, mname, sizeof mname);
        snprintf(buf, len, "condvar %s (with mutex %s)", name, mname);
        return;
    }
    case THREAD_WAITING_SEM:
        model_name_object(m, object, name, sizeof name);
        snprintf(buf, len, "semaphore %s", name);
        return;
    case THREAD_WAITING_BARRIER:
        model_name_object(m, object, name, sizeof name);
        snprintf(buf, len, "barrier %s", name);
        return;
    case THREAD_WAITING_IO:
        io_describe(m->ex->pid, t->sys_nr, t->sys_args, buf, len);
        return;
    case THREAD_WAITING_JOIN: {
        /* The thread whose tid word it sleeps on, else the call's argument. */
        for (int i = 0; w && i < m->ex->n_threads && !*holder; i++)
            if (m->ex->threads[i].ctid == w->addr && m->ex->threads[i].state != TS_EXITED)
                *holder = m->ex->threads[i].id;
        if (!*holder)
            *holder = exec_thread_of_pthread(m->ex, t->call_arg[0]);
        if (*holder)
            snprintf(buf, len, "join T%d", *holder);
        else
            snprintf(buf, len, "join of thread 0x%" PRIx64, t->call_arg[0]);
        return;
    }
    default: {
        /* A std::latch, std::counting_semaphore or atomic<T>::wait: the
         * object, not the word libstdc++ sleeps on inside it. */
        struct cxx_sync cs;
        if (object && model_cxx_wait_of(m, t, object, &cs)) {
            cxx_sync_describe(&cs, buf, len);
            return;
        }
        model_name_object(m, object, name, sizeof name);
        snprintf(buf, len, "futex word %s", name);
        return;
    }
    }
}

void model_describe_wait(void *state, const struct mthread *t, char *buf, size_t len, int *holder)
{
    struct model *m = state;
    describe_blocked(m, t, buf, len, holder);
    if (strncmp(buf, "join T", 6) == 0)
        remember_wait(m, t, buf + 5, "join");
    else
        remember_wait(m, t, buf, "");
}

/* ---------- whether a thread's next step could complete now ---------- */

/* A mutex is taken by someone who must let it go first: held by another
 * thread, or by t itself when it is a normal mutex (t waits forever).
 * A recursive or error-checking mutex held by t returns at once. */
static bool mutex_would_block(struct model *m, const struct mthread *t, uint64_t mutex)
{
    struct glibc_mutex gm;
    if (!glibc_read_mutex(m->ex->mem_fd, mutex, &gm) || !gm.locked)
        return false;
    return gm.owner_tid != t->tid || strcmp(gm.type, "normal") == 0;
}

/* What a call's acquisition waits for, by the call and its object. */
static bool acquisition_would_block(struct model *m, const struct mthread *t, enum model_fn fn, uint64_t object)
{
    switch (fn) {
    case MF_MUTEX_LOCK:
        return mutex_would_block(m, t, object);
    case MF_SEM_WAIT: {
        int64_t value;
        return glibc_read_sem(m->ex->mem_fd, object, &value) && value <= 0;
    }
    case MF_THREAD_JOIN: {
        int target = exec_thread_of_pthread(m->ex, object);
        const struct mthread *tt = target ? exec_thread_by_id(m->ex, target) : NULL;
        return tt && tt != t && tt->state != TS_EXITED;
    }
    default:
        return false;
    }
}

bool model_would_block(void *state, const struct mthread *t)
{
    struct model *m = state;
    if (t->state != TS_RUNNABLE)
        return false;
    if (t->op == OP_CALL)
        return acquisition_would_block(m, t, t->fn, t->call_arg[0]);
    /* Woken inside a lock call: it tries again. Not rwlocks (glibc's
     * readers and writers wait in phases the fields read here do not
     * show: scripts/dpor-vs-dfs found outcomes lost). A condition variable's
     * waiter is left alone: glibc's waiter still has condvar bookkeeping
     * to do before it takes the mutex, which a signaller may wait for. */
    if (t->op == OP_WOKEN && t->in_call && t->call_fn == MF_MUTEX_LOCK)
        return acquisition_would_block(m, t, t->call_fn, t->call_arg[0]);
    return false;
}
