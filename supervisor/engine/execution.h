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
#include <sys/types.h>

#include "supervisor/engine/exec_config.h"

/* Runs one execution. Returns false (with res->error set) only when mdat
 * itself failed; a failing program is a successful run with res->kind set. */
bool execution_run(const struct exec_config *cfg, struct exec_result *res);

/* mdat's first process (main's): the processes below it that are not the
 * program's (workers, fork servers, checkers) and above it are mdat's,
 * which the program may not signal, trace, limit or read
 * (exec_refuse.c). Forks inherit it; a grading sandbox names its own
 * first process (the grader is out of its sight). Until set: the process
 * that runs the execution. */
void execution_set_mdat_root(pid_t root);

#endif
