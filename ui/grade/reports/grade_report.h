/* grade_report: the reports of a grading that people read: CSV, JSON, a
 * self-contained HTML table, and the summary on the terminal (see
 * grade_report.c). The reports other tools read (--junit, --gradescope)
 * are grade_formats.h's; every one is made from a struct grade_report. */
#ifndef MDAT_UI_GRADE_REPORT_H
#define MDAT_UI_GRADE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ui/grade/model/grade_model.h"

struct grade_report {
    const struct grade_settings *settings;
    const struct grade_result *results;     /* one per submission, in order */
    bool no_times;                          /* time fields empty (null) */
    bool incomplete;                        /* stopped by a signal: not every submission graded */
};

bool grade_write_csv(const char *path, const struct grade_report *r, char *err, size_t errlen);
bool grade_write_json(const char *path, const struct grade_report *r, char *err, size_t errlen);
bool grade_write_html(const char *path, const struct grade_report *r, char *err, size_t errlen);
/* The readable table on a terminal. */
void grade_print_summary(FILE *out, const struct grade_report *r);

#endif
