/* exec_core: the state of one running execution, as the engine publishes it.
 *
 * The engine (engine/exec_*.c) owns and changes it; the layers above it (the
 * source-terms model, the detectors) read it through their hooks, which the
 * engine calls with the execution in hand (exec_model.h, exec_listener.h).
 * They may read the tracee's memory through mem_fd but never resume a thread
 * or change its registers. */
#ifndef MDAT_ENGINE_EXEC_CORE_H
#define MDAT_ENGINE_EXEC_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "supervisor/engine/exec_config.h"
#include "supervisor/engine/futex_model.h"
#include "supervisor/process/heap_map.h"
#include "supervisor/process/tracee.h"

enum thread_state { TS_RUNNABLE, TS_BLOCKED, TS_EXITED };

enum { EXEC_AHEAD_MEMO = 1024 };

/* How the thread has to be resumed from the ptrace stop it sits in. */
enum stop_kind {
    STOP_PLAIN,         /* PTRACE_CONT is enough (new thread, emulated syscall, event stop) */
    STOP_BREAKPOINT,    /* at an int3 of ours: step over the original instruction first */
    STOP_FAULT,         /* at an instruction that faulted on a page it may not touch (exec_pages.h) */
};

/* What the thread will do when it next runs: the subject of its next step. */
enum op_kind {
    OP_START, OP_ACCESS, OP_CALL, OP_YIELD, OP_SLEEP, OP_WOKEN, OP_TIMEDOUT, OP_INTERRUPTED,
    OP_EXIT,                /* about to end the process (exit_group): others may still run first */
    OP_SYSCALL,             /* about to make a call that can wait or makes a process (io_wait.h) */
};

struct mthread {
    int id;
    pid_t tid;
    /* What every step's gathering of candidates reads of every thread,
     * together in one cache line (hundreds of threads, each a kilobyte). */
    enum thread_state state;
    bool yielded;
    bool timed_wait;
    enum stop_kind stop;
    uint8_t bp_orig;
    const struct x86_insn *bp_insn;     /* the instruction under the breakpoint it is stopped at */
    struct user_regs_struct regs;
    bool regs_dirty;                /* regs differ from the kernel's (rip rewound onto a breakpoint):
                                     * written once, when the thread is resumed */
    bool ahead_on_resume;           /* mdat made its system call return: it may run ahead from there */
    bool kernel_at_syscall;         /* the kernel holds it at a seccomp stop (whatever regs say since) */

    enum op_kind op;
    const struct code_site *site;   /* OP_ACCESS */
    uint64_t access_addr;           /* OP_ACCESS: first shared operand */
    uint8_t access_size;
    /* A read-modify-write without LOCK is two steps, as on hardware: its
     * load (rmw_loaded false), then its store from the value loaded. */
    bool rmw_loaded;
    uint64_t rmw_old;
    enum model_fn fn;               /* OP_CALL */
    long sys_nr;                    /* OP_SYSCALL: the call and its arguments */
    uint64_t sys_args[6];
    uint64_t sys_caller;            /* where user code called it (for its line), 0 if unknown */
    bool io_wait;                   /* TS_BLOCKED in that call until it can complete */

    /* The modeled library call the thread is in, for naming what it waits on. */
    bool in_call;
    enum model_fn call_fn;
    uint64_t call_arg[2];
    uint64_t call_site;             /* return address of that call */
    /* With no user's call on the stack (a destructor exit runs calls
     * std::thread::join): the nearest return address into the program's
     * own code, which names the call (never scheduling: call_site does). */
    uint64_t call_program;

    uint64_t last_user_pc;          /* last place in user code, for crash reports */
    /* The last jump the user's code made into a library (a tail call, when
     * taken): where it was, the stack slot whose return address the callee
     * will return by (rsp at the jump) and that address. Stands for the
     * user's frame while the slot still holds it (code_names.c); tail_jmp
     * 0: none. */
    uint64_t tail_jmp, tail_slot, tail_ret;
    /* exit() called (exit_slot: the stack slot of its return address, 0
     * before) and the user's call of it (0: the runtime called it, as
     * libc does when main returns). The handlers it runs (destructors of
     * globals) lie below the slot; what lies above is no frame of theirs. */
    uint64_t exit_slot, exit_call;
    uint64_t start_routine;
    uint64_t pending_start;         /* set by pthread_create, given to the clone */
    uint64_t ctid;                  /* CLONE_CHILD_CLEARTID word */
    uint64_t tls;                   /* struct pthread of this thread = pthread_t */
    uint64_t stack_lo, stack_hi;    /* its own stack mapping, 0 until needed */
    uint32_t unpreempted;           /* accesses run in a row without the strategy asked (--preempt=sync) */
    int interrupted_by;             /* a signal stopped its step before the operation ran */
    bool cancelled;                 /* glibc's cancellation signal reached it in this step */
    bool cancel_requested;          /* another thread called pthread_cancel on it */
    uint64_t wait_seq;              /* when it blocked, to list waiters in order */
    int joined_by;                  /* the thread that called pthread_join on it, 0 if none */
    uint64_t join_sp, join_site;    /* the frame of that call */

    /* A heap call from user code on its way back (exec_heap.c). */
    uint64_t heap_ret;              /* return address, 0 if none pending */
    uint64_t heap_size, heap_old;   /* heap_old: the block realloc moves */
    uint64_t heap_out;              /* where posix_memalign puts its block */
    uint64_t heap_site;             /* the user's line that calls */
    enum model_fn heap_fn;
    struct heap_block heap_freeing; /* the block a free under way ends (addr 0: none known) */

    /* Page ownership (exec_pages.c): the system call followed to its end
     * and its arguments, whether it runs with every key open, faults in a
     * row on a page it may touch. */
    bool syscall_exit_wanted;
    bool at_syscall_exit;           /* stopped there (the call is over) */
    bool at_birth;                  /* a new thread at its first stop, not run yet */

    bool pkru_opened;
    bool pkru_known;                /* pkru_now is what its PKRU holds */
    uint32_t pkru_now;

    long pages_nr;
    uint64_t pages_args[6];
    int pages_retries;
};

/* A one-shot breakpoint of ours at a return address (engine/return_breaks.c). */
struct return_bp {
    uint64_t addr;
    uint8_t orig;
    int refs;                       /* threads that will come back through it */
};

struct store_buffers;
struct walk_memo;
struct exec_pages;

/* When a step still under way is first looked at (set_step_deadline). */
enum { STEP_FIRST_LOOK_NS = 100000000 };

struct execution {
    const struct exec_config *cfg;
    struct exec_result *res;
    pid_t pid;
    /* A live thread of the program, through which process_vm_readv and
     * writev reach its memory: the main thread's pid no longer does once it
     * has left with pthread_exit while others run. */
    pid_t vm_pid;
    int mem_fd;
    struct mthread *threads;        /* index = id - 1 */
    int n_threads, cap_threads;
    /* The scheduler's view of threads, kept as they change state
     * (exec_set_state): the runnable ones' ids in order, how many are
     * blocked and how many of those can time out. A step's candidates then
     * cost what the runnable threads cost, not a look at every thread. */
    int *runnable;
    bool *runnable_yielded;         /* beside runnable: that thread's last step was a yield or sleep */
    int n_runnable, n_blocked, n_timed;
    /* The view's changes since the strategy last chose a thread from it
     * (struct choice_point's view): the threads that became runnable or
     * stopped being, or yielded or ran. A strategy that keeps its own
     * order of the candidates (pct) then costs what changed, not what can
     * run. More than fit: unknown, the strategy looks at them all. */
    uint64_t view;                  /* thread choices made from the view */
    int changed[32];
    int n_changed;                  /* > 32: more changed than fit */
    struct futex_table futex;
    struct heap_map heap;           /* the blocks user code holds (exec_heap.c) */
    struct heap_map freed;          /* page ownership, or exit() begun: blocks it freed, not handed out since */
    bool exit_began;                /* a thread called exit(): the destructors of globals may run */
    struct tracee_event *queue;     /* stops of threads other than the one we wait for */
    size_t n_queue, cap_queue;
    pid_t *passive;                 /* threads of forked children, run without scheduling */
    size_t n_passive, cap_passive;
    uint64_t deadline_ns;           /* waits end here: the sooner of the step's and the execution's limit */
    uint64_t end_ns;                /* --time-limit: the execution ends here (0: none) */
    uint64_t step_started_ns;       /* when the running step began */
    /* Page ownership: deadline_ns is the sooner of the step's real one and
     * the time to look whether its thread spins on memory it owns; the look
     * is due when the thread has used spin_cpu_ns of CPU since
     * spin_cpu_base (exec_threads.c spin_watch_due). */
    uint64_t step_deadline_ns, spin_check_ns;
    uint64_t spin_cpu_ns, spin_cpu_base;    /* spin_cpu_base 0: not read yet */
    bool spin_restart;              /* a spin on owned memory was found: the execution runs again */
    /* --timeout is what a step may use, not what a busy machine takes
     * from it: step_deadline_ns is first STEP_FIRST_LOOK_NS away; from
     * there the running thread and mdat together must use --timeout of
     * CPU time since hang_cpu_base (what both had used at the first look;
     * 0: not read yet), or the thread sleep in the kernel until --timeout
     * has passed, before the step is a hang (exec_threads.c step_overdue). */
    uint64_t hang_cpu_base;

    uint64_t steps;
    int last_thread;
    int running;                    /* the thread running the current step */
    /* How often running a thread ahead from a start reached a breakpoint
     * (exec_ahead.c): where it mostly gives up, the CPU goes on at once. */
    struct ahead_memo {
        uint64_t start;
        uint32_t tries;
        uint32_t spent, saved;  /* emulation done, stops it spared (exec_ahead.c's units) */
    } ahead_memo[EXEC_AHEAD_MEMO];
    enum stop_reason stop_reason;   /* of the stop being handled, when it is no step's end */
    pid_t held_at_exit;             /* stopped at its exit_group, until the step is reported */
    bool signal_sent;               /* a thread sent a signal since the last look */
    bool signals_seen;              /* a thread of the program ever sent one, or armed a timer */
    bool timers_armed;              /* a timer of the kernel's may send a signal (alarm, setitimer) */
    bool timer_due_unknown;         /* the last one armed: when it is due is not known (timer_settime) */
    uint64_t timer_due_ns;          /* when the last real-time one armed is due (monotonic_ns), 0: none */
    uint64_t timer_period_ns;       /* and its interval, 0: once */
    uint64_t signals_sent;          /* bit sig-1: some process of the program sent sig (not refused) */
    pid_t raised_by;                /* the thread that last sent raised_sig to itself (raise, tgkill) */
    int raised_sig;
    int sigkill_by;                 /* the first SIGKILL it sent: the thread (0: a child process) */
    char sigkill_loc[160];          /* and where */
    bool cpu_limit_hit;             /* SIGXCPU came: a SIGKILL a second later is the kernel's */
    uint64_t clock_reads;           /* virtual clock: readings so far */
    uint64_t clock_slept_ns;        /* virtual clock: what the sleeps asked for */
    bool leader_gone;
    int leader_status;
    bool killed;                    /* mdat ended the program (exec_drain with kill) */
    int pidfd;                      /* of the program, to borrow its descriptors (io_wait.h) */
    /* When the loop next looks whether the program was killed from
     * outside (execution.c: run ahead, nothing else would tell). */
    uint64_t outside_check_ns;
    unsigned outside_countdown;
    int n_io_waits;                 /* threads blocked in a call that can wait */
    bool assert_seen;
    int assert_thread;
    char assert_text[400];
    char assert_loc[160];
    char assert_fn[96];
    /* Calls refused because they reached mdat (exec_refuse.c): how many,
     * and the first one, reported as a sandbox-violation at the end. */
    int n_refused;
    int refused_thread;
    char refused_text[300];
    char refused_loc[160];
    char refused_fn[96];
    bool describe;                  /* events are formatted: someone reads them */
    struct trace_event *event;      /* the event of the step being run, NULL unless described */
    uint64_t wait_seq;

    /* The source-terms model of this execution (exec_model.h), NULL without one. */
    const struct exec_model_ops *model;
    void *model_state;

    struct livelock *livelock;      /* repeated states (engine/livelock.h) */
    struct spin_watch *spin;        /* loops that make no progress (engine/spin_watch.h), NULL: not watched */
    /* The store an emulated instruction of this step made, for livelock. */
    uint64_t emulated_store_addr, emulated_store_value;
    unsigned emulated_store_size;

    /* x86-TSO (exec_tso.h): the store buffers, NULL under SC; while the
     * running thread's visible store is carried out, where it is. */
    struct store_buffers *tso;
    bool tso_recording;
    uint64_t tso_store_pc;
    struct walk_memo *tso_walks;    /* the walks from a rip, judged once */
    size_t n_tso_walks, cap_tso_walks;

    struct return_bp *ret_bps;      /* one-shot breakpoints at return addresses */
    size_t n_ret_bps, cap_ret_bps;

    struct exec_pages *pages;       /* page ownership (exec_pages.h), NULL: every access observed */
};

struct mthread *exec_thread_by_tid(struct execution *ex, pid_t tid);
struct mthread *exec_thread_by_id(struct execution *ex, int id);
/* The thread with kernel tid `tid`: the live one, else the newest that had
 * it (a lock's holder may exit without unlocking); 0 if none of ours. */
int exec_thread_id_of_tid(struct execution *ex, pid_t tid);
/* The newest thread whose pthread_t is pthread, 0 if none. */
int exec_thread_of_pthread(struct execution *ex, uint64_t pthread);

#endif
