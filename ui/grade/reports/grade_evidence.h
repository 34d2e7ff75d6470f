/* grade_evidence: what the first failure's saved files show a student
 * besides its message: for a checker failure, the first lines of the
 * output the checker rejected (NAME.stdout beside NAME.sched) and the
 * steps on data that several threads touched and one wrote (from
 * NAME.trace): a lost update's loads and stores, wherever they are in the
 * execution, not only at its end. Read when the reports are written, from
 * the unit's directory (the same paths after mdat merge). */
#ifndef MDAT_UI_GRADE_EVIDENCE_H
#define MDAT_UI_GRADE_EVIDENCE_H

#include <stdio.h>

#include "ui/grade/model/grade_model.h"

enum { EVIDENCE_OUTPUT_LINES = 5, EVIDENCE_STEPS = 40 };

/* "output the checker rejected (PATH):" and its first lines, indented;
 * nothing when ff is no checker failure or the file is gone. */
void grade_evidence_output(FILE *out, const char *indent, const struct grade_failure *ff);
/* "steps on shared data (PATH):" and those steps (at most
 * EVIDENCE_STEPS: the first and the last half when there are more),
 * indented; nothing when ff is no checker failure or none is found. */
void grade_evidence_steps(FILE *out, const char *indent, const struct grade_failure *ff);

#endif
