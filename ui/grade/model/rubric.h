/* rubric: what each way of failing costs a submission, for the scores of
 * `mdat grade --gradescope`. An item stands for one or more failure kinds
 * (one bug, one item: "terminates" is both livelock and hang, since a
 * program that does not end shows one or the other by the schedule) and
 * its points: a submission earns them when no schedule failed with any of
 * them (and, for the checker's item, when the checker accepted its output
 * at least once: a program that never printed earns no output point).
 * Items come from --points ITEM=N and --rubric FILE (lines "ITEM POINTS"),
 * in the order given; without either, rubric_default's. Each item has a
 * name a student understands ("output correct in every schedule"). */
#ifndef MDAT_UI_GRADE_RUBRIC_H
#define MDAT_UI_GRADE_RUBRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/trace/failure.h"
#include "ui/grade/model/grade_model.h"

/* The kinds bit of the "linearizable" item (mdat grade --lincheck): with
 * the checker's bit, since a result no serial order gives is a checker
 * failure of lincheck's judge. */
#define RUBRIC_LINEARIZABLE (1u << 31)

struct rubric_item {
    uint32_t kinds;     /* 1u << failure_kind, for each kind it stands for */
    double points;
};

struct rubric {
    struct rubric_item items[FAIL_KIND_COUNT];
    int n;
};

/* "deadlock=4", "terminates=2": false with a one-line reason (unknown
 * item, not a number of points, a kind given twice). */
bool rubric_add_points(struct rubric *r, const char *item, char *err, size_t errlen);
/* Every "ITEM POINTS" line of a file ('#' starts a comment): false with
 * the reason and the line's number. */
bool rubric_read_file(struct rubric *r, const char *path, char *err, size_t errlen);
/* 1 point each for deadlock, assertion, crash, terminates (livelock and
 * hang), misuse, race and sandbox-violation, and checker with --check,
 * exit-status with --fail-on-exit, invariant with --invariant, linearizable
 * with --lincheck. */
void rubric_default(struct rubric *r, const struct grade_settings *s);
double rubric_total(const struct rubric *r);
/* "no deadlock", "ends in every schedule", "output correct in every
 * schedule", ...: the test's name in results.json. */
const char *rubric_item_name(const struct rubric_item *item);

#endif
