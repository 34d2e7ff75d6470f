/* grade_result_text: a submission's result as text for people, the one
 * that the reports for other tools carry (grade_junit.c, gradescope.c):
 * its verdict, counts, first failure with its replay command and
 * evidence, build output, and on request the last steps of its trace. */
#ifndef MDAT_UI_GRADE_RESULT_TEXT_H
#define MDAT_UI_GRADE_RESULT_TEXT_H

#include <stdbool.h>

#include "ui/grade/reports/grade_report.h"

/* A submission's result as text for people (malloc'd): verdict and counts,
 * details, first failure, replay command, the program's stderr, build
 * output; with_trace: and the last steps of the first failure's trace. */
char *grade_result_text(const struct grade_report *r, int i, bool with_trace);

#endif
