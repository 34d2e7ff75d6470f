/* grade_lincheck: `mdat grade --lincheck SPEC`: one unit of a submission
 * checked by mdat lincheck (ui/lincheck) instead of explored as a program.
 * The spec is the teacher's; the files it names are the submission's (its
 * built copy), else the spec's folder's (a header, a sequential
 * implementation). Everything of the submission's runs where and as grade
 * runs a program: the harness's build and the native serial runs as the
 * program's user with the limits, each scenario explored in this process
 * (not by `mdat run`), so the verdict goes from mdat's memory to the
 * grading's shared page, never through a file or an output the submission
 * could write. Sandboxing, wall clock and the unit's life are
 * grade_run.c's. */
#ifndef MDAT_UI_GRADE_LINCHECK_H
#define MDAT_UI_GRADE_LINCHECK_H

#include "ui/grade/model/grade_model.h"

/* Checks scenarios u->first+1..u->end of the submission whose files are in
 * files_dir (written to only through the harness's build: a copy in the
 * sandbox, else harness_dir holds the build), into unit_dir/lincheck; fills
 * u: its counts, first failure (execution: the scenario's number) and
 * lincheck fields, or a build-failed or mdat-error status. */
void grade_lincheck_unit(const struct grade_settings *s, const char *files_dir, const char *harness_dir,
                         const char *unit_dir, struct grade_unit *u);

#endif
