/* trace: names of thread statuses and object kinds, and owning copies of
 * an exec_state for views that compare one step with the next. */
#include "supervisor/trace.h"

#include <stdlib.h>
#include <string.h>

const char *thread_status_name(enum thread_status s)
{
    static const char *const names[THREAD_STATUS_COUNT] = {
        "running", "ready", "waiting-lock", "waiting-sem", "waiting-cond",
        "waiting-barrier", "waiting-join", "waiting-futex", "sleeping", "exited",
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

/* The copy lives in one allocation: header, threads, objects, waiter ids. */
struct exec_state *exec_state_copy(const struct exec_state *s)
{
    size_t n_waiters = 0;
    for (int i = 0; i < s->n_objects; i++)
        n_waiters += (size_t)s->objects[i].n_waiters;
    size_t size = sizeof(struct exec_state) + (size_t)s->n_threads * sizeof(struct state_thread) +
                  (size_t)s->n_objects * sizeof(struct state_object) + n_waiters * sizeof(int);
    char *block = malloc(size);
    if (!block)
        abort();
    struct exec_state *copy = (struct exec_state *)block;
    struct state_thread *threads = (struct state_thread *)(copy + 1);
    struct state_object *objects = (struct state_object *)(threads + s->n_threads);
    int *waiters = (int *)(objects + s->n_objects);
    *copy = *s;
    if (s->n_threads)
        memcpy(threads, s->threads, (size_t)s->n_threads * sizeof *threads);
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
