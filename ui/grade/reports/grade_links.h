/* grade_links: the files of a submission's first failure, as links a
 * report can hold. They lie beside its schedule (NAME.sched) in the unit's
 * directory: the timeline page (NAME.html), the trace (NAME.trace), the
 * schedule, the output (NAME.stdout, NAME.stderr). This file finds which
 * are there and names each relative to the report's directory, so that
 * the report and the class's directory can move together; the report
 * decides how to show them. */
#ifndef MDAT_UI_GRADE_LINKS_H
#define MDAT_UI_GRADE_LINKS_H

#include <limits.h>
#include <stddef.h>

#include "ui/grade/model/grade_model.h"

enum { GRADE_MAX_LINKS = 5 };

struct grade_link {
    const char *what;           /* "timeline", "trace", "schedule", "output", "stderr" */
    char href[PATH_MAX];        /* relative to the report's directory, or absolute when no relative path is */
};

/* The links of ff's files that exist, in the order above; report_path is
 * the report's own path. Returns how many (0 without a schedule file). */
int grade_failure_links(const char *report_path, const struct grade_failure *ff, struct grade_link *out);

/* The path of target relative to directory dir (both made absolute and
 * resolved first): "02-dave/x.html", "../other/x.html". false when either
 * cannot be resolved (the caller keeps target as it is). */
bool grade_relative_path(const char *dir, const char *target, char *out, size_t len);

#endif
