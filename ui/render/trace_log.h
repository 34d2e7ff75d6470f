/* trace_log: the one-line-per-step text rendering of trace events, as a
 * function, a trace_sink and a trace_format ("log", files ending ".trace"). */
#ifndef MDAT_UI_TRACE_LOG_H
#define MDAT_UI_TRACE_LOG_H

#include <stdio.h>

#include "supervisor/trace/trace.h"

/* Room for any line trace_log_format writes. */
enum { TRACE_LOG_LINE_MAX = 768 };

/* The operation alone: "W counter := 1", "lock lock_b". */
void trace_log_operation(const struct trace_event *ev, char *buf, size_t len);
/* "    12 * T2  W    counter := 1        lost_update.c:20 worker" */
void trace_log_format(const struct trace_event *ev, char *buf, size_t len);
/* A trace_sink that prints to the FILE* in ctx. */
void trace_log_print(void *ctx, const struct trace_event *ev, const struct exec_state *state);

/* The same lines as a trace format; it ignores states and every_step. */
extern const struct trace_format log_trace_format;

/* The line that opens a trace file cut to its last steps. */
void trace_log_omitted(FILE *out, uint64_t steps);

#endif
