/* exec_config: what one execution is asked to do (the program, its
 * strategy, limits, observers, model and listeners) and what it answers
 * (the failure found, how the program ended, its choices, its last events).
 * The contract between the engine and whoever runs it (explore/). */
#ifndef MDAT_ENGINE_EXEC_CONFIG_H
#define MDAT_ENGINE_EXEC_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/code/code_map.h"
#include "supervisor/engine/exec_listener.h"
#include "supervisor/engine/exec_model.h"
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/trace/failure.h"
#include "supervisor/engine/choices.h"
#include "supervisor/engine/strategy.h"
#include "supervisor/trace/trace.h"
#include "supervisor/sharing/page_list.h"


enum preempt_policy { PREEMPT_ALL, PREEMPT_SYNC };
enum memory_model { MEMORY_SC, MEMORY_TSO };

struct exec_config {
    const debuginfo *exe;
    code_map *code;
    const char *path;               /* absolute path of the program */
    char *const *argv;              /* argv[0] is the program */
    struct strategy *strategy;
    uint64_t exec_seed;
    uint64_t estimated_steps;       /* for PCT */
    uint64_t max_steps;             /* 0: no limit; reached: incomplete (or livelock) */
    /* 0: none; reached: the execution ends incomplete at once, never
     * judged a livelock (a trial that gives way to another way of running
     * it: one_execution.c, execution 0 without page ownership). */
    uint64_t give_up_steps;
    double timeout_sec;             /* one step longer than this: hang; 0: none */
    double time_limit_sec;          /* the whole execution; reached: incomplete; 0: none */
    bool detect_livelock;           /* judge repeated states (engine/livelock.h) */
    bool judge_spins;               /* and spinning threads at once (spin_watch.h; choices.spins_judged) */
    /* A strategy that prefers progress is offered only the threads that do
     * not spin (strategy.prefers_progress). False: every thread, always
     * (MDAT_NO_SPIN_PREFERENCE=1): a search that trusts no spin judgement,
     * the other side of scripts/dpor-vs-dfs. Choices replay either way. */
    bool spin_preference;

    /* Record no choices in exec_result.choices: the caller finds a failing
     * execution again from its seed and index, and a long execution's
     * choices (16 bytes for nearly every step among many threads) would
     * be most of mdat's memory. */
    bool forget_choices;
    /* Where the strategy may take the processor from a thread that could go
     * on (--preempt): everywhere, or only before calls, system calls and
     * thread ends (a memory access runs on in the same thread), plus the
     * accesses at code addresses preempt_at accepts (NULL: none). */
    enum preempt_policy preempt;
    /* Sequentially consistent (every store seen by all at once) or x86-TSO
     * (stores wait in per-thread buffers; flushing one is a choice). */
    enum memory_model memory_model;
    bool (*preempt_at)(void *ctx, uint64_t pc);
    void *preempt_ctx;
    int stdin_fd, stdout_fd, stderr_fd;  /* -1: inherit */
    trace_sink on_event;            /* NULL: no per-event callback */
    bool want_state;                /* on_event also gets the exec_state after each step */
    /* on_event hears of the steps from this one on (0 or 1: every step):
     * a recording that keeps only a long execution's last steps builds no
     * state and renders nothing before them. Earlier steps are still
     * described (the model follows every step). */
    uint64_t events_from_step;
    bool describe_events;           /* fill the recent events even without on_event */
    const char *const *watches;     /* expressions whose values every exec_state carries */
    int n_watches;
    void *event_ctx;
    /* The fork server (exec_template.h) to take the program from instead
     * of starting it: NULL starts it afresh. Made with the same stdio and
     * the same describe_events/heap tracking as this execution. */
    struct exec_template *tmpl;
    /* The source-terms view (names, waits, misuse, states): model/'s
     * source_model, or NULL for none (exec_model.h). */
    const struct exec_model_ops *model;
    /* Detectors told about every step (exec_listener.h). */
    const struct exec_listener *listeners;
    int n_listeners;
    /* Page ownership (engine/exec_pages.h): only accesses to shared pages
     * are steps. Needs tmpl prepared for it. observed: pages (addresses)
     * shared from the start. */
    bool own_pages;
    const uint64_t *observed;
    size_t n_observed;
    /* Pages threads read side by side: shared for reading, not observed,
     * until one of them writes (page_owners_readers). */
    const uint64_t *read_shared;
    size_t n_read_shared;
};

/* Why an execution must run again (exec_result.restart): it shared pages
 * unordered that it did not observe, or ran out of protection keys. */
enum restart_reason { RESTART_NONE, RESTART_OBSERVE_PAGES, RESTART_OBSERVE_ALL };

enum { EXEC_RECENT_EVENTS = 12, EXEC_CAUSE_STEPS = 12 };
/* A checker failure's evidence: the first lines of the output and of
 * what the checker said, at most this many lines and bytes each. */
enum { EXEC_EVIDENCE_LINES = 8, EXEC_EVIDENCE_MAX = 720 };

/* Why mdat's supervisor took a ptrace stop: one that ends a step, or one
 * that costs without being a step (what scripts/bench reports against the
 * ideal of one stop per visible step). */
enum stop_reason {
    STOP_REASON_STEP,             /* ends a step: a visible operation reached, an exit */
    STOP_REASON_SINGLE_STEP,      /* an instruction run by the CPU under a breakpoint */
    STOP_REASON_OWN_ACCESS,       /* a breakpoint whose access was the thread's own stack or a constant */
    STOP_REASON_LIBRARY_ATOMIC,   /* an atomic instruction inside a library (for the race detector) */
    STOP_REASON_CALL,             /* a modeled call that is no step: from library code, malloc, init, a clock */
    STOP_REASON_RETURN,           /* the return of a call whose result mdat reads (malloc's block) */
    STOP_REASON_SYSCALL,          /* a modeled system call that is not a step (a futex wake) */
    STOP_REASON_THREAD_START,     /* a clone or fork event, a new thread's first stop */
    STOP_REASON_THREAD_END,       /* a thread's exit after its exit event */
    STOP_REASON_SIGNAL,           /* a signal the program handles */
    STOP_REASON_PAGES,            /* page ownership: a fault that was no step, key changes, a call followed to its end */
    STOP_REASON_TAIL_CALL,        /* the user's code jumping into a library (a tail call), noted as the user's frame */
    STOP_REASON_COUNT
};

const char *stop_reason_name(enum stop_reason k);

/* What an execution did that its steps did not account for (exec_grounds.h):
 * an effect between threads, or of the world on them, that no visible step
 * carried, so that a search reordering steps cannot have reordered it. */
enum grounds_kind {
    GROUNDS_KEPT,               /* none: every effect was a step's */
    GROUNDS_LIBRARY_SYNC,       /* a library synchronised threads by its own means (libgomp's atomics) */
    GROUNDS_SIGNAL,             /* a signal delivered at a time no choice decided */
    GROUNDS_PROCESS,            /* another process ran beside the program (fork, clone without a thread) */
    GROUNDS_EXEC,               /* the program replaced itself (execve) */
    GROUNDS_UNDECODED,          /* an instruction mdat could not decode ran */
    GROUNDS_UNOBSERVED,         /* memory was shared outside any step */
    GROUNDS_KIND_COUNT
};

/* The short name --json and the reports use ("futex", "signal"...). */
const char *grounds_kind_name(enum grounds_kind k);

/* The first effect that voided the grounds of an execution. */
struct grounds_loss {
    enum grounds_kind kind;     /* GROUNDS_KEPT: the execution kept its grounds */
    uint64_t step;              /* during which step (1-based, as the trace numbers them) */
    int thread;                 /* whose step it was (0: none ran) */
    char what[200];             /* one line: what happened, where */
};

struct exec_result {
    enum failure_kind kind;
    bool error;                     /* mdat could not run or model the program */
    char error_message[512];
    char message[512];              /* what went wrong, one line */
    char location[160];             /* "file.c:14" of the failure, "" if unknown */
    char function[96];
    int thread;                     /* mdat thread id that failed, 0 if none */
    struct failure_thread *threads; /* every thread at the end (malloc'd) */
    int n_threads;
    bool exited;                    /* the program ran to its end */
    bool not_started;               /* it ended before its entry point (error is set) */
    /* Cut short from outside (error is set): a signal neither mdat nor the
     * program sent killed it, or the fork server died. No verdict. */
    bool interrupted;
    bool stopped;                   /* the strategy ended it early (strategy.stop) */
    enum incomplete_reason incomplete;  /* cut short while making progress (no failure) */
    int exit_status;
    int term_signal;
    /* The captured output was cut at this many bytes (--max-output; set by
     * the explore layer), 0 when whole. */
    uint64_t output_cut_at;
    /* Set by the explore layer once the output is judged: a data race was
     * found (whatever else failed), and the checker ran on the output and
     * accepted it. */
    bool raced;
    bool output_accepted;
    /* A checker failure's evidence (set by the explore layer with the
     * verdict): the first lines of the output the checker was given, how
     * many lines it had in all, and the first lines the checker printed;
     * "" when there were none. */
    char output_head[EXEC_EVIDENCE_MAX];
    uint64_t output_lines;
    char checker_said[EXEC_EVIDENCE_MAX];
    uint64_t steps;
    uint64_t ptrace_stops;
    /* Page ownership's own work: touches of pages a thread could not touch
     * natively, judged, and system calls followed for it. Unlike stops, it
     * does not depend on running ahead (explore/observe_choice.c). */
    uint64_t ownership_events;
    /* What the stops were for (stop_reason_name); the stops of forked
     * children and of the fork server are in ptrace_stops only. */
    uint64_t stops_by_reason[STOP_REASON_COUNT];
    /* The first effect its steps did not account for (exec_grounds.h),
     * and how many there were in all: a systematic search that ran it
     * proves nothing. */
    struct grounds_loss grounds;
    uint64_t grounds_lost;
    struct choice_list choices;
    struct trace_event recent[EXEC_RECENT_EVENTS];  /* ring of the last events */
    uint64_t n_events;
    /* The steps that led to the failure, oldest first, however far back
     * (detect/cause_steps.h; filled by the explore layer when the events
     * were described). */
    struct trace_event cause[EXEC_CAUSE_STEPS];
    int n_cause;
    /* The values of exec_config.watches when the program ended, or where
     * it failed (malloc'd; NULL when there are none, or mdat ended the
     * program otherwise: a step limit, a strategy's stop). */
    struct state_watch *final_watches;
    int n_final_watches;
    /* With own_pages: the execution is no verdict, it must run again with
     * restart_pages observed as well (or every access observed). */
    enum restart_reason restart;
    struct page_list restart_pages;         /* to observe from the start */
    struct page_list restart_read_shared;   /* to share for reading from the start */
};



void exec_result_free(struct exec_result *res);
/* The last events in order, oldest first; returns how many were written. */
int exec_result_recent(const struct exec_result *res, const struct trace_event **out, int max);

#endif
