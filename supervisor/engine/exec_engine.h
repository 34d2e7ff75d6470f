/* exec_engine: what the files of the engine share with each other, and
 * nobody else: how a step ends, the thread and stop bookkeeping, waiting,
 * the futex emulation, reports. (Layers above read exec_core.h.) */
#ifndef MDAT_ENGINE_EXEC_ENGINE_H
#define MDAT_ENGINE_EXEC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include "supervisor/engine/exec_core.h"
#include "supervisor/engine/livelock.h"

/* What came of letting a thread run. */
enum run_outcome {
    RUN_CONTINUE,       /* an emulated syscall returned: the thread runs on */
    RUN_NEXT_OP,        /* stopped before its next visible operation */
    RUN_BLOCKED,        /* waiting in the futex model */
    RUN_THREAD_EXITED,
    RUN_PROCESS_EXITING,/* exit_group or fatal signal: the whole program ends */
    RUN_PROCESS_GONE,   /* the leader has been reaped */
    RUN_FAILED,         /* res->kind says what */
    RUN_ERROR,          /* mdat failed; res->error says why */
    RUN_TIMEOUT,
    RUN_RESTART,        /* page ownership cannot go on: the execution runs again (exec_result.restart) */
};


static inline int stop_event(int status)
{
    return status >> 16;
}

static inline bool is_exit_status(int status)
{
    return WIFEXITED(status) || WIFSIGNALED(status);
}

void exec_set_error(struct execution *ex, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* exec_threads.c: threads, forked children, queued stops, waiting, the end */
struct mthread *exec_add_thread(struct execution *ex, pid_t tid);
/* The only way t->state (and t->timed_wait) change: the scheduler's view
 * follows. timed_wait counts for a blocked thread; a runnable one has none. */
void exec_set_state(struct execution *ex, struct mthread *t, enum thread_state state, bool timed_wait);
/* The only writer of t->yielded (the runnable view keeps a copy). */
void exec_set_yielded(struct execution *ex, struct mthread *t, bool yielded);
bool exec_is_passive(const struct execution *ex, pid_t tid);
/* A forked child (or an exec'd image) runs free; stops it had queued are dealt with. */
void exec_add_passive(struct execution *ex, pid_t tid);
/* Handles the stops forked children have come to meanwhile (a system call
 * the filter stops, an int3 of a vfork child): a thread run ahead in mdat
 * takes no ptrace stop that would see them, and they must not wait for one. */
void exec_serve_passive(struct execution *ex);
void exec_enqueue(struct execution *ex, const struct tracee_event *ev);
bool exec_dequeue(struct execution *ex, pid_t tid, struct tracee_event *ev);
/* Waits for the next stop of tid, dealing with everyone else's meanwhile.
 * Returns 1, 0 on timeout, -1 when tid is gone without a word. */
int exec_wait_thread(struct execution *ex, pid_t tid, int *status);
/* Lets every remaining thread die and reaps them all, children included. */
void exec_drain(struct execution *ex, bool kill_it);

/* execution.c: asks the strategy to pick among ids (threads to run, or
 * waiters to wake) and records the choice when there was more than one. */
size_t exec_ask_strategy(struct execution *ex, char kind, const int *ids, const bool *yielded, size_t n);

/* exec_futex.c: futex emulation */
/* Makes the syscall the thread is stopped at return result without running it. */
void exec_emulate_syscall(struct mthread *t, int64_t result);
void exec_wake_thread(struct execution *ex, struct mthread *w);
/* Wakes up to n waiters of addr; which ones, when there are more, is a choice. */
int exec_wake_waiters(struct execution *ex, uint64_t addr, uint32_t bitset, uint32_t n);
enum run_outcome exec_handle_futex(struct execution *ex, struct mthread *t);

/* exec_stops.c: runs t from where it is stopped to its next visible
 * operation (or until it blocks, exits, or the program ends). */
enum run_outcome exec_run_thread(struct execution *ex, struct mthread *t);
/* t stands before a read-modify-write without LOCK that is still to load:
 * carries out the load alone (t stays before the instruction, its store
 * the next operation). false when it is not such an operation. */
bool exec_rmw_load_step(struct execution *ex, struct mthread *t);

/* exec_heap.c: t entered a heap function (fn) from the user's line at
 * site, returning to ret; false when a listener judged the call a failure
 * (it does not run). exec_heap_returned: t is back at that return address. */
bool exec_heap_call(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t site, uint64_t ret);
void exec_heap_returned(struct execution *ex, struct mthread *t);

/* exec_refuse.c: calls that would reach mdat (signals, ptrace, the calls
 * that name another process) or that came through another ABI */
/* At a seccomp stop of tid (t: a thread of the program, with its regs
 * read; NULL: a forked child's, whatever the call): when the call would
 * signal, trace or otherwise reach mdat, it is made to fail with EPERM,
 * kept for the report, and true. */
bool exec_refuse_call(struct execution *ex, struct mthread *t, pid_t tid);
/* First at every seccomp stop of a thread of the program: a call through
 * another ABI than x86-64's is refused, one that names another process
 * (fcntl F_SETOWN, prlimit64, process_vm_writev...) is judged and refused
 * or left to run. true for either: the thread runs on. false: a call
 * mdat models, for on_syscall. */
bool exec_refuse_at_seccomp(struct execution *ex, struct mthread *t);
/* A run that refused some call and failed no other way is a sandbox-violation. */
void exec_report_refused(struct execution *ex);

/* exec_syscalls.c: calls that can wait or that make a process */
/* The user's call that led to t's system call (0 when none is found). */
uint64_t exec_syscall_caller(struct execution *ex, const struct mthread *t);
/* t stopped at the seccomp stop of such a call (nr, args in its regs):
 * RUN_CONTINUE to let it run now (it cannot wait), RUN_NEXT_OP to make it
 * t's next visible operation, or another outcome on error. */
enum run_outcome exec_syscall_stop(struct execution *ex, struct mthread *t);
/* t is chosen and its operation is such a call: true when the call would
 * wait now (t is then blocked in the model; the caller ends the step). */
bool exec_syscall_would_wait(struct execution *ex, struct mthread *t);
/* Threads blocked in such calls that could go on now become runnable. */
void exec_syscall_recheck(struct execution *ex);
/* Ends t's wait in such a call without making it: it returns result. */
void exec_syscall_abandon(struct execution *ex, struct mthread *t, int64_t result);
/* Nobody can run but threads wait in such calls: waits (up to the step's
 * deadline) for the outside world (a child, a socket) to complete one.
 * true when one could go on; false when none ever will from inside the
 * program (*inside: every wait is on the program's own pipes) or the
 * deadline passed. */
bool exec_syscall_wait_outside(struct execution *ex, bool *inside);

/* execution.c */
/* The running step's thread showed progress mdat had to serve (a library
 * access carried out): its time without a visible operation starts again. */
void exec_step_progressed(struct execution *ex);
/* Page ownership: the next look at the running step is due at at_ns (by
 * the clock; exec_threads.c then asks the thread's CPU time). */
void exec_arm_spin_check(struct execution *ex, uint64_t at_ns);
/* --timeout in nanoseconds, 0 when steps may take any time. */
uint64_t exec_timeout_ns(const struct execution *ex);
/* The running step is looked at again at at_ns (0: never), or at the end
 * of --time-limit if that is sooner (exec_threads.c step_overdue judges). */
void exec_arm_step_deadline(struct execution *ex, uint64_t at_ns);
/* When the running step's whole --timeout has passed by the clock (or
 * the execution's --time-limit, if sooner): how long a wait on the world
 * outside the program may take. */
uint64_t exec_step_timeout_end(const struct execution *ex);

/* exec_signals.c */
/* A signal the thread does not block is pending for it (or its process). */
/* At a program's rt_sigaction: a handler runs with the signals mdat's own
 * work raises unblocked (SIGTRAP; with page ownership SIGSEGV). */
void exec_keep_handler_traps(struct execution *ex, struct mthread *t);
/* At the seccomp stop of alarm, setitimer or timer_settime: a signal may
 * come later, at a time noted when it can be told (exec_await_timer). */
void exec_note_timer(struct execution *ex, struct mthread *t);
/* Every thread waits in the model while a timer is armed: waits in real
 * time (at most limit_ns) for its signal to end a wait. true: some thread
 * can run again. */
bool exec_await_timer(struct execution *ex, uint64_t limit_ns);
bool exec_signal_pending(struct execution *ex, const struct mthread *t);
bool exec_signal_is_fatal(struct execution *ex, pid_t tid, int sig);
/* Signals sent to threads blocked in the model end their waits (EINTR). */
void exec_interrupt_signalled_waits(struct execution *ex);
/* A signal some process of the program sends (seen at its seccomp stop;
 * t: the sending thread, NULL for a forked child). */
void exec_note_signal_sent(struct execution *ex, const struct mthread *t, int sig);
/* t stopped at a call that sends a signal: remembered if it raises one to
 * itself (delivered as the call returns, as a choice decided). */
void exec_note_self_raise(struct execution *ex, const struct mthread *t);
/* The program handles sig in t: unless t brought it on itself (a fault, a
 * raise), when it came was no choice of the search's (exec_grounds.h). */
void exec_judge_signal_grounds(struct execution *ex, const struct mthread *t, int sig);
/* At the signal-delivery stop of a fatal sig in tid: true, and the
 * execution reported as cut short (exec_report_outside_kill), when a
 * process outside the program sent it (its siginfo names a sender that is
 * none of the program's processes, and the program never sent sig). */
bool exec_killed_from_outside(struct execution *ex, pid_t tid, int sig);
/* The program died by SIGKILL that neither mdat nor any of its processes
 * sent (nor the kernel's CPU time limit): true, and the execution is
 * reported as cut short from outside. */
bool exec_sigkill_from_outside(struct execution *ex);
/* The execution was cut short by sig from outside (sender: 0 unknown): an
 * error, no verdict (exec_result.interrupted). */
void exec_report_outside_kill(struct execution *ex, int sig, pid_t sender);

/* exec_report.c: failures as reports */
void exec_record_assert(struct execution *ex, struct mthread *t);
void exec_report_crash(struct execution *ex, struct mthread *t, int sig);
void exec_report_deadlock(struct execution *ex);
/* t's step has run longer than --timeout: a loop without visible
 * operations, or a blocking system call (named) nothing will complete. */
void exec_report_hang(struct execution *ex, struct mthread *t);
void exec_report_livelock(struct execution *ex);
/* Every thread that can run spins (spin_watch.h) and nothing can time out:
 * a livelock at t's loop, naming what it reads. */
void exec_report_spin_livelock(struct execution *ex, struct mthread *t);
/* Every thread waits in a call (a read, a wait4) that nothing completed
 * within --timeout, and something outside the program might: a hang. */
void exec_report_io_hang(struct execution *ex);
/* Not a failure: the execution was cut short while making progress. */
void exec_note_incomplete(struct execution *ex, enum incomplete_reason why);
/* Every thread's state into res->threads, for the failure report. */
void exec_snapshot_threads(struct execution *ex);
/* The model's description of a blocked thread's wait, or a plain one. */
void exec_describe_wait(struct execution *ex, const struct mthread *t, char *buf, size_t len, int *waits_for);

/* return_breaks.c: one-shot breakpoints at return addresses */
/* Makes threads stop at addr (unless a code-map breakpoint stops them
 * there anyway); counted: each thread that will return there adds one. */
void exec_return_break_add(struct execution *ex, uint64_t addr);
/* t stopped at an int3 at `at`: true when it is one of ours (t is then set
 * up to go on); `returning` says t is the one the breakpoint was set for. */
bool exec_return_break_hit(struct execution *ex, struct mthread *t, uint64_t at, bool returning);
/* Writes the original bytes back into another address space (a forked child). */
void exec_return_breaks_remove(struct execution *ex, int mem_fd);
/* One of mdat's int3s sits at addr, the code map's or a return breakpoint:
 * true, with the program's byte it covers; false when there is none. */
bool exec_breakpoint_orig(struct execution *ex, uint64_t addr, uint8_t *orig);
/* One of the return breakpoints is at addr (running ahead knows the code
 * map's from code_map_insn_at). */
bool exec_return_break_at(struct execution *ex, uint64_t addr);

/* virtual_clock.c: answers a call of the vDSO's clock functions (fn) and
 * returns from it to ret; false to let the real one run. */
bool exec_answer_clock(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t ret);
/* A sleep (stopped at its syscall) moves the virtual clock on. */
void exec_clock_sleeps(struct execution *ex, struct mthread *t);

#endif
