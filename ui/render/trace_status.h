/* trace_status: the "status" trace format (files ending ".status"), MDAT's
 * view of an execution.
 *
 * The event lines are those of the log format. When the execution provides
 * states, each context switch is preceded by tables of the state at that
 * moment (the state after the step before it): the threads (status,
 * location, what each waits on or does next) and, for each kind of
 * synchronisation object the program has, its objects (holder, value,
 * waiters). With every_step the tables follow every step instead. close
 * prints the final tables.
 *
 * A '*' in the leading column marks each row that changed since the tables
 * were last printed, a row that is new included. The first tables of an
 * execution mark nothing: there is nothing to compare them with, and a
 * first picture marked all over says nothing. */
#ifndef MDAT_UI_TRACE_STATUS_H
#define MDAT_UI_TRACE_STATUS_H

#include "supervisor/trace/trace.h"

extern const struct trace_format status_trace_format;

#endif
