/* explore: many executions of one program, and what they found.
 *
 * Owns the batch: loading the program once (debug info, breakpoint plan,
 * SHA-256), seeding execution i from (seed, i), parallel workers pinned to
 * their own CPUs, output capture and the --check checker, choosing which
 * failures to report (the lowest execution index first, so the answer does
 * not depend on -j), shrinking each reported failure (shrink.h) and
 * re-running it once with its trace recorded in every format into the
 * output directory, and with --outcomes the table of how executions ended
 * (outcomes.h).
 *
 * Implemented by program.c (loading), driver.c (the batch, replay and
 * shrinking a schedule), workers.c, one_execution.c, failure_record.c,
 * shrink.c and outcomes.c. */
#ifndef MDAT_SUPERVISOR_EXPLORE_H
#define MDAT_SUPERVISOR_EXPLORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "supervisor/code/code_map.h"
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/detect/detectors.h"
#include "supervisor/engine/execution.h"
#include "supervisor/explore/outcomes.h"
#include "supervisor/explore/program_input.h"
#include "supervisor/explore/schedule.h"
#include "supervisor/strategies/strategies.h"
#include "supervisor/sharing/page_list.h"

#include "supervisor/launch/spawn.h"
#include "supervisor/trace/trace_tee.h"

/* The program under test, loaded once. */
struct program {
    char path[PATH_MAX];        /* absolute */
    char sha256[65];
    debuginfo *debug;
    code_map *code;
};

/* Validates and loads path. On failure: false and a one-line reason. */
bool program_load(struct program *p, const char *path, char *err, size_t errlen);
void program_free(struct program *p);

struct explore_options {
    char *const *argv;          /* argv[0] = program as the user named it */
    int argc;
    uint64_t schedules;
    uint64_t seed;
    const char *strategy;       /* random | pct | pos | surw | dfs | dpor */
    int depth;
    /* dfs: what bounds the search (DFS_PREEMPTIONS or DFS_DELAYS) and up to
     * which bound (-1: until the space is exhausted). */
    int dfs_bound;
    int max_bound;
    int jobs;
    uint64_t max_steps;         /* 0: none; reached: the execution is incomplete (or a livelock) */
    double timeout_sec;         /* one step longer than this is a hang */
    double time_limit_sec;      /* one execution longer than this is incomplete; 0: none */
    uint64_t max_output;        /* bytes kept of each captured stdout and stderr; 0: OUTPUT_CAP_DEFAULT */
    /* What every execution reads on its standard input (NULL: /dev/null). */
    const struct program_input *input;
    const char *check_cmd;      /* NULL: none */
    bool fail_on_exit;
    /* Data races (--races) and invariants (--invariant): what judges each
     * step besides the engine. Saved schedules record them. */
    struct detect_options detect;
    enum preempt_mode preempt;
    bool tso;                   /* --memory-model tso */
    /* Page ownership (engine/exec_pages.h): only accesses to memory more
     * than one thread touches are steps. Decided by the driver (the
     * machine, the strategy, the memory model); observed: the pages every
     * execution observes from its start (what execution 0 found shared,
     * or a schedule's), NULL when none; read_shared: those it shares for
     * reading. */
    bool own_pages;
    const struct page_list *observed, *read_shared;
    bool keep_going;

    /* Each reported failure is shrunk (shrink.h) before it is saved, within
     * shrink_runs re-executions and shrink_seconds of wall-clock time
     * (0: no time limit). */
    bool shrink;
    /* --outcomes: group the executions by how they ended (outcomes.h) and
     * save a schedule of each outcome (implies keep_going). */
    bool outcomes;
    /* Each outcome's schedule is named by its execution alone, not by its
     * rank in the table (a grading shard's table is part of the whole's). */
    bool outcome_files_unranked;
    uint64_t shrink_runs;
    double shrink_seconds;
    /* Grading: run every execution (as keep_going) and count the failing
     * ones, but report only the failure with the lowest index; an execution
     * mdat could not run fails the whole exploration. */
    bool count_all;
    /* Run only executions first..schedules-1 (a shard's range). Execution 0
     * still runs first, uncounted, when first > 0: its length is PCT's
     * estimate for all the others. */
    uint64_t first;
    /* mdat run --shard K/N: run only the executions i with i % N == K - 1
     * (shards 0: all). Execution 0 is shard 1's; every other shard still
     * runs it first, uncounted, for what it teaches the others (PCT's
     * estimate, the pages found shared), so each execution stays a function
     * of seed and index whichever shard runs it. */
    uint32_t shard, shards;
    /* Resource limits of the program in every execution (NULL: none).
     * limits->nproc is an allowance here: processes and threads an execution
     * may add to those the user runs when the exploration starts, since
     * RLIMIT_NPROC counts the whole user. Saved schedules record them. */
    const struct spawn_limits *limits;
    const char *out_dir;
    /* --trace: every execution rendered on trace_out in this format; NULL: none. */
    const struct trace_format *trace;
    bool trace_every_step;
    FILE *trace_out;
    /* One trace file per format is saved with each failure (NULL-terminated;
     * the ui passes its registry, since the supervisor knows no renderer). */
    const struct trace_format *const *saved_trace_formats;
    /* The trace files saved with a failure keep every step (else about the
     * last TRACE_TAIL_STEPS: long executions write bounded files). */
    bool full_trace;
    /* Fill each execution's last steps even when it is not traced. */
    bool describe_steps;
    /* --watch: expressions whose values traces and states carry. */
    const char *const *watches;
    int n_watches;
    bool show_output;           /* the program's output goes to the terminal */
    /* Called after each execution with the number done so far (progress). */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, uint64_t failures);
    void *progress_ctx;
    /* Non-NULL: once *stop is non-zero (a signal came), no further
     * execution starts, and the summary holds those run so far. It must be
     * in memory shared with the forked workers (MAP_SHARED). */
    const volatile int *stop;
    /* Made from `detect` by explore_run and explore_replay for their
     * executions (callers leave it NULL). */
    struct detectors *detectors;
};

/* A trace file saved with a failure. */
struct saved_trace {
    const char *format;         /* its trace_format's name */
    char path[PATH_MAX];
};

struct explore_failure {
    uint64_t execution;
    struct exec_result result;  /* of the recorded re-run */
    bool reproduced;            /* the re-run failed the same way */
    enum failure_kind found;    /* what the exploring run saw */
    char schedule_file[PATH_MAX];
    struct saved_trace traces[TRACE_TEE_MAX];
    int n_traces;
    char stdout_file[PATH_MAX];
    char stderr_file[PATH_MAX];
    /* Shrinking: the saved schedule, traces and output are those of the
     * shrunk execution; the original schedule is kept in original_file. */
    bool shrunk;
    uint64_t steps, preemptions;                    /* of the saved schedule */
    uint64_t original_steps, original_preemptions;
    uint64_t shrink_runs;
    double shrink_seconds;
    bool shrink_out_of_time;
    char original_file[PATH_MAX];
    /* Files that could not be written (a full disk), "PATH (reason), ...";
     * the schedule, written first, is never among them. */
    char unwritten[1024];
    /* The SHA-256 of the schedule as mdat wrote it (while no execution ran:
     * what a program run later may do to the file cannot change it); "" if
     * unknown. */
    char schedule_sha256[65];
    /* Found, its schedule saved when it was found (--keep-going), but not
     * recorded again: a signal stopped mdat first. Only execution, found,
     * schedule_file and result.location/kind are meaningful. */
    bool saved_only;
};

struct explore_summary {
    uint64_t schedules_run;
    double elapsed_sec;
    uint64_t steps_total;
    uint64_t ptrace_stops_total;
    uint64_t ptrace_stops_by_reason[STOP_REASON_COUNT];
    /* Failing executions by kind (every one with keep_going or count_all;
     * without, only those that ran before the exploration stopped). */
    uint64_t failing[FAIL_KIND_COUNT];
    /* Executions in which a data race was found, whatever else failed
     * (with --races fail-at-end one may fail the checker and race), and
     * those whose output the checker accepted. */
    uint64_t raced;
    uint64_t output_accepted;
    /* Executions cut short while making progress (no failure): how many,
     * and the most steps one of them had reached. */
    uint64_t incomplete;
    uint64_t incomplete_steps;
    enum incomplete_reason incomplete_reason;
    struct explore_failure *failures;
    size_t n_failures;
    uint64_t exit_status_first;     /* exit status of execution 0 */
    /* With opt->outcomes: every outcome, most frequent first, each with its
     * saved schedule. A systematic search counts each distinct execution
     * once (dpor: one per class; one it cut short is no outcome). */
    struct outcome_table outcomes;
    /* A systematic strategy (dfs, dpor): whether it went through its whole
     * space (then the outcome table is every reachable outcome, not a
     * sample), how many distinct executions it made (dpor: classes of
     * equivalent interleavings, dfs: schedules) and the bound it reached
     * (dfs; -1: none). */
    bool systematic;
    bool searched_all;  /* the strategy went through its whole space (exhaustive if nothing below voids it) */
    bool exhaustive;
    bool too_long;      /* the search ended, but an execution was too long to analyse: no proof */
    /* The search ended, but some execution had an effect its steps did not
     * account for (engine/exec_grounds.h): the first one, the execution it
     * was in, and how many executions had one. No proof either. */
    struct grounds_loss grounds;
    uint64_t grounds_execution;
    uint64_t grounds_executions;
    uint64_t classes;
    int bound;
    /* explore_run returned false because something outside killed the
     * program or its fork server: the summary is still of the executions
     * decided until then (to be freed), and the reason says what. */
    bool interrupted;
};

/* Runs the exploration. Returns false with a one-line reason when mdat
 * itself could not do its job (exit status 3); with sum->interrupted the
 * summary is still valid. */
bool explore_run(struct program *prog, const struct explore_options *opt, struct explore_summary *sum,
                 char *err, size_t errlen);
void explore_summary_free(struct explore_summary *sum);

/* The path of the failure's trace in that format, NULL if none was saved. */
const char *explore_failure_trace(const struct explore_failure *f, const char *format);

/* Re-executes a schedule (the replay strategy), judged with the settings it
 * records, rendered through trace (NULL: not traced). false with a reason
 * when mdat failed or the run diverged. */
bool explore_replay(struct program *prog, const struct schedule *sched, struct trace_tee *trace, bool show_output,
                    const char *const *watches, int n_watches, struct exec_result *res, char *err, size_t errlen);
/* Shrinks the failure a schedule makes (shrink.h), judged with the settings
 * it records, within max_runs re-executions and max_seconds (0: no limit).
 * shrunk (initialised by the call when true) gets sched with the shortest
 * choices. false with a reason when the schedule does not fail, fails by a
 * hang, or mdat failed. */
struct shrink_outcome;
bool explore_shrink(struct program *prog, const struct schedule *sched, uint64_t max_runs, double max_seconds,
                    struct schedule *shrunk, struct shrink_outcome *out, char *err, size_t errlen);
/* The input a schedule records, checked against its SHA-256; in is
 * program_input_none when the schedule has none. */
bool explore_schedule_input(const struct schedule *sched, struct program_input *in, char *err, size_t errlen);

/* mkdir -p: the output directory may be several levels deep. false with
 * errno set when it cannot be made or is not a directory. */
bool make_directories(const char *path);

/* Builds the strategy of that name (dfs: bounded by preemptions, without a
 * limit); NULL for an unknown name. depth 0: PCT's depth chosen per
 * execution within what budget (executions) affords. */
struct strategy *strategy_by_name(const char *name, int depth, uint64_t budget);
/* The strategy opt asks for, with its depth or bound. */
struct strategy *strategy_for_options(const struct explore_options *opt);
/* The strategy as a schedule records execution index's: the portfolio's
 * names its member ("portfolio/surw"). */
void strategy_recorded_name(const char *name, uint64_t index, char *buf, size_t len);
/* Before execution index (not the first): what execution 0 taught, for
 * the strategies that learn (surw, the portfolio's surw). */
void strategy_teach(struct strategy *s, uint64_t index, const struct strategy_profile *profile);
/* dfs and dpor: each execution depends on the ones before (run in order,
 * in one process, whatever -j says). */
bool strategy_is_systematic(const char *name);
/* random, pct, pos, surw, portfolio, dfs or dpor. */
bool strategy_name_known(const char *name);
/* What a run's first line says of a strategy's settings: " (depth 3)" for
 * pct, the members and pct's depth for the portfolio, "" otherwise. */
void strategy_settings_text(const char *name, int depth, char *buf, size_t len);

/* The distance between two executions one process runs (the shards' N,
 * else 1), and how many executions of 0..schedules-1 are this run's. */
uint64_t explore_spacing(const struct explore_options *opt);
uint64_t explore_executions_owned(const struct explore_options *opt);

/* Runs the checker command with the file behind fd as its standard input.
 * Returns its exit status (0 = output accepted); said gets the start of
 * what it printed (stdout and stderr, at most len - 1 bytes). -1 if it
 * could not be started. */
int run_checker(const char *cmd, int input_fd, char *said, size_t len);

#endif
