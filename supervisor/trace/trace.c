/* trace: names of thread statuses and object kinds, and owning copies and
 * comparisons of an exec_state for views that compare one step with the next. */
#include "supervisor/trace/trace.h"

#include <stdlib.h>
#include <string.h>

const char *thread_status_name(enum thread_status s)
{
    static const char *const names[THREAD_STATUS_COUNT] = {
        "running", "ready", "waiting-lock", "waiting-sem", "waiting-cond",
        "waiting-barrier", "waiting-join", "waiting-futex", "waiting-io", "sleeping", "exited",
    };
    return (unsigned)s < THREAD_STATUS_COUNT ? names[s] : "?";
}

const char *sync_kind_name(enum sync_kind k)
{
    static const char *const names[SYNC_KIND_COUNT] = {
        "mutex", "semaphore", "condvar", "barrier", "rwlock", "spinlock", "futex",
    };
    return (unsigned)k < SYNC_KIND_COUNT ? names[k] : "?";
}

/* The copy lives in one allocation: header, threads, objects, pending
 * stores, waiter ids, watches. */
struct exec_state *exec_state_copy(const struct exec_state *s)
{
    size_t n_waiters = 0, n_pending = 0;
    for (int i = 0; i < s->n_objects; i++)
        n_waiters += (size_t)s->objects[i].n_waiters;
    for (int i = 0; i < s->n_threads; i++)
        n_pending += (size_t)s->threads[i].n_pending;
    size_t size = sizeof(struct exec_state) + (size_t)s->n_threads * sizeof(struct state_thread) +
                  (size_t)s->n_objects * sizeof(struct state_object) + n_pending * sizeof(struct state_store) +
                  (size_t)s->n_watches * sizeof(struct state_watch) + n_waiters * sizeof(int);
    char *block = malloc(size);
    if (!block)
        abort();
    struct exec_state *copy = (struct exec_state *)block;
    struct state_thread *threads = (struct state_thread *)(copy + 1);
    struct state_object *objects = (struct state_object *)(threads + s->n_threads);
    struct state_store *stores = (struct state_store *)(objects + s->n_objects);
    /* Waiter ids before the watches: ints need their alignment, a watch has none. */
    int *waiters = (int *)(stores + n_pending);
    struct state_watch *watches = (struct state_watch *)(waiters + n_waiters);
    *copy = *s;
    if (s->n_watches)
        memcpy(watches, s->watches, (size_t)s->n_watches * sizeof *watches);
    copy->watches = watches;
    if (s->n_threads)
        memcpy(threads, s->threads, (size_t)s->n_threads * sizeof *threads);
    for (int i = 0; i < s->n_threads; i++) {
        if (!s->threads[i].n_pending) {
            threads[i].pending = NULL;
            continue;
        }
        memcpy(stores, s->threads[i].pending, (size_t)s->threads[i].n_pending * sizeof *stores);
        threads[i].pending = stores;
        stores += s->threads[i].n_pending;
    }
    for (int i = 0; i < s->n_objects; i++) {
        objects[i] = s->objects[i];
        if (s->objects[i].n_waiters)
            memcpy(waiters, s->objects[i].waiters, (size_t)s->objects[i].n_waiters * sizeof *waiters);
        objects[i].waiters = waiters;
        waiters += s->objects[i].n_waiters;
    }
    copy->threads = threads;
    copy->objects = objects;
    return copy;
}

void exec_state_free(struct exec_state *s)
{
    free(s);
}

bool trace_event_equal(const struct trace_event *a, const struct trace_event *b)
{
    return a->step == b->step && a->thread == b->thread && a->switched == b->switched &&
           strcmp(a->op, b->op) == 0 && strcmp(a->object, b->object) == 0 && strcmp(a->value, b->value) == 0 &&
           strcmp(a->where, b->where) == 0 && strcmp(a->outcome, b->outcome) == 0 && a->addr == b->addr &&
           a->pc == b->pc && strcmp(a->file, b->file) == 0 && a->line == b->line && a->column == b->column &&
           strcmp(a->function, b->function) == 0;
}

static bool state_store_equal(const struct state_store *a, const struct state_store *b)
{
    return a->addr == b->addr && a->size == b->size && a->value == b->value && strcmp(a->object, b->object) == 0 &&
           strcmp(a->where, b->where) == 0;
}

bool state_thread_equal(const struct state_thread *a, const struct state_thread *b)
{
    if (a->n_pending != b->n_pending)
        return false;
    for (int i = 0; i < a->n_pending; i++)
        if (!state_store_equal(&a->pending[i], &b->pending[i]))
            return false;
    return a->id == b->id && a->status == b->status && strcmp(a->start, b->start) == 0 &&
           strcmp(a->location, b->location) == 0 && strcmp(a->waiting_on, b->waiting_on) == 0 &&
           a->waits_for == b->waits_for && trace_event_equal(&a->next, &b->next);
}

bool state_object_equal(const struct state_object *a, const struct state_object *b)
{
    if (a->n_waiters != b->n_waiters)
        return false;
    for (int i = 0; i < a->n_waiters; i++)
        if (a->waiters[i] != b->waiters[i])
            return false;
    return a->kind == b->kind && a->addr == b->addr && strcmp(a->name, b->name) == 0 &&
           strcmp(a->type, b->type) == 0 && a->holder == b->holder && a->count == b->count &&
           a->limit == b->limit && a->mutex == b->mutex && strcmp(a->mutex_name, b->mutex_name) == 0;
}

bool exec_state_same_picture(const struct exec_state *a, const struct exec_state *b)
{
    if (a->n_threads != b->n_threads || a->n_objects != b->n_objects || a->n_watches != b->n_watches)
        return false;
    for (int i = 0; i < a->n_watches; i++)
        if (strcmp(a->watches[i].expr, b->watches[i].expr) != 0 ||
            strcmp(a->watches[i].value, b->watches[i].value) != 0 || a->watches[i].error != b->watches[i].error)
            return false;
    for (int i = 0; i < a->n_threads; i++)
        if (!state_thread_equal(&a->threads[i], &b->threads[i]))
            return false;
    for (int i = 0; i < a->n_objects; i++)
        if (!state_object_equal(&a->objects[i], &b->objects[i]))
            return false;
    return true;
}
