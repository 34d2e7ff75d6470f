/* trace_log: the one-line-per-step text rendering of trace events. */
#ifndef MDAT_UI_TRACE_LOG_H
#define MDAT_UI_TRACE_LOG_H

#include <stdio.h>

#include "supervisor/execution.h"

/* "    12 * T2  W    counter := 1        lost_update.c:20 worker" */
void trace_log_format(const struct trace_event *ev, char *buf, size_t len);
/* A trace_sink that prints to the FILE* in ctx. */
void trace_log_print(void *ctx, const struct trace_event *ev, const struct exec_state *state);

#endif
