/* sync_model: the synchronisation objects of one execution, by address.
 *
 * Owns the registry behind the sync-object view: which mutexes, semaphores,
 * condition variables, barriers, rwlocks and spinlocks the program has (its
 * global declarations, then every object a modeled call touches), their
 * names, in the order they became known, and the little the objects do not
 * record themselves (the mutex a condvar's waiters use, a spinlock's holder).
 * Values and holders are read from memory when a view is built (glibc_sync). */
#ifndef MDAT_SUPERVISOR_SYNC_MODEL_H
#define MDAT_SUPERVISOR_SYNC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/trace/trace.h"

struct sync_object {
    enum sync_kind kind;
    uint64_t addr;
    char name[96];
    uint64_t mutex;         /* condvar: the mutex of its latest wait */
    int spin_holder;        /* spinlock: the thread that took it, 0 when free */
};

struct sync_model {
    struct sync_object *objs;   /* in the order they became known */
    size_t n, cap;
    uint32_t *by_addr;          /* indexes into objs, sorted by address */
};

void sync_model_init(struct sync_model *m);
void sync_model_free(struct sync_model *m);

/* The object at exactly addr, or NULL. */
struct sync_object *sync_model_get(struct sync_model *m, uint64_t addr);
/* The object whose bytes contain addr (a futex word inside a mutex), or NULL. */
struct sync_object *sync_model_containing(struct sync_model *m, uint64_t addr);
/* Finds or adds the object at addr. A plain futex word that turns out to be
 * a known kind of object takes that kind. name is used only when adding. */
struct sync_object *sync_model_add(struct sync_model *m, enum sync_kind kind, uint64_t addr, const char *name);

#endif
