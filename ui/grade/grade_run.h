/* grade_run: one unit of grading run in a child process of its own,
 * isolated from mdat grade itself (see grade_run.c), and the signals that
 * stop a grading. The sandbox the unit may run in is grade_sandbox.h's,
 * a --lincheck unit's checking grade_lincheck.h's. */
#ifndef MDAT_UI_GRADE_RUN_H
#define MDAT_UI_GRADE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/grade/model/grade_model.h"

/* Makes this process the reaper of every orphan below it (called once, by
 * mdat grade, before the first unit). */
void grade_become_subreaper(void);
/* From now on SIGINT, SIGTERM and SIGHUP stop the grading: the unit being
 * graded is killed (and not decided), grade_run_unit returns false, and
 * grade_stop_signal() names the signal (0: none came). */
void grade_catch_stop_signals(void);
int grade_stop_signal(void);
/* Builds if needed and explores one unit in a child process with the
 * settings' limits, into u. shard_tag names the build copy ("" unsharded,
 * "-shard-2-of-3"). false when a stop signal came meanwhile: u is not a
 * verdict. */
bool grade_run_unit(const struct grade_settings *s, int jobs, int submission, uint64_t first, uint64_t end,
                    const char *shard_tag, struct grade_unit *u);

#endif
