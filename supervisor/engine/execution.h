/* execution: one run of the program under mdat, from spawn to the end.
 *
 * Owns the scheduling loop (exactly one thread runs at a time, each stopped
 * before its next visible operation), the handling of every ptrace stop, the
 * futex emulation's effect on threads, the virtual clock, and the detectors
 * that turn what happened into a failure (deadlock, assertion, crash, misuse,
 * step limit, timeout). Observers get every step as a trace event and, when
 * asked, the whole state after it (trace.h). */
#ifndef MDAT_SUPERVISOR_EXECUTION_H
#define MDAT_SUPERVISOR_EXECUTION_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/engine/code_map.h"
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/trace/failure.h"
#include "supervisor/engine/choices.h"
#include "supervisor/engine/strategy.h"
#include "supervisor/trace/trace.h"

struct exec_config {
    const debuginfo *exe;
    code_map *code;
    const char *path;               /* absolute path of the program */
    char *const *argv;              /* argv[0] is the program */
    struct strategy *strategy;
    uint64_t exec_seed;
    uint64_t estimated_steps;       /* for PCT */
    uint64_t max_steps;
    double timeout_sec;
    int stdin_fd, stdout_fd, stderr_fd;  /* -1: inherit */
    trace_sink on_event;            /* NULL: no per-event callback */
    bool want_state;                /* on_event also gets the exec_state after each step */
    bool describe_events;           /* fill the recent events even without on_event */
    const char *const *watches;     /* expressions whose values every exec_state carries */
    int n_watches;
    void *event_ctx;
};

enum { EXEC_RECENT_EVENTS = 12 };

struct exec_result {
    enum failure_kind kind;
    bool error;                     /* mdat could not run or model the program */
    char error_message[256];
    char message[512];              /* what went wrong, one line */
    char location[160];             /* "file.c:14" of the failure, "" if unknown */
    char function[96];
    int thread;                     /* mdat thread id that failed, 0 if none */
    struct failure_thread *threads; /* every thread at the end (malloc'd) */
    int n_threads;
    bool exited;                    /* the program ran to its end */
    bool stopped;                   /* the strategy ended it early (strategy.stop) */
    int exit_status;
    int term_signal;
    uint64_t steps;
    uint64_t ptrace_stops;
    struct choice_list choices;
    struct trace_event recent[EXEC_RECENT_EVENTS];  /* ring of the last events */
    uint64_t n_events;
};

/* Runs one execution. Returns false (with res->error set) only when mdat
 * itself failed; a failing program is a successful run with res->kind set. */
bool execution_run(const struct exec_config *cfg, struct exec_result *res);
void exec_result_free(struct exec_result *res);
/* The last events in order, oldest first; returns how many were written. */
int exec_result_recent(const struct exec_result *res, const struct trace_event **out, int max);

#endif
