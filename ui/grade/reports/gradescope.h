/* gradescope: results.json of Gradescope-style autograders for each
 * submission (DIR/results.json for one, DIR/NAME/results.json for each of
 * several), scored by a rubric (see gradescope.c; the option is
 * grade_formats.h's, the rubric rubric.h's). */
#ifndef MDAT_UI_GRADE_GRADESCOPE_H
#define MDAT_UI_GRADE_GRADESCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/grade/model/rubric.h"
#include "ui/grade/reports/grade_report.h"

bool grade_write_gradescope(const char *dir, const struct grade_report *r, const struct rubric *rubric, char *err,
                            size_t errlen);

#endif
