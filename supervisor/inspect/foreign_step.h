/* foreign_step: the take-over of a process mdat did not start (`mdat
 * attach -p PID`, key t): one thread of a process held by foreign_attach
 * runs to its next system call while every other thread stays stopped.
 *
 * This step is what the kernel shows of a thread from outside, and needs
 * no breakpoint: it runs until it enters a system call (its number and
 * arguments), or, stopped at an entry, until that call returns (its
 * result). The step to the next visible operation, with breakpoints, is
 * foreign_visible.c's, and shares this file's helpers below. A
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

#include <sys/ptrace.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/trace/trace.h"

enum foreign_step_end {
    FSTEP_ENTERED,      /* stopped as it enters a system call */
    FSTEP_RETURNED,     /* stopped as the call it had entered returns */
    FSTEP_SIGNAL,       /* a signal came for it first: it takes it at its next step (or at the detach) */
    FSTEP_ENDED,        /* the thread ended (the process, if it was its last) */
    FSTEP_BLOCKED,      /* still in the kernel after the wait: stopped again where it waits */
    FSTEP_REFUSED,      /* not run: why says */
    FSTEP_NEW_THREAD,   /* it made a thread (new_tid), held from its first instruction */
    FSTEP_USER_CODE,    /* foreign_step_to_user: back in the user's code */
    FSTEP_VISIBLE,      /* foreign_step_visible: it carried out its next visible operation (op) */
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
    /* foreign_step_visible: the visible operation carried out (FSTEP_VISIBLE)
     * or the one it blocks in (FSTEP_BLOCKED: a lock, a wait, a futex):
     * op, object, value and where, as a run's trace tells them. */
    bool has_op;
    struct trace_event op;
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

/* ---- shared with the step to a visible operation (foreign_visible.c) ---- */

/* The start of a step: out cleared, the thread held, the options a step
 * needs set, and a call it stopped entering read (*entered, else -1) and
 * refused when it would escape the hold. 1: go on; 0: refused (out says
 * why); -1: ptrace failed (err). before_options, when set, may refuse the
 * thread before anything is changed. */
int foreign_step_begin(struct foreign_process *p, size_t index, struct foreign_step *out, long *entered,
                       bool (*before_options)(const struct foreign_thread *t, const void *ctx, struct foreign_step *out),
                       const void *ctx, char *err, size_t errlen);
/* A call whose new process or program would run outside mdat's hold. */
bool foreign_step_escapes(const struct foreign_process *p, long nr, const uint64_t args[6]);
void foreign_step_refuse_escape(long nr, struct foreign_step *out);
/* The thread index made (a clone event stop): adopted into p (which may move p->threads). */
void foreign_step_adopt(struct foreign_process *p, size_t index, struct foreign_step *out);
bool foreign_syscall_info(pid_t tid, struct __ptrace_syscall_info *info);
bool foreign_step_status_ended(int status);
/* A thread that ends a step in the stop of a SIGTRAP (a single step, an
 * int3) must not rest there: should mdat die by SIGKILL, the kernel would
 * let it go *with* that signal, and it would die of it. Stopped again by an
 * interrupt instead (before it runs anything), as the attach left it. */
bool foreign_step_settle(struct foreign_thread *t);
void foreign_step_thread_ended(struct foreign_thread *t, struct foreign_step *out);
/* The thread's status by the deadline, looked for every nap_ns; 0 when it has not stopped. */
pid_t foreign_step_wait_until(pid_t tid, uint64_t deadline, long nap_ns, int *status);
/* A thread that outran its wait, interrupted and waited for again. */
enum interrupted { INTERRUPT_STOPPED, INTERRUPT_ENDED, INTERRUPT_FAILED };
enum interrupted foreign_step_interrupt(struct foreign_thread *t, int *status, struct foreign_step *out, char *err,
                                        size_t errlen);

#endif
