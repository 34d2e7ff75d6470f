/* lc_harness: writes the C harness that runs a spec's operations (kept in
 * the output folder for the user to read) and compiles it with the user's
 * cc. The harness's argv is a scenario (lc_scenario_argv); with
 * "--serial I,J,..." first it runs the parallel calls one at a time in that
 * order. Either way it prints one line per call, in scenario order, after
 * every thread has ended: "T1 pop() -> 3". */
#ifndef MDAT_UI_LINCHECK_HARNESS_H
#define MDAT_UI_LINCHECK_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/lincheck/lc_spec.h"

bool lc_harness_write(const struct lc_spec *spec, const char *spec_path, const char *c_path);
/* cc -g -O0 -pthread; the compiler's messages go to log_path. false with a
 * one-line reason (the first error line) in err. */
bool lc_harness_build(const struct lc_spec *spec, const char *c_path, const char *extra_cflags, const char *exe_path,
                      const char *log_path, char *err, size_t errlen);

#endif
