/* attach_print: `mdat attach -p PID --print` and `--json`: a foreign
 * process's report (supervisor/inspect/foreign_report.h) as text for a
 * person, or as one JSON document (docs/json.md, "mdat attach -p"). Knows
 * nothing of ptrace: it only draws the report. */
#ifndef MDAT_UI_ATTACH_PRINT_H
#define MDAT_UI_ATTACH_PRINT_H

#include <stdio.h>

#include "supervisor/inspect/foreign_report.h"

void attach_print_text(FILE *f, const struct foreign_report *r);
void attach_print_json(FILE *f, const struct foreign_report *r);

#endif
