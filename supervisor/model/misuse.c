/* misuse: pthread API misuse, judged at the moment the call runs.
 *
 * These are the mistakes glibc lets pass silently or with an error code
 * nobody checks, and that make a program wrong under some schedules only:
 * unlocking a mutex the thread does not hold, waiting on a condition
 * variable without holding its mutex, destroying a mutex, semaphore or
 * condition variable that is in use, and joining a thread twice (or
 * oneself). Holders come from the objects themselves (glibc_sync); waiters
 * from mdat's futex model. */
#include "supervisor/model/glibc_sync.h"
#include "supervisor/model/model_internal.h"

#include <stdarg.h>
#include <stdio.h>

static bool misuse(struct execution *ex, struct mthread *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool misuse(struct execution *ex, struct mthread *t, const char *fmt, ...)
{
    struct exec_result *res = ex->res;
    res->kind = FAIL_MISUSE;
    res->thread = t->id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->message, sizeof res->message, fmt, ap);
    va_end(ap);
    uint64_t pc = exec_user_pc(ex, t);
    exec_format_line(ex, pc, res->location, sizeof res->location);
    exec_format_function(ex, pc, res->function, sizeof res->function);
    return true;
}

/* The first thread, other than t, blocked on the object at addr through one
 * of the given calls (in its waiting phase for condvars). */
static const struct mthread *waiter_on(struct execution *ex, const struct mthread *t, uint64_t addr,
                                       enum model_fn a, enum model_fn b)
{
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *w = &ex->threads[i];
        if (w != t && w->state == TS_BLOCKED && w->in_call && (w->call_fn == a || w->call_fn == b) &&
            w->call_arg[0] == addr)
            return w;
    }
    return NULL;
}

bool model_call_is_misuse(void *state, struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1)
{
    struct model *md = state;
    struct execution *ex = md->ex;
    char name[96], mname[96];
    struct glibc_mutex m;
    switch (fn) {
    case MF_MUTEX_UNLOCK:
        if (!glibc_read_mutex(ex->mem_fd, arg0, &m))
            return false;
        model_name_object(md, arg0, name, sizeof name);
        if (!m.locked)
            return misuse(ex, t, "T%d unlocks mutex %s, which is not locked", t->id, name);
        if (m.owner_tid != t->tid) {
            int h = exec_thread_id_of_tid(ex, m.owner_tid);
            if (h)
                return misuse(ex, t, "T%d unlocks mutex %s, which T%d holds", t->id, name, h);
            return misuse(ex, t, "T%d unlocks mutex %s, which it does not hold", t->id, name);
        }
        return false;
    case MF_COND_WAIT:
    case MF_COND_TIMEDWAIT:
        if (!glibc_read_mutex(ex->mem_fd, arg1, &m))
            return false;
        if (m.locked && m.owner_tid == t->tid)
            return false;
        model_name_object(md, arg0, name, sizeof name);
        model_name_object(md, arg1, mname, sizeof mname);
        return misuse(ex, t, "T%d waits on condvar %s without holding mutex %s", t->id, name, mname);
    case MF_MUTEX_DESTROY: {
        if (!glibc_read_mutex(ex->mem_fd, arg0, &m))
            return false;
        model_name_object(md, arg0, name, sizeof name);
        const struct mthread *w = waiter_on(ex, t, arg0, MF_MUTEX_LOCK, MF_MUTEX_TIMEDLOCK);
        if (w)
            return misuse(ex, t, "T%d destroys mutex %s while T%d waits to lock it", t->id, name, w->id);
        if (m.locked) {
            int h = exec_thread_id_of_tid(ex, m.owner_tid);
            if (h == t->id)
                return misuse(ex, t, "T%d destroys mutex %s while holding it", t->id, name);
            const struct mthread *ht = exec_thread_by_id(ex, h);
            if (ht && ht->state == TS_EXITED)
                return misuse(ex, t, "T%d destroys mutex %s, still locked by T%d, which has exited", t->id, name, h);
            if (h)
                return misuse(ex, t, "T%d destroys mutex %s while T%d holds it", t->id, name, h);
            return misuse(ex, t, "T%d destroys mutex %s while it is locked", t->id, name);
        }
        return false;
    }
    case MF_SEM_DESTROY: {
        const struct mthread *w = waiter_on(ex, t, arg0, MF_SEM_WAIT, MF_SEM_TIMEDWAIT);
        if (!w)
            return false;
        model_name_object(md, arg0, name, sizeof name);
        return misuse(ex, t, "T%d destroys semaphore %s while T%d waits on it", t->id, name, w->id);
    }
    case MF_COND_DESTROY: {
        const struct mthread *w = waiter_on(ex, t, arg0, MF_COND_WAIT, MF_COND_TIMEDWAIT);
        if (!w)
            return false;
        model_name_object(md, arg0, name, sizeof name);
        return misuse(ex, t, "T%d destroys condvar %s while T%d waits on it", t->id, name, w->id);
    }
    case MF_THREAD_JOIN: {
        struct mthread *target = exec_thread_by_id(ex, exec_thread_of_pthread(ex, arg0));
        if (!target)
            return false;
        if (target == t)
            return misuse(ex, t, "T%d joins itself", t->id);
        /* A signal that arrives as the call starts runs its handler and
         * re-enters the call from the same frame: that is not a second join. */
        bool same_call = target->joined_by == t->id && target->join_sp == t->regs.rsp &&
                         target->join_site == t->call_site;
        if (target->joined_by && !same_call)
            return misuse(ex, t, "T%d joins T%d, which T%d already joined", t->id, target->id, target->joined_by);
        target->joined_by = t->id;
        target->join_sp = t->regs.rsp;
        target->join_site = t->call_site;
        return false;
    }
    default:
        return false;
    }
}
