/* foreign_report: why a process mdat attached to is stuck, as data.
 *
 * Owns putting the threads' waits together: each thread's place in the
 * user's code and what it waits on, every sync object with its holder and
 * waiters, the wait-for cycle when there is one, and the verdict (a
 * deadlock; a hang without a cycle: a lost wake-up, every thread blocked
 * on the program's own input/output, a lock whose holder ended; or
 * nothing stuck; a livelock is foreign_livelock.c's to add). Only what was read is claimed: a verdict of "stuck"
 * needs every wait in it to be one only the program's own threads could
 * end. Printing is ui/cli/attach_print.c's. */
#ifndef MDAT_INSPECT_FOREIGN_REPORT_H
#define MDAT_INSPECT_FOREIGN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_waits.h"

struct foreign_thread_view {
    int number;                 /* T1 (the leader), T2... by tid */
    pid_t tid;
    char name[32];              /* /proc comm */
    char proc_state;            /* before the attach */
    const char *state;          /* "running", "blocked", "waiting (timed)", "stopped", "ended", "not stopped" */
    uint64_t pc;                /* the innermost user frame (else rip), 0 unknown */
    char location[192];         /* "bank.c:22 transfer", "worker+0x1a", "libc.so.6+0x91a2c" */
    struct src_loc loc;         /* of pc; strings live as long as the report's code */
    char start[96];             /* the function it began in, "" unknown */
    char called[64];            /* the library function its code is inside, "" none */
    struct foreign_wait wait;
    bool stuck;                 /* waits for good on something only the program's own threads could end */
};

enum { FOREIGN_MAX_WAITERS = 64 };

struct foreign_object_view {
    enum sync_kind kind;
    uint64_t addr;
    char name[96];              /* "acct[1].lock", else "0x..." */
    pid_t holder;               /* mutex owner / rwlock writer tid, 0 none */
    int holder_number;          /* its T number, 0 when not a live thread of the process */
    bool has_value;
    int64_t value;              /* a semaphore's value */
    unsigned readers;           /* an rwlock's read locks held (their holders are not recorded) */
    int waiters[FOREIGN_MAX_WAITERS];   /* T numbers, the first FOREIGN_MAX_WAITERS */
    size_t n_waiters;           /* all of them (more than the array holds, for a crowd) */
};

enum foreign_verdict {
    FVERDICT_DEADLOCK,          /* a wait-for cycle */
    FVERDICT_HOLDER_GONE,       /* waits for a lock whose holder ended */
    FVERDICT_LOST_WAKEUP,       /* every thread stuck, some on a condvar */
    FVERDICT_HANG_IO,           /* every thread stuck on the program's own pipes */
    FVERDICT_HANG,              /* every thread stuck otherwise */
    FVERDICT_LIVELOCK,          /* the running threads cycle for ever (foreign_livelock.c) */
    FVERDICT_NOT_STUCK,
};

enum { FOREIGN_MAX_CYCLE = 64, FOREIGN_MAX_WATCHED = 16 };

/* The running threads watched for a livelock (foreign_livelock.h). */
struct foreign_livelock {
    bool watched;               /* every other thread waited for good, so they were */
    int window_ms;
    bool found;                 /* they came back to a state seen before */
    bool any_schedule;          /* nothing was stored: it holds whatever the schedule */
    int threads[FOREIGN_MAX_WATCHED];   /* T numbers of the watched threads */
    size_t n_threads;
    unsigned long period;       /* instructions of one cycle, all threads together */
    unsigned long instructions; /* run while watched */
    char where[256];            /* "spin.c:14-17 worker" */
    char unless[160];           /* "a signal it handles comes (SIGUSR1)", "" none */
    char why_not[200];          /* not found: why ("T2 reads the time stamp counter (rdtsc)") */
};

struct foreign_report {
    pid_t pid;
    char exe[4096];
    char comm[32];
    bool stopped_process;       /* every thread was stopped (T) before the attach */
    struct foreign_thread_view *threads;
    size_t n_threads;
    struct foreign_object_view *objects;
    size_t n_objects;
    size_t cycle[FOREIGN_MAX_CYCLE];    /* thread indices, in wait order */
    size_t cycle_len;
    enum foreign_verdict verdict;
    char verdict_text[1536];    /* one line: "deadlock: T2 waits on mutex ... held by T3; ..." */
    struct foreign_livelock livelock;
};

/* Builds the report from a process attached and stopped. */
bool foreign_report_build(const struct foreign_process *p, const struct foreign_code *fc,
                          struct foreign_report *out, char *err, size_t errlen);
void foreign_report_free(struct foreign_report *r);

/* The verdict's name for data: "deadlock", "holder-ended", "lost-wakeup",
 * "hang-io", "hang", "livelock", "not-stuck". */
const char *foreign_verdict_name(enum foreign_verdict v);
static inline bool foreign_report_stuck(const struct foreign_report *r) { return r->verdict != FVERDICT_NOT_STUCK; }

/* What thread t waits on, in words: "mutex acct[1].lock held by T3",
 * "join T2", "read(fd 3: pipe)", "" when it waits on nothing. */
void foreign_wait_text(const struct foreign_report *r, const struct foreign_thread_view *t, char *buf, size_t len);
/* "T3", or "tid 1234" for a thread not of the process. */
void foreign_thread_label(const struct foreign_report *r, pid_t tid, char *buf, size_t len);

#endif
