/* grade_formats: the reports of mdat grade and mdat merge that other tools
 * read: --junit FILE (JUnit XML, for CI) and --gradescope DIR (results.json
 * of Gradescope-style autograders, scored by a rubric). Owns their options
 * and when they are written; the documents themselves are grade_junit.c's
 * and gradescope.c's. The CSV, JSON and HTML reports are grade_report.c's. */
#ifndef MDAT_UI_GRADE_FORMATS_H
#define MDAT_UI_GRADE_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/grade/model/rubric.h"
#include "ui/grade/reports/grade_report.h"

/* getopt_long codes of the options, apart from every command's own. */
enum { GRADE_OPT_JUNIT = 1000, GRADE_OPT_GRADESCOPE, GRADE_OPT_RUBRIC, GRADE_OPT_POINTS };
#define GRADE_FORMAT_OPTIONS                                            \
    {"junit", required_argument, NULL, GRADE_OPT_JUNIT},                \
    {"gradescope", required_argument, NULL, GRADE_OPT_GRADESCOPE},      \
    {"rubric", required_argument, NULL, GRADE_OPT_RUBRIC},              \
    {"points", required_argument, NULL, GRADE_OPT_POINTS}

struct grade_formats {
    const char *junit;          /* --junit FILE; NULL: none */
    const char *gradescope;     /* --gradescope DIR; NULL: none */
    struct rubric rubric;       /* empty: rubric_default */
    bool rubric_given;
};

/* Takes option c into f if it is one of GRADE_FORMAT_OPTIONS: 1 if it was,
 * 0 if not, -1 after a one-line usage error (mdat CMD: ...). */
int grade_formats_option(const char *cmd, int c, const char *arg, struct grade_formats *f);
/* Before grading: the options agree (a rubric wants --gradescope; a shard
 * writes neither) and the files can be written. false after a one-line
 * error (mdat CMD: ...): a usage error. */
bool grade_formats_ready(const char *cmd, struct grade_formats *f, bool sharded);
/* Writes the reports asked for; false with a reason in err. */
bool grade_formats_write(struct grade_formats *f, const struct grade_report *r, char *err, size_t errlen);

#endif
