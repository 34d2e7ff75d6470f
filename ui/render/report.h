/* report: what `mdat run` and `mdat replay` tell the user, as text, JSON and JUnit XML. */
#ifndef MDAT_UI_REPORT_H
#define MDAT_UI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "supervisor/explore/explore.h"

/* The failure: kind, message, threads, last steps, relevant steps (text, for a terminal). */
void report_failure_text(FILE *f, const struct exec_result *res);
/* A checker failure's evidence (nothing for other kinds): the first lines
 * of the output it rejected, "| "-quoted, and of what the checker said. */
void report_checker_evidence_text(FILE *f, const struct exec_result *res);
/* The same as the member "checker_evidence" of a failure (null for other
 * kinds): output_first_lines, output_lines, checker_said. */
struct json_writer;
void report_json_checker_evidence(struct json_writer *w, const struct exec_result *res);
/* The steps that led to the failure (exec_result.cause), however far
 * back, "..." between steps that are not next to each other; only their
 * numbers when all are from shown_from on (the last steps just printed);
 * nothing when none are known. Part of report_failure_text. */
void report_cause_text(FILE *f, const struct exec_result *res, uint64_t shown_from);
/* Where the failure's schedule, traces and output were saved, and how to replay it. */
void report_failure_files_text(FILE *out, const struct explore_failure *f);

/* Why a systematic search that ended without a failure proves nothing
 * beyond -n: an execution too long for dpor to analyse, one that had an
 * effect its steps did not account for ("grounds lost: ..."), one cut
 * short while making progress. Writes the reason ("grounds lost: T2 made a
 * futex wake ... at step 12 of execution 3") and returns true; false when
 * there is none (the search was exhaustive, or only -n stopped it). */
bool report_search_gap(const struct explore_summary *sum, char *buf, size_t len);

/* mdat run --outcomes: each outcome with its count, share and schedule,
 * in the summary's order; after a systematic search, whether the table is
 * exact (every reachable outcome) or may be incomplete. */
void report_outcomes_text(FILE *out, const struct explore_summary *sum, const struct explore_options *opt);

struct run_description {
    const char *program;
    char *const *args;          /* after argv[0] */
    int n_args;
    const char *strategy;
    uint64_t seed;
    uint64_t schedules_requested;
    bool stopped;               /* a signal stopped the run: the summary is of what ran */
    const char *cut_short;      /* something outside killed the program or its fork server: why (else NULL) */
    /* --shard K/N (shards 0: none): the report is a shard report, with the
     * settings mdat merge checks are the same in every shard. */
    int shard, shards;
    const struct program *prog;
    const struct explore_options *opt;
};

/* The name of a run shard report's format. */
#define RUN_SHARD_FORMAT "mdat-run-shard"


/* One outcome as an element of an array (docs/json.md, "An outcome");
 * total: the executions of its table (share = count / total). */
void report_json_outcome(struct json_writer *w, const struct outcome *o, uint64_t total);

bool report_json_write(const char *path, const struct run_description *run, const struct explore_summary *sum,
                       char *err, size_t errlen);

/* mdat run --junit: writes the JUnit XML report to path (checked with
 * junit_check_path before the run): the program is one test case, failed with the
 * report and replay command of each failure in sum, or in error (error:
 * why mdat could not explore; sum NULL). false with a reason in err. */
bool report_junit_write(const char *path, const struct run_description *run,
                        const struct explore_summary *sum, const char *error, char *err, size_t errlen);

#endif
