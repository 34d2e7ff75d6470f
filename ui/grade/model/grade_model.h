/* grade_model: what grading decides, the same wherever it is decided: in
 * a unit's grading child, from a shard report (mdat merge) or from the
 * journal (--resume). Owns the settings, verdicts, units and results, the
 * submissions' names, the shard ranges and the replay commands
 * (grade_model.c); their JSON is grade_json.h's, the rubric's scores
 * rubric.h's.
 *
 * The work is cut into units: a unit is one submission's executions
 * first..end-1. Unsharded, a submission is one unit; with --shard K/N, the
 * schedules of every submission are cut into N contiguous ranges and shard
 * K runs range K of each. A unit is run (ui/grade/grade_run.h) into a
 * grade_unit; the units of a submission are combined (grade_aggregate)
 * into its grade_result, and the results written as reports
 * (ui/grade/reports/). mdat merge reads the units of every shard back
 * (ui/grade/grade_shard.h) and does the same, so the merged reports are
 * those of an unsharded run. */
#ifndef MDAT_UI_GRADE_MODEL_H
#define MDAT_UI_GRADE_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/detect/detectors.h"
#include "supervisor/explore/outcomes.h"
#include "supervisor/trace/failure.h"
#include "supervisor/launch/spawn.h"

enum grade_verdict {
    VERDICT_OK,             /* no failure found */
    VERDICT_DEADLOCK,
    VERDICT_ASSERTION,
    VERDICT_CRASH,
    VERDICT_CHECKER,        /* the output checker rejected the output */
    VERDICT_HANG,           /* timeout, step limit (livelock), or the unit's wall-clock limit */
    VERDICT_MISUSE,
    VERDICT_EXIT_STATUS,    /* non-zero exit status, with --fail-on-exit */
    VERDICT_RACE,           /* a data race (with --races=fail, the default) */
    VERDICT_INVARIANT,      /* an --invariant became false */
    VERDICT_SANDBOX,        /* the program tried to signal or ptrace mdat (refused) */
    VERDICT_HEAP,           /* a use after free or a double free */
    VERDICT_TAMPERED,       /* the submission killed or stopped the mdat of its sandbox, or
                             * rewrote its schedule: grading was tampered with */
    VERDICT_BUILD_FAILED,
    VERDICT_MDAT_ERROR,     /* mdat could not grade it (or its grading process died) */
    VERDICT_NOT_GRADED,     /* the grading was interrupted before this one (an incomplete report) */
    VERDICT_LINEARIZABLE,   /* --lincheck: no scenario failed */
    VERDICT_NOT_LINEARIZABLE, /* --lincheck: a scenario's results no serial order gives */
    VERDICT_COUNT
};

/* "ok", "deadlock", ..., "build-failed", "mdat-error": the reports' token. */
const char *grade_verdict_name(enum grade_verdict v);
/* "no failure found", ..., "checker violation", "build failed", "mdat error". */
const char *grade_verdict_text(enum grade_verdict v);
enum grade_verdict grade_verdict_of_failure(enum failure_kind kind);
/* ok, or linearizable: nothing to report against the submission. */
bool grade_verdict_passed(enum grade_verdict v);

/* Everything that decides a verdict, the same for every submission (and
 * every shard: mdat merge refuses shards whose settings differ). Strings
 * are borrowed (from argv, or from a parsed shard report). */
struct grade_settings {
    const char *const *submissions;     /* as given on the command line */
    int n_submissions;
    uint64_t schedules;
    uint64_t seed;
    const char *strategy;
    int depth;
    uint64_t max_steps;
    double timeout_sec;                 /* per execution */
    const char *check_cmd;              /* NULL: none */
    bool fail_on_exit;
    struct detect_options detect;       /* --races, --invariant */
    int preempt;                        /* enum preempt_mode: --preempt */
    bool tso;                           /* --memory-model tso */
    struct spawn_limits limits;         /* nproc: processes and threads an execution may add */
    double unit_timeout_sec;            /* wall clock of a unit (the whole submission unsharded) */
    const char *build_cmd;              /* NULL: submissions are executables */
    const char *exe_name;               /* NULL: the single executable the build produced */
    double build_timeout_sec;
    const char *out_dir;
    bool sandbox;                       /* each unit in a sandbox of its own (grade_sandbox.c) */
    uint64_t max_disk;                  /* bytes a sandboxed unit may write, all files together */
    bool outcomes;                      /* --outcomes: each submission's outcome table */
    const char *const *watches;         /* --watch: part of each outcome */
    int n_watches;
    /* --lincheck SPEC (absolute; NULL: none): each submission is checked
     * by mdat lincheck with this spec instead of explored as a program;
     * schedules is then the budget of each scenario, and units split the
     * scenarios (grade_units_total). */
    const char *lincheck_spec;
    uint64_t lincheck_scenarios;        /* --lincheck-scenarios (default 10) */
    uint64_t lincheck_init;             /* --lincheck-init: calls before the threads start */
};

/* What a submission's units split: its schedules, or with --lincheck its
 * scenarios. */
uint64_t grade_units_total(const struct grade_settings *s);

/* Outcomes a unit keeps (the most frequent); the executions of the others
 * are only counted. */
enum { GRADE_MAX_OUTCOMES = 64 };

/* A failing execution, as the reports show it. */
struct grade_failure {
    uint64_t execution;
    enum failure_kind kind;
    bool reproduced;                    /* the recorded re-run failed the same way */
    char message[512];
    char location[160];                 /* file:line, "" if unknown */
    char function[96];
    char schedule_file[PATH_MAX];
    char program_stderr[200];           /* first line the program wrote on stderr then */
    /* The SHA-256 of the schedule as mdat wrote it, checked against the
     * file copied out of the sandbox (grade_run.c; not in the reports). */
    char schedule_sha256[65];
};

/* --lincheck: what mdat lincheck found in a unit's scenarios (summed over
 * a submission's units in its result). The scenario counts are the unit's
 * schedules_run (checked), failing (failed) and failing_by_kind; the
 * first failing scenario is first_failure (its execution: the scenario's
 * number, from 1), its schedule guarded as any other. */
struct grade_lincheck {
    bool ran;
    uint64_t proved;                    /* scenarios dpor went through whole (sc: SC-proved) */
    uint64_t interleavings;             /* dpor: classes of interleavings; else executions sampled */
    bool dpor;
    char scenario[512];                 /* the first failing scenario, shrunk: "T2 pop() size() | T3 push(1)" */
    char table[2048];                   /* its table and headline, as mdat lincheck prints them */
};

enum unit_status {
    UNIT_GRADED,            /* every execution of the range ran */
    UNIT_BUILD_FAILED,
    UNIT_MDAT_ERROR,
    UNIT_WALL_CLOCK,        /* stopped at the unit's wall-clock limit */
    UNIT_TAMPERED,          /* the submission killed or stopped mdat inside its sandbox, or
                             * rewrote its schedule */
    UNIT_STATUS_COUNT
};
const char *grade_unit_status_name(enum unit_status s);
bool grade_unit_status_from_name(const char *name, enum unit_status *out);

struct grade_unit {
    int submission;                     /* index into settings.submissions */
    uint64_t first, end;                /* executions first..end-1 */
    enum unit_status status;
    char message[512];                  /* why it was not graded (build, mdat, wall clock) */
    char build_output[1024];            /* first lines of the build's output */
    uint64_t schedules_run;             /* UNIT_WALL_CLOCK: those finished before */
    uint64_t failing;                   /* failing executions */
    uint64_t failing_by_kind[FAIL_KIND_COUNT];
    uint64_t raced;                     /* executions with a data race, whatever else failed */
    uint64_t output_accepted;           /* executions whose output the checker accepted */
    bool has_failure;
    struct grade_failure first_failure; /* the lowest failing execution of the range */
    double seconds;                     /* wall time, build included */
    /* --outcomes: the range's outcome table, most frequent first, at most
     * GRADE_MAX_OUTCOMES (the unit's own memory: grade_unit_free), and the
     * executions whose outcomes were past them. */
    struct outcome_table outcomes;
    uint64_t outcomes_left_out;
    struct grade_lincheck lincheck;
};
void grade_unit_free(struct grade_unit *u);

struct grade_result {
    enum grade_verdict verdict;
    char details[1280];                 /* one line (build output apart) */
    uint64_t schedules_run;
    uint64_t failing;
    uint64_t failing_by_kind[FAIL_KIND_COUNT];
    uint64_t raced;                     /* as in grade_unit, summed */
    uint64_t output_accepted;
    bool has_failure;
    struct grade_failure first_failure;
    char build_output[1024];
    double seconds;                     /* summed over the units */
    /* --outcomes: the units' tables as one (grade_result_free). */
    struct outcome_table outcomes;
    uint64_t outcomes_left_out;
    struct grade_lincheck lincheck;
};
void grade_result_free(struct grade_result *r);

/* The combined result of one submission's units (given in any order). */
void grade_aggregate(const struct grade_unit *units, size_t n, struct grade_result *out);

/* The directory name of submission i (0-based) of n: its position and file
 * name, "03-alice": only [A-Za-z0-9._-] kept. */
void grade_submission_name(const char *given, int index, int n, char *out, size_t len);

/* Executions [*first, *end) of shard k of n for `schedules` schedules:
 * floor((k-1)*S/n) to floor(k*S/n). */
void grade_shard_range(uint64_t schedules, int k, int n, uint64_t *first, uint64_t *end);

/* The replay command of a failure: "mdat replay PATH". */
void grade_replay_command(const struct grade_failure *f, char *out, size_t len);

#endif
