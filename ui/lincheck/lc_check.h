/* lc_check: the scenarios of a lincheck run checked one by one (lc_run.c),
 * a line printed for each, the first failing one shrunk to the fewest
 * calls that still fail the same way and reported (lc_report.c). Shared by
 * `mdat lincheck` (cmd_lincheck.c, which stops at the first failure) and
 * `mdat grade --lincheck` (ui/grade/grade_lincheck.c, which checks every
 * scenario of its range so that shards add up). Options, the harness's
 * build and the summary's wording are the callers'. */
#ifndef MDAT_UI_LINCHECK_CHECK_H
#define MDAT_UI_LINCHECK_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ui/lincheck/lc_run.h"
#include "ui/lincheck/lc_scenario.h"
#include "ui/lincheck/lc_spec.h"

struct lc_check_plan {
    const struct lc_spec *spec;
    const struct lc_settings *set;
    const char *out_dir;        /* absolute: scenario-K folders go there */
    uint64_t seed;              /* scenario K uses seed + K */
    int first, end;             /* scenarios first..end-1, numbered from 1 */
    int threads, ops, init, post;
    bool stop_at_failure;       /* else every scenario of the range is checked */
    bool shrink;                /* the first failing scenario is shrunk */
};

struct lc_check_outcome {
    int scenarios_run;
    int proved;                 /* passed and proved (without real time: dpor's every class) */
    int all_classes;            /* passed with every class of interleavings run (dpor) */
    int failed;                 /* failing scenarios */
    /* Their failure kinds ("checker", "crash", ...) and how many of each. */
    struct { char kind[32]; int count; } failed_kinds[8];
    int n_failed_kinds;
    uint64_t executions;        /* dpor: classes; else executions sampled */
    /* The first failing scenario, shrunk, and its result (failing_index 0:
     * none; then failure is to be freed with lc_result_free). */
    int failing_index;
    int original_calls;
    struct lc_scenario failing;
    struct lc_result failure;
    /* A scenario that could not be run: its number and why (0: none). */
    int error_index;
    char error[1200];
};

/* Checks plan's scenarios, printing a line for each on out (and the first
 * failure's report after it, with report_failure). */
void lc_check_scenarios(const struct lc_check_plan *plan, FILE *out, bool report_failure,
                        struct lc_check_outcome *res);

#endif
