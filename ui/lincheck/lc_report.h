/* lc_report: what lincheck prints: a failing scenario as a table of
 * threads, calls and results with the impossible ones marked, the
 * outcomes serial orders give, mdat run's report of the interleaving and
 * the replay command; and the --json summary. */
#ifndef MDAT_UI_LINCHECK_REPORT_H
#define MDAT_UI_LINCHECK_REPORT_H

#include <stdio.h>

#include "ui/lincheck/lc_run.h"

/* The scenario, the headline (NOT LINEARIZABLE: ...), the table and the
 * outcomes serial orders give: the part of the report mdat grade keeps. */
void lc_report_table(FILE *f, const struct lc_spec *spec, const struct lc_scenario *s, const struct lc_result *r,
                     int scenario_index, bool quiescent, bool real_time);
/* The table, then the interleaving, mdat run's report and the replay command. */
void lc_report_failure(FILE *f, const struct lc_spec *spec, const struct lc_scenario *s, const struct lc_result *r,
                       int scenario_index, bool quiescent, bool real_time);

struct lc_summary {
    const char *spec_path;
    uint64_t seed;
    int scenarios_requested, scenarios_run, proved, failed;
    int all_classes;            /* scenarios dpor went through whole */
    uint64_t executions;
    const char *memory_model, *strategy;
    bool quiescent, real_time;
    /* The failure, when one was found (after shrinking). */
    const struct lc_scenario *failing;
    const struct lc_result *failure;
    int failing_index;
    int original_calls;
};

bool lc_report_json(const char *path, const struct lc_spec *spec, const struct lc_summary *sum);

#endif
