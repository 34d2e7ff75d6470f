/* foreign_waits: a stopped thread's blocked call in the program's terms.
 *
 * A thread stopped inside a blocking call shows it in its registers: the
 * call's number in orig_rax, its arguments in rdi, rsi, rdx, r10, r8, r9,
 * and in rax one of the kernel's "restart" codes, since the stop broke
 * the call off (it is made again when the thread goes on). A call that had
 * already returned shows its result there instead: the thread was not
 * waiting. */
#include "supervisor/inspect/foreign_waits.h"

#include <dirent.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/model/glibc_sync.h"
#include "supervisor/process/io_wait.h"
#include "supervisor/process/tracee.h"

/* The kernel's codes for a call broken off by a stop (include/linux/errno.h). */
enum { ERESTARTSYS = 512, ERESTARTNOINTR = 513, ERESTARTNOHAND = 514, ERESTART_RESTARTBLOCK = 516 };

/* glibc 2.34+ on x86-64: where the futex words lie inside the objects. */
enum { COND_SIGNALS_OFFSET = 40, COND_WREFS_OFFSET = 36, BARRIER_ROUND_OFFSET = 4,
       RWLOCK_WRPHASE_OFFSET = 8, RWLOCK_WRITERS_OFFSET = 12 };

/* How far into a thread's struct pthread (at its fs_base) its tid word may lie. */
enum { PTHREAD_TID_SEARCH = 4096 };

static bool broken_off(const struct user_regs_struct *r)
{
    int64_t rax = (int64_t)r->rax;
    return (int64_t)r->orig_rax >= 0 && (rax == -ERESTARTSYS || rax == -ERESTARTNOINTR || rax == -ERESTARTNOHAND ||
                                         rax == -ERESTART_RESTARTBLOCK);
}

pid_t foreign_lock_holder(int mem_fd, enum sync_kind kind, uint64_t addr)
{
    if (kind == SYNC_MUTEX) {
        struct glibc_mutex m;
        return glibc_read_mutex(mem_fd, addr, &m) && m.locked ? m.owner_tid : 0;
    }
    if (kind == SYNC_RWLOCK) {
        struct glibc_rwlock rw;
        return glibc_read_rwlock(mem_fd, addr, &rw) ? rw.writer_tid : 0;
    }
    return 0;
}

/* ---- futex waits ---- */

static const struct sync_global *global_containing(const struct sync_global *g, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (addr >= g[i].addr && addr < g[i].addr + glibc_sync_size(g[i].kind))
            return &g[i];
    return NULL;
}

/* The thread whose tid word addr is (pthread_join waits on it). */
static const struct foreign_thread *joined_thread(const struct foreign_process *p, const struct foreign_thread *self,
                                                  uint64_t addr)
{
    int32_t word;
    if (p->mem_fd < 0 || !tracee_read(p->mem_fd, addr, &word, sizeof word))
        return NULL;
    for (size_t i = 0; i < p->n_threads; i++) {
        const struct foreign_thread *u = &p->threads[i];
        if (u == self || !u->have_regs || word != u->tid)
            continue;
        if (addr >= u->regs.fs_base && addr < u->regs.fs_base + PTHREAD_TID_SEARCH)
            return u;
    }
    return NULL;
}

static bool called_one_of(const char *called, const char *const *names)
{
    /* A static libc's symbol for the function may be its internal alias
     * (__pthread_cond_wait, ___pthread_mutex_lock). */
    called += strspn(called, "_");
    for (; *names; names++)
        if (strcmp(called, *names) == 0)
            return true;
    return false;
}

/* A condvar's waiters wait on __g_signals[g] (offset 40 or 44): the one
 * whose __wrefs counts waiters (<< 3) is taken for the object. */
static uint64_t condvar_of(int mem_fd, uint64_t futex)
{
    for (uint64_t g = 0; g < 2; g++) {
        uint64_t base = futex - COND_SIGNALS_OFFSET - 4 * g;
        uint32_t wrefs;
        if (tracee_read(mem_fd, base + COND_WREFS_OFFSET, &wrefs, sizeof wrefs) && (wrefs >> 3) > 0)
            return base;
    }
    return futex - COND_SIGNALS_OFFSET;
}

/* The kind of object from the function the user's code called, with the
 * object's start; false when the call says nothing. */
static bool kind_from_call(int mem_fd, const char *called, uint64_t futex, enum sync_kind *kind, uint64_t *object)
{
    static const char *const mutex[] = {"pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock",
                                        "mtx_lock", "mtx_timedlock", NULL};
    static const char *const cond[] = {"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
                                       "cnd_wait", "cnd_timedwait", NULL};
    static const char *const sem[] = {"sem_wait", "sem_timedwait", "sem_clockwait", NULL};
    static const char *const rd[] = {"pthread_rwlock_rdlock", "pthread_rwlock_timedrdlock",
                                     "pthread_rwlock_clockrdlock", NULL};
    static const char *const wr[] = {"pthread_rwlock_wrlock", "pthread_rwlock_timedwrlock",
                                     "pthread_rwlock_clockwrlock", NULL};
    if (called_one_of(called, mutex)) {
        *kind = SYNC_MUTEX, *object = futex;
    } else if (called_one_of(called, cond)) {
        *kind = SYNC_CONDVAR, *object = condvar_of(mem_fd, futex);
    } else if (called_one_of(called, sem)) {
        *kind = SYNC_SEMAPHORE, *object = futex;
    } else if (strcmp(called + strspn(called, "_"), "pthread_barrier_wait") == 0) {
        *kind = SYNC_BARRIER, *object = futex - BARRIER_ROUND_OFFSET;
    } else if (called_one_of(called, rd)) {
        *kind = SYNC_RWLOCK, *object = futex - RWLOCK_WRPHASE_OFFSET;
    } else if (called_one_of(called, wr)) {
        *kind = SYNC_RWLOCK, *object = futex - RWLOCK_WRITERS_OFFSET;
    } else {
        return false;
    }
    return true;
}

static bool futex_waits(uint64_t op)
{
    switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT: case FUTEX_WAIT_BITSET: case FUTEX_LOCK_PI: case FUTEX_WAIT_REQUEUE_PI:
#ifdef FUTEX_LOCK_PI2
    case FUTEX_LOCK_PI2:
#endif
        return true;
    default:
        return false;
    }
}

/* A FUTEX_WAIT broken off by the stop is made again when the thread goes
 * on, and returns at once if the word no longer holds the value it waits
 * on: a wake that came while the thread was held (a joined thread ended, a
 * lock was released) is seen then. Such a thread is not waiting. */
static bool futex_word_still(const struct foreign_process *p, const uint64_t a[6])
{
    int cmd = (int)(a[1] & FUTEX_CMD_MASK);
    if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
        return true;
    uint32_t word;
    return p->mem_fd >= 0 && tracee_read(p->mem_fd, a[0], &word, sizeof word) && word == (uint32_t)a[2];
}

/* A futex in memory another process may map too can be woken from there. */
static bool in_shared_memory(const struct foreign_code *fc, uint64_t addr)
{
    const struct proc_mapping *m = proc_maps_find(&fc->maps, addr);
    return !m || m->shared;
}

static void futex_wait(const struct foreign_process *p, const struct foreign_thread *t, const struct foreign_code *fc,
                       const struct sync_global *globals, size_t n_globals, const char *called, const uint64_t a[6],
                       struct foreign_wait *out)
{
    uint64_t addr = a[0];
    out->kind = FWAIT_SYNC;
    out->futex = addr;
    out->timed = a[3] != 0;
    out->only_inside = (a[1] & FUTEX_PRIVATE_FLAG) || !in_shared_memory(fc, addr);
    const struct foreign_thread *joined = joined_thread(p, t, addr);
    const struct sync_global *g = joined ? NULL : global_containing(globals, n_globals, addr);
    if (joined) {
        out->kind = FWAIT_JOIN;
        out->join_tid = joined->tid;
        return;
    }
    if (g) {
        out->sync = g->kind;
        out->object = g->addr;
        snprintf(out->object_name, sizeof out->object_name, "%s", g->name);
    } else if (kind_from_call(p->mem_fd, called, addr, &out->sync, &out->object)) {
        foreign_name_data(fc, out->object, out->object_name, sizeof out->object_name);
    } else {
        out->sync = SYNC_FUTEX;
        out->object = addr;
        foreign_name_data(fc, addr, out->object_name, sizeof out->object_name);
    }
    out->holder = foreign_lock_holder(p->mem_fd, out->sync, out->object);
}

/* ---- other blocking calls ---- */

/* Another process holds the same pipe or eventfd (its other end, maybe):
 * then the wait may end from outside. */
static bool open_elsewhere(pid_t pid, pid_t proc_tid, int fd)
{
    char path[64], target[128], other[128];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)proc_tid, fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return false;
    target[n] = '\0';
    DIR *procs = opendir("/proc");
    bool found = false;
    struct dirent *e;
    while (!found && procs && (e = readdir(procs))) {
        pid_t other_pid = (pid_t)atoi(e->d_name);
        if (other_pid <= 0 || other_pid == pid)
            continue;
        snprintf(path, sizeof path, "/proc/%d/fd", (int)other_pid);
        DIR *fds = opendir(path);
        struct dirent *f;
        while (!found && fds && (f = readdir(fds))) {
            char link[96];
            snprintf(link, sizeof link, "/proc/%d/fd/%s", (int)other_pid, f->d_name);
            ssize_t k = readlink(link, other, sizeof other - 1);
            found = k == n && memcmp(other, target, (size_t)n) == 0;
        }
        if (fds)
            closedir(fds);
    }
    if (procs)
        closedir(procs);
    return found;
}

static bool io_timed(long nr, const uint64_t a[6])
{
    switch (nr) {
    case SYS_poll: return (int)a[2] >= 0;
    case SYS_ppoll: return a[2] != 0;
    case SYS_select: case SYS_pselect6: return a[4] != 0;
    case SYS_epoll_wait: case SYS_epoll_pwait: return (int)a[3] >= 0;
    default: return false;
    }
}

static void io_wait(const struct foreign_process *p, long nr, const uint64_t a[6], struct foreign_wait *out)
{
    out->kind = FWAIT_IO;
    out->timed = io_timed(nr, a);
    io_describe(p->proc_tid, nr, a, out->call, sizeof out->call);
    out->only_inside = io_waits_only_inside(p->proc_tid, p->mem_fd, nr, a) &&
                       !(io_call_of(nr, a) == IO_FD && open_elsewhere(p->pid, p->proc_tid, (int)a[0]));
}

/* A read or write on 0, 1 or 2: io_wait.c leaves these out (under mdat
 * they never wait), but a foreign process's standard streams are pipes,
 * terminals and sockets like any other descriptor. */
static bool std_stream_call(long nr, const uint64_t a[6])
{
    return (nr == SYS_read || nr == SYS_write || nr == SYS_readv || nr == SYS_writev) && a[0] <= 2;
}

static void std_stream_wait(const struct foreign_process *p, long nr, const uint64_t a[6], struct foreign_wait *out)
{
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)p->proc_tid, (int)a[0]);
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    bool pipe = strncmp(target, "pipe:", 5) == 0;
    const char *verb = nr == SYS_read || nr == SYS_readv ? "read" : "write";
    snprintf(out->call, sizeof out->call, "%s(fd %d: %s)", verb, (int)a[0], pipe ? "pipe" : n > 0 ? target : "closed");
    out->kind = FWAIT_IO;
    out->only_inside = pipe && !open_elsewhere(p->pid, p->proc_tid, (int)a[0]);
}

static void other_call(long nr, struct foreign_wait *out)
{
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)nr);
    if (name)
        snprintf(out->call, sizeof out->call, "%s", name);
    else
        snprintf(out->call, sizeof out->call, "system call %ld", nr);
    free(name);
    switch (nr) {
    case SYS_nanosleep: case SYS_clock_nanosleep:
        out->kind = FWAIT_SLEEP;
        out->timed = true;
        return;
    case SYS_pause: case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait:
        out->kind = FWAIT_SIGNAL;
        return;
    default:
        out->kind = FWAIT_OTHER;
        return;
    }
}

void foreign_wait_of(const struct foreign_process *p, const struct foreign_thread *t, const struct foreign_code *fc,
                     const struct sync_global *globals, size_t n_globals, const char *called,
                     struct foreign_wait *out)
{
    memset(out, 0, sizeof *out);
    out->nr = -1;
    if (!t->have_regs || !broken_off(&t->regs))
        return;
    const struct user_regs_struct *r = &t->regs;
    long nr = (long)r->orig_rax;
    uint64_t a[6] = {r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9};
    out->nr = nr;
    if (nr == SYS_futex && futex_waits(a[1])) {
        if (!futex_word_still(p, a))
            return;
        futex_wait(p, t, fc, globals, n_globals, called, a, out);
        return;
    }
    if (std_stream_call(nr, a)) {
        std_stream_wait(p, nr, a, out);
        return;
    }
    switch (io_call_of(nr, a)) {
    case IO_FD: case IO_MULTI:
        io_wait(p, nr, a, out);
        return;
    case IO_CHILD:
        out->kind = FWAIT_CHILD;
        io_describe(p->proc_tid, nr, a, out->call, sizeof out->call);
        return;
    default:
        other_call(nr, out);
        return;
    }
}
