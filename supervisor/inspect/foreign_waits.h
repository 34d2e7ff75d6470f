/* foreign_waits: what a thread of a foreign process waits on, read from
 * its registers at the stop mdat made.
 *
 * Owns turning the blocked system call (orig_rax and its arguments) into a
 * wait in the program's terms: a futex word mapped to the pthread mutex,
 * condvar, semaphore, barrier or rwlock around it (DWARF's sync globals,
 * else the library function the user's code called) and its holder read
 * from glibc's layout (model/glibc_sync.c); a join (a futex on another
 * thread's tid word); a read, write, poll or accept with its descriptor
 * (process/io_wait.c); a sleep, a wait for a child or a signal. Whether
 * the waits add up to a deadlock is foreign_report.c's. */
#ifndef MDAT_INSPECT_FOREIGN_WAITS_H
#define MDAT_INSPECT_FOREIGN_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/debuginfo/sync_globals.h"
#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/trace/trace.h"

enum foreign_wait_kind {
    FWAIT_NONE,         /* not in a blocking call: running, or runnable */
    FWAIT_SYNC,         /* a futex wait: a sync object (or a bare futex word) */
    FWAIT_JOIN,         /* a futex wait on another thread's tid word */
    FWAIT_IO,           /* read, write, poll, accept... */
    FWAIT_CHILD,        /* wait4, waitid */
    FWAIT_SLEEP,        /* nanosleep, clock_nanosleep */
    FWAIT_SIGNAL,       /* pause, sigsuspend, sigtimedwait */
    FWAIT_OTHER,        /* another system call, interrupted by the attach */
};

struct foreign_wait {
    enum foreign_wait_kind kind;
    long nr;                    /* the system call, -1 when none */
    bool timed;                 /* a timeout ends it by itself */
    /* Only the program's own threads could end it: a private futex (or one
     * in private memory), a pipe or eventfd no other process holds. */
    bool only_inside;
    /* FWAIT_SYNC */
    enum sync_kind sync;
    uint64_t object;            /* the object's runtime address */
    uint64_t futex;             /* the word waited on */
    char object_name[96];       /* "acct[1].lock", "q->ready", "" when unnamed */
    pid_t holder;               /* a mutex's owner, an rwlock's writer; 0 none or unknown */
    /* FWAIT_JOIN */
    pid_t join_tid;
    /* FWAIT_IO, FWAIT_OTHER: "read(fd 3: pipe)", "epoll_wait(fd 4)", "syscall 7" */
    char call[96];
};

/* What t (stopped, with its registers) waits on. called: the library
 * function its user code called ("pthread_cond_wait", "" unknown). */
void foreign_wait_of(const struct foreign_process *p, const struct foreign_thread *t, const struct foreign_code *fc,
                     const struct sync_global *globals, size_t n_globals, const char *called,
                     struct foreign_wait *out);

/* The holder of the mutex (or rwlock's writer) at addr now, 0 when free. */
pid_t foreign_lock_holder(int mem_fd, enum sync_kind kind, uint64_t addr);

#endif
