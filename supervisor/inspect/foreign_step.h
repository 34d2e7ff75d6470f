/* foreign_step: the take-over of a process mdat did not start (`mdat
 * attach -p PID`, key t): one thread of a process held by foreign_attach
 * runs to its next system call while every other thread stays stopped.
 *
 * A step of a thread that was not started under mdat can only be what the
 * kernel shows of it from outside: it runs until it enters a system call
 * (its number and arguments), or, stopped at an entry, until that call
 * returns (its result). Memory accesses between them are not steps (no
 * breakpoints are planted in a running image mdat did not load), and a
 * call that waits in the kernel (a futex wait on a held lock, a read of an
 * empty pipe) is told as blocked after a short wait and stopped again. A
 * thread the stepped one makes (pthread_create: clone with CLONE_THREAD)
 * is seized before its first instruction and held with the others
 * (PTRACE_O_TRACECLONE); a call that would create a process or replace
 * the program is not run (the new process would run free): the step says
 * so. The other step, foreign_step_to_user, runs the thread one
 * instruction at a time (PTRACE_SINGLESTEP) until it is back in the
 * user's code, from inside a library call. Owns the thread's resumption
 * and the wait for its stop; what the thread waits on is foreign_report's
 * to say. */
#ifndef MDAT_INSPECT_FOREIGN_STEP_H
#define MDAT_INSPECT_FOREIGN_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"

enum foreign_step_end {
    FSTEP_ENTERED,      /* stopped as it enters a system call */
    FSTEP_RETURNED,     /* stopped as the call it had entered returns */
    FSTEP_SIGNAL,       /* a signal came for it first: it takes it at its next step (or at the detach) */
    FSTEP_ENDED,        /* the thread ended (the process, if it was its last) */
    FSTEP_BLOCKED,      /* still in the kernel after the wait: stopped again where it waits */
    FSTEP_REFUSED,      /* not run: why says */
    FSTEP_NEW_THREAD,   /* it made a thread (new_tid), held from its first instruction */
    FSTEP_USER_CODE,    /* foreign_step_to_user: back in the user's code */
};

struct foreign_step {
    enum foreign_step_end end;
    long nr;                /* the call entered or returned from (-1 unknown) */
    uint64_t args[6];       /* FSTEP_ENTERED */
    int64_t result;         /* FSTEP_RETURNED: the value, or -errno */
    int signal;             /* FSTEP_SIGNAL */
    pid_t new_tid;          /* FSTEP_NEW_THREAD */
    bool ran_call;          /* foreign_step_to_user from a call's entry: that call ran, */
    long ran_nr;            /* this one, */
    int64_t ran_result;     /* and returned this */
    unsigned long instructions;     /* foreign_step_to_user: how many it ran */
    char why[200];          /* FSTEP_REFUSED */
};

/* Runs thread p->threads[index] one step, waiting at most wait_ms for it
 * to stop. false (err says why) only when ptrace failed; a step that did
 * not run is FSTEP_REFUSED. */
bool foreign_step_thread(struct foreign_process *p, size_t index, int wait_ms, struct foreign_step *out, char *err,
                         size_t errlen);

/* Runs thread p->threads[index] one instruction at a time until its pc
 * is in the user's code (fc decides), for at most wait_ms: out of a
 * library call back to the line that made it. A thread in the user's code
 * already is FSTEP_REFUSED; one still outside it after wait_ms, or waiting
 * in the kernel, is FSTEP_BLOCKED (stopped again where it is). */
bool foreign_step_to_user(struct foreign_process *p, size_t index, const struct foreign_code *fc, int wait_ms,
                          struct foreign_step *out, char *err, size_t errlen);

/* "futex", "read", ...; "syscall 451" for one this machine's libseccomp
 * does not name. */
void foreign_syscall_name(long nr, char *buf, size_t len);

#endif
