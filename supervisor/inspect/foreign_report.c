/* foreign_report: threads, objects, the wait cycle and the verdict of a
 * process mdat attached to. */
#include "supervisor/inspect/foreign_report.h"
#include "supervisor/debuginfo/text_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/model/glibc_sync.h"

/* ---- threads ---- */

static const char *state_word(const struct foreign_thread *t, const struct foreign_wait *w)
{
    if (t->proc_state == 'Z' || t->proc_state == 'X')
        return "ended";
    if (!t->have_regs)
        return "not stopped";
    if (t->proc_state == 'T')
        return "stopped";
    if (w->kind == FWAIT_NONE)
        return "running";
    return w->timed ? "waiting (timed)" : "blocked";
}

/* Waits for good on what only the program's own threads could end. */
static bool waits_for_good(const struct foreign_wait *w)
{
    if (w->timed || !w->only_inside)
        return false;
    return w->kind == FWAIT_SYNC || w->kind == FWAIT_JOIN || w->kind == FWAIT_IO;
}

static void view_thread(const struct foreign_process *p, const struct foreign_thread *t, const struct foreign_code *fc,
                        const struct sync_global *globals, size_t n_globals, struct foreign_thread_view *v)
{
    memset(v, 0, sizeof *v);
    v->number = foreign_thread_number(p, t->tid);
    v->tid = t->tid;
    v->proc_state = t->proc_state;
    snprintf(v->name, sizeof v->name, "%s", t->name);
    struct foreign_frames frames = {0};
    if (t->have_regs) {
        foreign_find_frames(fc, &t->regs, &frames);
        v->pc = frames.user_pc ? frames.user_pc : t->regs.rip;
        foreign_format_code(fc, v->pc, v->location, sizeof v->location);
        foreign_code_location(fc, v->pc, &v->loc);
        if (frames.start_pc)
            foreign_function_name(fc, frames.start_pc, v->start, sizeof v->start);
        snprintf(v->called, sizeof v->called, "%s", frames.called);
    }
    foreign_wait_of(p, t, fc, globals, n_globals, frames.called, &v->wait);
    v->state = state_word(t, &v->wait);
    v->stuck = t->have_regs && waits_for_good(&v->wait);
}

static int number_of(const struct foreign_report *r, pid_t tid)
{
    for (size_t i = 0; i < r->n_threads; i++)
        if (r->threads[i].tid == tid && r->threads[i].proc_state != 'Z' && r->threads[i].proc_state != 'X')
            return r->threads[i].number;
    return 0;
}

void foreign_thread_label(const struct foreign_report *r, pid_t tid, char *buf, size_t len)
{
    int n = number_of(r, tid);
    if (n)
        snprintf(buf, len, "T%d", n);
    else
        snprintf(buf, len, "tid %d", (int)tid);
}

/* ---- objects ---- */

static struct foreign_object_view *object_at(struct foreign_report *r, enum sync_kind kind, uint64_t addr,
                                             const char *name)
{
    for (size_t i = 0; i < r->n_objects; i++)
        if (r->objects[i].addr == addr)
            return &r->objects[i];
    struct foreign_object_view *grown = realloc(r->objects, (r->n_objects + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->objects = grown;
    struct foreign_object_view *o = &r->objects[r->n_objects++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->addr = addr;
    if (name && name[0])
        snprintf(o->name, sizeof o->name, "%s", name);
    else
        snprintf(o->name, sizeof o->name, "0x%" PRIx64, addr);
    return o;
}

static void collect_objects(struct foreign_report *r, int mem_fd, const struct sync_global *globals, size_t n_globals)
{
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        if (t->wait.kind != FWAIT_SYNC)
            continue;
        struct foreign_object_view *o = object_at(r, t->wait.sync, t->wait.object, t->wait.object_name);
        if (o && o->n_waiters < FOREIGN_MAX_WAITERS)
            o->waiters[o->n_waiters] = t->number;
        if (o)
            o->n_waiters++;
    }
    /* Locks held that nobody waits for yet: a holder is half of a story. */
    for (size_t i = 0; i < n_globals; i++)
        if ((globals[i].kind == SYNC_MUTEX || globals[i].kind == SYNC_RWLOCK) &&
            foreign_lock_holder(mem_fd, globals[i].kind, globals[i].addr))
            object_at(r, globals[i].kind, globals[i].addr, globals[i].name);
    for (size_t i = 0; i < r->n_objects; i++) {
        struct foreign_object_view *o = &r->objects[i];
        o->holder = foreign_lock_holder(mem_fd, o->kind, o->addr);
        o->holder_number = o->holder ? number_of(r, o->holder) : 0;
        if (o->kind == SYNC_SEMAPHORE)
            o->has_value = glibc_read_sem(mem_fd, o->addr, &o->value);
        struct glibc_rwlock rw;
        if (o->kind == SYNC_RWLOCK && glibc_read_rwlock(mem_fd, o->addr, &rw))
            o->readers = rw.readers;
    }
}

/* ---- words ---- */

static const char *object_name(const struct foreign_wait *w, char *buf, size_t len)
{
    if (w->object_name[0])
        return w->object_name;
    snprintf(buf, len, "0x%" PRIx64, w->object);
    return buf;
}

void foreign_wait_text(const struct foreign_report *r, const struct foreign_thread_view *t, char *buf, size_t len)
{
    const struct foreign_wait *w = &t->wait;
    char who[32], name[32];
    buf[0] = '\0';
    switch (w->kind) {
    case FWAIT_SYNC: {
        const char *obj = object_name(w, name, sizeof name);
        if ((w->sync == SYNC_MUTEX || w->sync == SYNC_RWLOCK) && w->holder) {
            foreign_thread_label(r, w->holder, who, sizeof who);
            snprintf(buf, len, "%s %s held by %s%s", sync_kind_name(w->sync), obj, who,
                     number_of(r, w->holder) ? "" : ", which has ended");
        } else {
            snprintf(buf, len, "%s %s", sync_kind_name(w->sync), obj);
        }
        return;
    }
    case FWAIT_JOIN:
        foreign_thread_label(r, w->join_tid, who, sizeof who);
        snprintf(buf, len, "join %s", who);
        return;
    case FWAIT_IO:
        snprintf(buf, len, "%s%s", w->call, w->only_inside ? "" : " (from outside the program)");
        return;
    case FWAIT_CHILD:
        snprintf(buf, len, "%s", w->call);
        return;
    case FWAIT_SLEEP:
        snprintf(buf, len, "%s", w->call);
        return;
    case FWAIT_SIGNAL:
        snprintf(buf, len, "a signal (%s)", w->call);
        return;
    case FWAIT_OTHER:
        snprintf(buf, len, "system call %s", w->call);
        return;
    case FWAIT_NONE:
        return;
    }
}

/* ---- the cycle ---- */

/* The thread t waits for: a lock's holder, a joined thread; -1 none. */
static long waits_for(const struct foreign_report *r, const struct foreign_thread_view *t)
{
    pid_t target = 0;
    if (!t->stuck)
        return -1;
    if (t->wait.kind == FWAIT_SYNC && (t->wait.sync == SYNC_MUTEX || t->wait.sync == SYNC_RWLOCK))
        target = t->wait.holder;
    else if (t->wait.kind == FWAIT_JOIN)
        target = t->wait.join_tid;
    for (size_t i = 0; target && i < r->n_threads; i++)
        if (r->threads[i].tid == target)
            return (long)i;
    return -1;
}

/* Each thread waits for at most one other: follow the arrows from each
 * thread; an arrow back into the path just walked closes a cycle. */
static void find_cycle(struct foreign_report *r)
{
    size_t n = r->n_threads;
    int *seen = calloc(n ? n : 1, sizeof *seen);   /* 0 unseen, else the walk that saw it */
    for (size_t start = 0; seen && start < n && !r->cycle_len; start++) {
        long at = (long)start;
        while (at >= 0 && !seen[at]) {
            seen[at] = (int)start + 1;
            at = waits_for(r, &r->threads[at]);
        }
        if (at < 0 || seen[at] != (int)start + 1)
            continue;
        /* at is on the cycle: start it at its lowest thread number, for a stable report. */
        long lowest = at, k = at;
        do {
            if (r->threads[k].number < r->threads[lowest].number)
                lowest = k;
            k = waits_for(r, &r->threads[k]);
        } while (k != at);
        k = lowest;
        do {
            if (r->cycle_len < FOREIGN_MAX_CYCLE)
                r->cycle[r->cycle_len++] = (size_t)k;
            k = waits_for(r, &r->threads[k]);
        } while (k != lowest);
    }
    free(seen);
}

/* ---- the verdict ---- */

static void say_deadlock(struct foreign_report *r)
{
    char *out = r->verdict_text;
    size_t len = sizeof r->verdict_text;
    snprintf(out, len, "deadlock: ");
    for (size_t i = 0; i < r->cycle_len; i++) {
        const struct foreign_thread_view *t = &r->threads[r->cycle[i]];
        char what[256];
        foreign_wait_text(r, t, what, sizeof what);
        text_append(out, len, "%sT%d waits %s %s", i ? "; " : "", t->number, t->wait.kind == FWAIT_JOIN ? "to" : "on",
               what);
    }
}

/* A verdict names this many threads, then counts the rest. */
enum { VERDICT_NAMES = 8 };

/* "T2, T3" of the threads pick() chooses (the first VERDICT_NAMES, then
 * "and 5 more"); how many in *count. */
static void list_threads(const struct foreign_report *r, bool (*pick)(const struct foreign_thread_view *),
                         char *buf, size_t len, int *count)
{
    buf[0] = '\0';
    *count = 0;
    for (size_t i = 0; i < r->n_threads; i++) {
        if (!pick(&r->threads[i]))
            continue;
        if (*count < VERDICT_NAMES)
            text_append(buf, len, "%sT%d", *count ? ", " : "", r->threads[i].number);
        ++*count;
    }
    if (*count > VERDICT_NAMES)
        text_append(buf, len, " and %d more", *count - VERDICT_NAMES);
}

static bool is_alive(const struct foreign_thread_view *t) { return t->proc_state != 'Z' && t->proc_state != 'X'; }
static bool is_running(const struct foreign_thread_view *t) { return is_alive(t) && t->wait.kind == FWAIT_NONE && t->pc; }
static bool is_cond_waiter(const struct foreign_thread_view *t)
{
    return t->stuck && t->wait.kind == FWAIT_SYNC && t->wait.sync == SYNC_CONDVAR;
}

/* Every live thread waits for good, each on something only another of
 * them could end, and *what lists each one's wait. */
static bool all_stuck(const struct foreign_report *r, bool *all_io, char *what, size_t len)
{
    size_t alive = 0;
    *all_io = true;
    what[0] = '\0';
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        if (!is_alive(t))
            continue;
        if (!t->stuck)
            return false;
        *all_io = *all_io && t->wait.kind == FWAIT_IO;
        char text[256];
        foreign_wait_text(r, t, text, sizeof text);
        if (alive < VERDICT_NAMES)
            text_append(what, len, "%sT%d: %s", alive ? "; " : "", t->number, text);
        alive++;
    }
    if (alive > VERDICT_NAMES)
        text_append(what, len, "; and %zu more", alive - VERDICT_NAMES);
    return alive > 0;
}

static bool holder_gone(struct foreign_report *r)
{
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        if (!t->stuck || t->wait.kind != FWAIT_SYNC || !t->wait.holder || number_of(r, t->wait.holder))
            continue;
        char label[16], what[256];
        snprintf(label, sizeof label, "T%d", t->number);
        foreign_wait_text(r, t, what, sizeof what);
        snprintf(r->verdict_text, sizeof r->verdict_text, "hang: %s waits on %s without unlocking it", label, what);
        return true;
    }
    return false;
}

static void decide(struct foreign_report *r)
{
    char what[1024], threads[256];
    bool all_io;
    int count;
    if (r->cycle_len) {
        r->verdict = FVERDICT_DEADLOCK;
        say_deadlock(r);
    } else if (holder_gone(r)) {
        r->verdict = FVERDICT_HOLDER_GONE;
    } else if (all_stuck(r, &all_io, what, sizeof what)) {
        list_threads(r, is_cond_waiter, threads, sizeof threads, &count);
        if (count) {
            r->verdict = FVERDICT_LOST_WAKEUP;
            snprintf(r->verdict_text, sizeof r->verdict_text, "lost wake-up: %s %s on a condvar and no thread is "
                     "left that could signal it (%s)", threads, count == 1 ? "waits" : "wait", what);
        } else if (all_io) {
            r->verdict = FVERDICT_HANG_IO;
            snprintf(r->verdict_text, sizeof r->verdict_text, "hang: every thread waits for input or output that "
                     "only the program itself could give (%s)", what);
        } else {
            r->verdict = FVERDICT_HANG;
            snprintf(r->verdict_text, sizeof r->verdict_text, "hang: every thread waits and none can wake another (%s)",
                     what);
        }
    } else {
        r->verdict = FVERDICT_NOT_STUCK;
        list_threads(r, is_running, threads, sizeof threads, &count);
        if (count)
            snprintf(r->verdict_text, sizeof r->verdict_text, "no deadlock: %s %s running", threads,
                     count == 1 ? "is" : "are");
        else
            snprintf(r->verdict_text, sizeof r->verdict_text, "no deadlock: every waiting thread waits for something "
                     "that can end it (a timeout, input or output from outside, a signal, another process)");
    }
    if (r->stopped_process) {
        size_t used = strlen(r->verdict_text);
        snprintf(r->verdict_text + used, sizeof r->verdict_text - used, "; the process is stopped (SIGCONT resumes it)");
    }
}

bool foreign_report_build(const struct foreign_process *p, const struct foreign_code *fc,
                          struct foreign_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->pid = p->pid;
    snprintf(out->exe, sizeof out->exe, "%s", p->exe);
    snprintf(out->comm, sizeof out->comm, "%s", p->comm);
    out->threads = calloc(p->n_threads ? p->n_threads : 1, sizeof *out->threads);
    if (!out->threads) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    struct sync_global *globals;
    size_t n_globals = foreign_sync_globals(fc, &globals);
    bool all_stopped = p->n_threads > 0;
    for (size_t i = 0; i < p->n_threads; i++) {
        view_thread(p, &p->threads[i], fc, globals, n_globals, &out->threads[i]);
        all_stopped = all_stopped && (p->threads[i].proc_state == 'T' || !is_alive(&out->threads[i]));
    }
    out->n_threads = p->n_threads;
    out->stopped_process = all_stopped;
    collect_objects(out, p->mem_fd, globals, n_globals);
    free(globals);
    find_cycle(out);
    decide(out);
    return true;
}

void foreign_report_free(struct foreign_report *r)
{
    free(r->threads);
    free(r->objects);
    memset(r, 0, sizeof *r);
}

const char *foreign_verdict_name(enum foreign_verdict v)
{
    switch (v) {
    case FVERDICT_DEADLOCK: return "deadlock";
    case FVERDICT_HOLDER_GONE: return "holder-ended";
    case FVERDICT_LOST_WAKEUP: return "lost-wakeup";
    case FVERDICT_HANG_IO: return "hang-io";
    case FVERDICT_HANG: return "hang";
    case FVERDICT_LIVELOCK: return "livelock";
    case FVERDICT_NOT_STUCK: return "not-stuck";
    }
    return "?";
}
