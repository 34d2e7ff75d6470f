/* glibc_sync: reading glibc's sync objects. The offsets are those of glibc's
 * struct __pthread_mutex_s, struct new_sem (64-bit atomics), struct
 * pthread_barrier and struct __pthread_rwlock_arch_t on x86-64. */
#include "supervisor/model/glibc_sync.h"
#include "supervisor/process/tracee.h"

uint64_t glibc_sync_size(enum sync_kind kind)
{
    switch (kind) {
    case SYNC_MUTEX: return 40;
    case SYNC_CONDVAR: return 48;
    case SYNC_SEMAPHORE: return 32;
    case SYNC_BARRIER: return 32;
    case SYNC_RWLOCK: return 56;
    case SYNC_SPINLOCK: return 4;
    case SYNC_FUTEX: return 4;
    default: return 1;
    }
}

bool glibc_read_mutex(int mem_fd, uint64_t addr, struct glibc_mutex *out)
{
    /* int __lock; unsigned __count; int __owner; unsigned __nusers; int __kind; */
    int32_t w[5];
    if (!tracee_read(mem_fd, addr, w, sizeof w))
        return false;
    static const char *const types[] = {"normal", "recursive", "errorcheck", "adaptive"};
    out->locked = w[0] != 0;
    out->owner_tid = w[0] != 0 ? w[2] : 0;
    out->count = (uint32_t)w[1];
    out->type = types[w[4] & 3];    /* PTHREAD_MUTEX_KIND_MASK_NP */
    return true;
}

bool glibc_read_sem(int mem_fd, uint64_t addr, int64_t *value)
{
    /* uint64_t data: the value in the low half, the waiter count above. */
    uint64_t data;
    if (!tracee_read(mem_fd, addr, &data, sizeof data))
        return false;
    *value = (int64_t)(uint32_t)data;
    return true;
}

bool glibc_read_barrier_limit(int mem_fd, uint64_t addr, int *limit)
{
    /* unsigned in, current_round, count; */
    uint32_t w[3];
    if (!tracee_read(mem_fd, addr, w, sizeof w))
        return false;
    *limit = (int)w[2];
    return true;
}

bool glibc_read_rwlock(int mem_fd, uint64_t addr, struct glibc_rwlock *out)
{
    /* __readers: count << 3 | RWAITING 4 | WRLOCKED 2 | WRPHASE 1; __cur_writer at 24. */
    uint32_t w[7];
    if (!tracee_read(mem_fd, addr, w, sizeof w))
        return false;
    out->readers = w[0] >> 3;
    out->writer_tid = (w[0] & 2) ? (int32_t)w[6] : 0;
    return true;
}

bool glibc_read_spinlock(int mem_fd, uint64_t addr, bool *locked)
{
    /* x86-64's spinlock counts down from 1 (free): 0 or less is held. */
    int32_t v;
    if (!tracee_read(mem_fd, addr, &v, sizeof v))
        return false;
    *locked = v <= 0;
    return true;
}
