/* execution: the engine's entry point: one run of the program under mdat,
 * from spawn to the end (exactly one thread runs at a time, each stopped
 * before its next visible operation; the strategy picks who goes).
 *
 * Inside the engine: execution.c is the loop, exec_stops.c what each ptrace
 * stop means, exec_futex.c the futex emulation, exec_signals.c signals,
 * exec_report.c the failure reports, exec_threads.c threads and waiting,
 * code_names.c naming code, return_breaks.c and virtual_clock.c the rest.
 * What the engine asks of the layers above is in exec_model.h (the source-
 * terms model) and exec_listener.h (detectors). */
#ifndef MDAT_SUPERVISOR_EXECUTION_H
#define MDAT_SUPERVISOR_EXECUTION_H

#include <stdbool.h>

#include "supervisor/engine/exec_config.h"

/* Runs one execution. Returns false (with res->error set) only when mdat
 * itself failed; a failing program is a successful run with res->kind set. */
bool execution_run(const struct exec_config *cfg, struct exec_result *res);

#endif
