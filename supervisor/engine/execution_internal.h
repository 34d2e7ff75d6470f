/* execution_internal: the state of one execution, shared by the files that
 * implement it (execution.c runs it, exec_view.c describes it, misuse.c
 * judges the calls it makes). Nothing outside those files includes this. */
#ifndef MDAT_SUPERVISOR_EXECUTION_INTERNAL_H
#define MDAT_SUPERVISOR_EXECUTION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "supervisor/engine/execution.h"
#include "supervisor/engine/futex_model.h"
#include "supervisor/model/heap_map.h"
#include "supervisor/model/sync_model.h"
#include "supervisor/engine/tracee.h"

enum thread_state { TS_RUNNABLE, TS_BLOCKED, TS_EXITED };

/* How the thread has to be resumed from the ptrace stop it sits in. */
enum stop_kind {
    STOP_PLAIN,         /* PTRACE_CONT is enough (new thread, emulated syscall, event stop) */
    STOP_BREAKPOINT,    /* at an int3 of ours: step over the original instruction first */
};

/* What the thread will do when it next runs: the subject of its next step. */
enum op_kind { OP_START, OP_ACCESS, OP_CALL, OP_YIELD, OP_SLEEP, OP_WOKEN, OP_TIMEDOUT, OP_INTERRUPTED };

struct mthread {
    int id;
    pid_t tid;
    enum thread_state state;
    enum stop_kind stop;
    uint8_t bp_orig;
    const struct x86_insn *bp_insn;     /* the instruction under the breakpoint it is stopped at */
    struct user_regs_struct regs;

    enum op_kind op;
    const struct code_site *site;   /* OP_ACCESS */
    uint64_t access_addr;           /* OP_ACCESS: first shared operand */
    uint8_t access_size;
    enum model_fn fn;               /* OP_CALL */

    /* The modeled library call the thread is in, for naming what it waits on. */
    bool in_call;
    enum model_fn call_fn;
    uint64_t call_arg[2];
    uint64_t call_site;             /* return address of that call */

    uint64_t last_user_pc;          /* last place in user code, for crash reports */
    uint64_t start_routine;
    uint64_t pending_start;         /* set by pthread_create, given to the clone */
    uint64_t ctid;                  /* CLONE_CHILD_CLEARTID word */
    uint64_t tls;                   /* struct pthread of this thread = pthread_t */
    uint64_t stack_lo, stack_hi;    /* its own stack mapping, 0 until needed */
    bool yielded;
    bool timed_wait;
    int interrupted_by;             /* a signal stopped its step before the operation ran */
    uint64_t wait_seq;              /* when it blocked, to list waiters in order */
    int joined_by;                  /* the thread that called pthread_join on it, 0 if none */
    uint64_t join_sp, join_site;    /* the frame of that call */

    /* A heap allocation from user code on its way back (heap names). */
    uint64_t heap_ret;              /* return address, 0 if none pending */
    uint64_t heap_size, heap_old;   /* heap_old: the block realloc moves */
    uint64_t heap_site;             /* the user's line that allocates */
    enum model_fn heap_fn;
};

/* A one-shot breakpoint of ours at the return address of a heap call. */
struct return_bp {
    uint64_t addr;
    uint8_t orig;
    int refs;                       /* threads that will come back through it */
};

struct execution {
    const struct exec_config *cfg;
    struct exec_result *res;
    pid_t pid;
    int mem_fd;
    struct mthread *threads;        /* index = id - 1 */
    int n_threads, cap_threads;
    struct futex_table futex;
    struct tracee_event *queue;     /* stops of threads other than the one we wait for */
    size_t n_queue, cap_queue;
    pid_t *passive;                 /* threads of forked children, run without scheduling */
    size_t n_passive, cap_passive;
    uint64_t deadline_ns;
    uint64_t step_started_ns;       /* when the running step began */
    uint64_t steps;
    int last_thread;
    int running;                    /* the thread running the current step */
    pid_t held_at_exit;             /* stopped at its exit_group, until the step is reported */
    bool signal_sent;               /* a thread sent a signal since the last look */
    uint64_t clock_reads;           /* virtual clock: readings so far */
    uint64_t clock_slept_ns;        /* virtual clock: what the sleeps asked for */
    bool leader_gone;
    int leader_status;
    bool assert_seen;
    int assert_thread;
    char assert_text[400];
    char assert_loc[160];
    char assert_fn[96];
    struct trace_event *event;      /* the event of the step being run, NULL unless described */
    const struct dwarf_type *event_type;    /* the type of its object, for the value written */
    bool describe;                  /* events are formatted: someone reads them */
    uint64_t wait_seq;

    struct sync_model sync;         /* only kept when describing */
    struct heap_map heap;           /* idem */
    struct return_bp *ret_bps;      /* temporary breakpoints at heap call returns */
    size_t n_ret_bps, cap_ret_bps;

    /* Buffers behind the exec_state handed to observers. */
    struct exec_state state;
    struct state_thread *state_threads;
    int cap_state_threads;
    struct state_object *state_objects;
    size_t cap_state_objects;
    int *state_waiters;
    size_t cap_state_waiters;
    struct state_watch *state_watches;
    int cap_state_watches;
};


/* execution.c */
struct mthread *exec_thread_by_tid(struct execution *ex, pid_t tid);
struct mthread *exec_thread_by_id(struct execution *ex, int id);
/* The thread with kernel tid `tid`: the live one, else the newest that had
 * it (a lock's holder may exit without unlocking); 0 if none of ours. */
int exec_thread_id_of_tid(struct execution *ex, pid_t tid);

/* exec_view.c: naming and describing, in source terms */
void exec_format_code(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_line(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_function(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_function_or_addr(struct execution *ex, uint64_t addr, char *buf, size_t len);
/* A name for a data address: variable, heap block, stack or TLS; hex at worst. */
void exec_name_object(struct execution *ex, uint64_t addr, char *buf, size_t len);
/* pc, or for code from a system header (C++ templates) the user's line
 * that led there, found through the frame-pointer chain of t. */
uint64_t exec_user_frame_pc(struct execution *ex, const struct mthread *t, uint64_t pc);
/* Where a thread is, in user terms (the call line while inside a modeled call). */
uint64_t exec_user_pc(struct execution *ex, const struct mthread *t);
/* The thread holding the mutex (from glibc's owner field), 0 if none of ours. */
int exec_mutex_holder(struct execution *ex, uint64_t mutex);
/* The newest thread whose pthread_t is pthread, 0 if none. */
int exec_thread_of_pthread(struct execution *ex, uint64_t pthread);
/* What a blocked thread waits on, and (through *holder) whom it waits for. */
void exec_describe_wait(struct execution *ex, const struct mthread *t, char *buf, size_t len, int *holder);
/* Fills the source-terms part of ev (op, object, value, where and their raw
 * fields) for the operation t is stopped before; returns the DWARF type of
 * the object it accesses, when known. */
const struct dwarf_type *exec_describe_op(struct execution *ex, const struct mthread *t, struct trace_event *ev);
/* After the step ran: the value a write stored. */
void exec_note_written_value(struct execution *ex, struct mthread *t);
/* Records the object a modeled call works on, for the sync-object view. */
void exec_register_call_objects(struct execution *ex, const struct mthread *t, enum model_fn fn,
                                uint64_t arg0, uint64_t arg1);
/* Registers the sync objects the program declares (globals of sync types). */
void exec_register_declared_objects(struct execution *ex);
/* One thread as the state shows it. */
void exec_describe_thread(struct execution *ex, const struct mthread *t, struct state_thread *st);
/* The state after the last step; valid until the next call. */
const struct exec_state *exec_build_state(struct execution *ex);
void exec_view_free(struct execution *ex);

/* virtual_clock.c: answers a call of the vDSO's clock functions (fn) and
 * returns from it to ret; false to let the real one run. */
bool exec_answer_clock(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t ret);
/* A sleep (stopped at its syscall) moves the virtual clock on. */
void exec_clock_sleeps(struct execution *ex, struct mthread *t);

/* heap_calls.c: at the entry of a heap function called from user code. */
void exec_heap_call(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t ret);
/* t stopped at a breakpoint at `at`: finishes its heap call if this is
 * where it returns; true when `at` is one of the return breakpoints (t is
 * then set up to go on). */
bool exec_heap_return(struct execution *ex, struct mthread *t, uint64_t at);

/* misuse.c: pthread API misuse by the thread about to make (or making) a
 * modeled call; fills the failure in ex->res and returns true. */
bool exec_check_misuse(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t arg0, uint64_t arg1);

#endif
