/* failure: the kinds of failure mdat reports, and a thread's state in a report. */
#ifndef MDAT_SUPERVISOR_FAILURE_H
#define MDAT_SUPERVISOR_FAILURE_H

enum failure_kind {
    FAIL_NONE,
    FAIL_DEADLOCK,
    FAIL_ASSERTION,
    FAIL_CRASH,
    FAIL_EXIT_STATUS,
    FAIL_LIVELOCK,          /* threads run on and on in a cycle of states, making no progress */
    FAIL_HANG,              /* a step never reached its next visible operation (spin or blocked call) */
    FAIL_CHECKER,
    FAIL_MISUSE,            /* pthread API misuse: unlock by a non-owner, double join, ... */
    FAIL_RACE,              /* two accesses to the same memory, one a write, not ordered by any synchronization */
    FAIL_INVARIANT,         /* an --invariant expression became false */
    FAIL_SANDBOX,           /* the program tried to signal or ptrace mdat (refused; engine/exec_refuse.c) */
    FAIL_HEAP,              /* a use after free or a double free (detect/heap_errors.c) */
    FAIL_KIND_COUNT
};

/* "deadlock", "assertion", "crash", "exit-status", "livelock", "hang", "checker", "misuse", "race",
 * "invariant", "sandbox-violation", "heap-error", "none".
 * failure_kind_from_name also reads the names of mdat 0.2 ("step-limit", "timeout"). */
const char *failure_kind_name(enum failure_kind kind);
enum failure_kind failure_kind_from_name(const char *name);

/* Why an execution that is no failure still says nothing about the rest of
 * the program: it was cut short while making progress. */
enum incomplete_reason {
    INCOMPLETE_NO,
    INCOMPLETE_STEPS,       /* --max-steps reached */
    INCOMPLETE_TIME,        /* --time-limit reached */
};

struct failure_thread {
    int id;
    char state[16];         /* thread_status_name(): "ready", "waiting-lock", "exited", ... */
    char location[160];     /* "file.c:14 worker" */
    char waiting_on[200];   /* "mutex lock_b (held by T2)", "" */
    char start[64];         /* start function, "main" for T1 */
};

#endif
