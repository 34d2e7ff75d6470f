/* lc_run: one scenario checked: the outcomes of its serial orders (the
 * harness run natively, one call at a time), then `mdat run` on the
 * harness with those outcomes as its --check, and what that run's --json
 * summary says. Exploration, replay files, traces and schedule shrinking
 * are mdat run's; this file only drives it. */
#ifndef MDAT_UI_LINCHECK_RUN_H
#define MDAT_UI_LINCHECK_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/lincheck/lc_orders.h"
#include "ui/lincheck/lc_scenario.h"
#include "ui/lincheck/lc_spec.h"

struct lc_result;

/* Explores the harness run as argv (the harness and its scenario) with
 * check_cmd as the output checker, seed and the settings' strategy, into
 * dir, and fills out's executions, proved and failure fields (verdict
 * LC_PASSED or LC_FAILED), or LC_ERROR with out->error. mdat grade explores
 * in its own process this way; NULL: `mdat run` is run. */
typedef void lc_explore_fn(void *ctx, char *const *argv, int argc, const char *check_cmd, uint64_t seed,
                           const char *dir, struct lc_result *out);

struct lc_settings {
    const char *self;           /* mdat's own executable */
    const char *harness;        /* the built harness */
    const char *strategy;       /* dpor (sc) or portfolio */
    const char *memory_model;   /* sc or tso */
    uint64_t schedules;         /* -n per scenario */
    bool quiescent;
    bool real_time;             /* linearizability: serial orders must keep real time */
    bool shrink_schedule;       /* false: --no-shrink */
    lc_explore_fn *explore;     /* NULL: `mdat run` explores each scenario */
    void *explore_ctx;
};

enum lc_verdict { LC_PASSED, LC_FAILED, LC_ERROR };

struct lc_result {
    enum lc_verdict verdict;
    bool proved;                /* dpor went through every class with no failure */
    uint64_t executions;        /* schedules run (dpor: classes) */
    size_t serial_orders;
    struct lc_outcomes allowed;
    char dir[4096];             /* the scenario's output folder */
    char kind[32];              /* the failure kind: checker, crash, race, ... */
    char message[512];
    char schedule_file[4096];
    char stdout_file[4096];
    char log_file[4096];        /* mdat run's own report */
    char error[512];            /* LC_ERROR: why */
    char schedule_sha256[65];   /* the schedule as mdat wrote it, when explored in-process ("" if unknown) */
};

/* Checks scenario s with seed (passed to mdat run) in folder dir. The
 * serial runs start as the program's user when one is set
 * (spawn_set_program_user: in mdat grade's sandbox), as every other run of
 * the code under test there. */
void lc_run_scenario(const struct lc_spec *spec, const struct lc_settings *set, const struct lc_scenario *s,
                     uint64_t seed, const char *dir, struct lc_result *out);
void lc_result_free(struct lc_result *r);

#endif
