/* failure: the kinds of failure mdat reports, and a thread's state in a report. */
#ifndef MDAT_SUPERVISOR_FAILURE_H
#define MDAT_SUPERVISOR_FAILURE_H

enum failure_kind {
    FAIL_NONE,
    FAIL_DEADLOCK,
    FAIL_ASSERTION,
    FAIL_CRASH,
    FAIL_EXIT_STATUS,
    FAIL_STEP_LIMIT,
    FAIL_TIMEOUT,
    FAIL_CHECKER,
    FAIL_MISUSE,            /* pthread API misuse: unlock by a non-owner, double join, ... */
    FAIL_KIND_COUNT
};

/* "deadlock", "assertion", "crash", "exit-status", "step-limit", "timeout", "checker", "misuse", "none". */
const char *failure_kind_name(enum failure_kind kind);
enum failure_kind failure_kind_from_name(const char *name);

struct failure_thread {
    int id;
    char state[16];         /* thread_status_name(): "ready", "waiting-lock", "exited", ... */
    char location[160];     /* "file.c:14 worker" */
    char waiting_on[200];   /* "mutex lock_b (held by T2)", "" */
    char start[64];         /* start function, "main" for T1 */
};

#endif
