/* lc_realtime: the real-time half of the linearizability check. The
 * harness stamps each call with mdat's virtual clock when it begins and
 * when it returns (a function of the schedule: see
 * supervisor/engine/virtual_clock.c) and prints the stamps after the
 * results; this file splits an observed output into results and stamps and
 * says whether a serial order agrees with them (a call that ended before
 * another began comes first). Pure: no processes, no files. */
#ifndef MDAT_UI_LINCHECK_REALTIME_H
#define MDAT_UI_LINCHECK_REALTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/lincheck/lc_orders.h"

enum { LC_RT_MAX_CALLS = 64 };

/* An observed output: its result lines (what serial orders are compared
 * on) and, per call of the parallel part (numbered as in serial orders),
 * when it began and ended. */
struct lc_history {
    char *results;              /* malloc'ed: the lines not starting with '@' */
    int ncalls;                 /* calls with stamps */
    bool stamped[LC_RT_MAX_CALLS];
    int64_t begin[LC_RT_MAX_CALLS], end[LC_RT_MAX_CALLS];
};

/* Splits the harness's output; false when out of memory. */
bool lc_history_parse(const char *observed, struct lc_history *h);
void lc_history_free(struct lc_history *h);

/* Whether order (call numbers separated by commas) keeps real time: no
 * call placed before one that had ended before it began. When not, *late
 * and *early name such a pair (late placed first, early ended first). */
bool lc_order_keeps_real_time(const char *order, const struct lc_history *h, int *late, int *early);

enum lc_judgement {
    LC_JUDGED_OK,               /* some allowed serial order explains the results */
    LC_JUDGED_NO_ORDER,         /* no serial order gives these results at all */
    LC_JUDGED_REAL_TIME,        /* some do, but every one goes against real time */
};

/* Judges an observed output against the allowed outcomes (with the orders
 * that gave them); real_time false checks the results only. On
 * LC_JUDGED_REAL_TIME, why[] says which pair of calls one such order puts
 * against real time, in words. */
enum lc_judgement lc_judge(const struct lc_outcomes *allowed, const char *observed, bool real_time, char *why,
                           size_t whylen);

#endif
