/* grade_junit: the JUnit XML report of mdat grade --junit (see
 * grade_junit.c; its option is grade_formats.h's). */
#ifndef MDAT_UI_GRADE_JUNIT_H
#define MDAT_UI_GRADE_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/grade/reports/grade_report.h"

bool grade_write_junit(const char *path, const struct grade_report *r, char *err, size_t errlen);

#endif
