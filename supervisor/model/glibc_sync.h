/* glibc_sync: what glibc's synchronisation objects look like in memory
 * (x86-64, glibc 2.34 and later: the layouts behind pthread_mutex_t, sem_t,
 * pthread_barrier_t, pthread_rwlock_t and pthread_spinlock_t).
 *
 * The supervisor reads the truth out of the object itself (who owns a mutex,
 * what a semaphore holds) instead of replaying its own idea of each call, so
 * the view stays right for objects used before mdat saw them, trylocks,
 * timeouts and code that bypasses the modeled entry points. */
#ifndef MDAT_SUPERVISOR_GLIBC_SYNC_H
#define MDAT_SUPERVISOR_GLIBC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/trace/trace.h"

/* Bytes an object of that kind occupies: a futex word inside it belongs to it. */
uint64_t glibc_sync_size(enum sync_kind kind);

struct glibc_mutex {
    bool locked;
    int32_t owner_tid;      /* kernel tid of the holder, 0 if none recorded */
    uint32_t count;         /* recursion depth of a recursive mutex */
    const char *type;       /* "normal", "recursive", "errorcheck", "adaptive" */
};
bool glibc_read_mutex(int mem_fd, uint64_t addr, struct glibc_mutex *out);

/* The semaphore's value (the count available to sem_wait). */
bool glibc_read_sem(int mem_fd, uint64_t addr, int64_t *value);

/* The number of threads the barrier waits for. */
bool glibc_read_barrier_limit(int mem_fd, uint64_t addr, int *limit);

struct glibc_rwlock {
    uint32_t readers;       /* read locks held */
    int32_t writer_tid;     /* kernel tid of the writer holding it, 0 if none */
};
bool glibc_read_rwlock(int mem_fd, uint64_t addr, struct glibc_rwlock *out);

/* A spinlock is one int (on x86-64: 1 free, 0 or less held). */
bool glibc_read_spinlock(int mem_fd, uint64_t addr, bool *locked);

#endif
