/* session: one program under a person's control, step by step (the model
 * behind `mdat attach`).
 *
 * Owns the program, the interactive strategy, the path being explored (the
 * choices made so far and any recorded future: a loaded schedule, or what
 * lay ahead before stepping back), the events, states and captured output of
 * the current execution, breakpoints and watches. Going back in time is
 * deterministic re-execution of the path's prefix. A frontend (the TUI, or
 * a test acting for a person) sees an immutable view at every question and
 * answers with a command; the session never draws and never reads keys. */
#ifndef MDAT_SUPERVISOR_SESSION_H
#define MDAT_SUPERVISOR_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/detect/detectors.h"
#include "supervisor/engine/execution.h"
#include "supervisor/explore/schedule.h"
#include "supervisor/trace/trace.h"

/* What the session asks. */
enum session_ask {
    ASK_THREAD,     /* which thread runs the next step (view.candidates) */
    ASK_WAITER,     /* a wake-up with several waiters: which one wakes (view.candidates, view.waker) */
    ASK_ENDED,      /* the execution has ended (view.result): go back, save, load or quit */
};

enum { SESSION_MAX_WATCHES = 16, SESSION_MAX_BREAKPOINTS = 32 };

struct session_breakpoint {
    char file[64];              /* base name of the source file */
    unsigned line;
};

/* Everything a frontend shows, valid only during the call that hands it over. */
struct session_view {
    const char *program;        /* absolute path */
    enum session_ask ask;
    const int *candidates;      /* threads that can run, or waiters that can wake */
    size_t n_candidates;
    int waker;                  /* ASK_WAITER: the thread whose wake it is */
    int recorded_next;          /* the thread (or waiter) the path chooses next; 0 if unknown */

    uint64_t step;              /* visible steps done */
    uint64_t reach;             /* steps known along the path (>= step); n of "step k of n" */
    bool end_known;             /* the path was followed to its end once: reach is its length */
    const char *mode;           /* "live", "replaying", "exited 0", "deadlock", "crashed", ... */
    bool tso;                   /* --memory-model tso: candidates may be -T, "flush T's oldest store" */
    bool unsaved;               /* the path has choices no saved or loaded file holds */

    const struct exec_state *state;     /* now (before the next step; final at ASK_ENDED) */
    const struct exec_state *previous;  /* one step earlier, NULL at step 0: what changed */
    const struct trace_event *events;   /* of this execution, oldest first (maybe not from step 1) */
    size_t n_events;
    const char *output;         /* the program's stdout and stderr, as captured (tail) */
    size_t output_len;
    const struct exec_result *result;   /* ASK_ENDED only */

    const struct session_breakpoint *breakpoints;
    int n_breakpoints;
    const char *const *watches; /* the watched expressions */
    int n_watches;
    const char *notice;         /* what the last command did or why it could not ("" if nothing) */
    bool notice_is_error;
    const char *schedule_file;  /* last saved or loaded file, "" if none */
};

enum session_verb {
    SV_STEP,            /* thread: run its next step (ASK_WAITER: wake it); -T under tso: flush
                         * T's oldest buffered store */
    SV_RUN,             /* thread: run it until it blocks, exits, reaches a breakpoint or `line` */
    SV_CONTINUE,        /* text "pct" or "random": that strategy runs the rest of the execution */
    SV_GOTO,            /* step: back by re-execution, forward along the recorded path */
    SV_SAVE,            /* text: the path as a schedule file */
    SV_LOAD,            /* text: a schedule file of this program, followed from its start */
    SV_WATCH_ADD,       /* text: expression */
    SV_WATCH_REMOVE,    /* index (0-based) */
    SV_BREAK_TOGGLE,    /* text: file base name ("" = the file of `thread`'s location), line */
    SV_QUIT,
};

struct session_command {
    enum session_verb verb;
    int thread;
    uint64_t step;
    unsigned line;
    int index;
    char text[PATH_MAX];
};

struct session_frontend {
    /* Shows v and says what to do next (fills cmd). Called at every
     * question; called again after a command that does not move the
     * execution (save, a breakpoint, a refused step). */
    void (*decide)(void *ctx, const struct session_view *v, struct session_command *cmd);
    /* A long re-execution or run is under way: `done` steps of `total` (0:
     * unknown), `what` says what. Returns true to cancel: the session then
     * stops where it got to and asks. May be NULL. */
    bool (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total);
    void *ctx;
};

struct session_options {
    char *const *argv;          /* program and its arguments; NULL with replay_file */
    int argc;
    const char *replay_file;    /* start by following this schedule (its program unless argv names one) */
    const char *const *watches;
    int n_watches;
    uint64_t max_steps;         /* 0: 1000000 */
    uint64_t seed;              /* for the strategies of SV_CONTINUE */
    int depth;                  /* PCT depth, 0: 3 */
    /* Races and invariants that judge every step (a failure like any
     * other); with replay_file and !detect_given, the schedule's own. */
    struct detect_options detect;
    bool detect_given;
    /* --memory-model tso: stores wait in per-thread buffers and flushing
     * one is a choice. A loaded schedule brings its own model; with
     * replay_file and memory_model_given, a different one is an error. */
    bool tso;
    bool memory_model_given;
};

struct session;

/* Loads the program (and schedule). On failure NULL and a one-line reason. */
struct session *session_open(const struct session_options *opt, char *err, size_t errlen);
/* Runs executions until the frontend quits. false with a reason when mdat
 * itself failed (the program could not be started, ptrace failed). */
bool session_run(struct session *s, const struct session_frontend *fe, char *err, size_t errlen);
void session_close(struct session *s);

/* The source file and line of a runtime code address of the executable (a
 * thread's next.pc). path is the file as it can be opened (DWARF's name,
 * else tried next to the program and in the current directory); false when
 * the address has no line. */
bool session_source_of(const struct session *s, uint64_t pc, char *path, size_t len, unsigned *line);

/* A readable path for a source file known by its base name (a blocked
 * thread's location names only that): the file of a step of this
 * execution with that name, else next to the program or in the current
 * directory. false (path: the name) when none is found. */
bool session_source_named(const struct session *s, const char *file, char *path, size_t len);

#endif
