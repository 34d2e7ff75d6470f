/* sync_globals: the synchronisation objects a program declares statically:
 * globals and statics of type pthread_mutex_t, sem_t, pthread_cond_t,
 * pthread_barrier_t, pthread_rwlock_t, pthread_spinlock_t (and C11 mtx_t,
 * cnd_t, C++ std::mutex and friends), also as array elements ("forks[3]")
 * and struct members ("queue.lock", "rooms[1].lock").
 *
 * Owns recognising a sync type (by its typedef or class name, through
 * qualifiers) and the walk into arrays and structs, capped so a huge array
 * cannot flood the list. */
#ifndef MDAT_SUPERVISOR_SYNC_GLOBALS_H
#define MDAT_SUPERVISOR_SYNC_GLOBALS_H

#include <stddef.h>

#include "supervisor/debuginfo/arena.h"
#include "supervisor/debuginfo/dwarf_info.h"
#include "supervisor/trace/trace.h"

/* A synchronisation object the program declares statically. */
struct sync_global {
    enum sync_kind kind;
    uint64_t addr;          /* file vaddr */
    const char *name;       /* "maleMutex", "forks[3]", "queue.lock", "rooms[1].lock" */
};

enum { SYNC_GLOBALS_LIMIT = 4096 };

/* Collects at most SYNC_GLOBALS_LIMIT objects in address order, names in
 * arena. Returns the count (*out malloc'd, NULL when none). */
size_t sync_globals_collect(const dwarf_info *dw, struct arena *arena, struct sync_global **out);

#endif
