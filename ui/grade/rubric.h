/* rubric: what each way of failing costs a submission, for the scores of
 * `mdat grade --gradescope`. An item is a failure kind and its points: a
 * submission earns them when no schedule failed with that kind. Items come
 * from --points KIND=N and --rubric FILE (lines "KIND POINTS"), in the order
 * given; without either, rubric_default's. */
#ifndef MDAT_UI_GRADE_RUBRIC_H
#define MDAT_UI_GRADE_RUBRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/trace/failure.h"
#include "ui/grade/grade.h"

struct rubric_item {
    enum failure_kind kind;
    double points;
};

struct rubric {
    struct rubric_item items[FAIL_KIND_COUNT];
    int n;
};

/* "deadlock=4": false with a one-line reason (unknown kind, not a number
 * of points, a kind given twice). */
bool rubric_add_points(struct rubric *r, const char *item, char *err, size_t errlen);
/* Every "KIND POINTS" line of a file ('#' starts a comment): false with
 * the reason and the line's number. */
bool rubric_read_file(struct rubric *r, const char *path, char *err, size_t errlen);
/* 1 point each for deadlock, assertion, crash, livelock, hang, misuse and
 * race, and checker with --check, exit-status with --fail-on-exit. */
void rubric_default(struct rubric *r, const struct grade_settings *s);
double rubric_total(const struct rubric *r);

#endif
