/* trace_json: the "json" trace format (files ending ".jsonl"), JSON Lines.
 *
 * One compact object per event, with the fields step, thread, switched,
 * op, object, addr, value, file, line, function, where, outcome and pc
 * (README.md lists their types and meaning). When the execution provides
 * states, an event's object also has a "state" member (every thread and
 * synchronisation object) on the first event and on every event after
 * which the state differs from the one last written (exec_state_same_picture),
 * so an unchanged state is not repeated. close writes one last line,
 * {"end":true,"state":...}, with the final state whether it changed or not
 * (no "state" when the execution gave none): a reader knows the trace is
 * complete, and has the final picture without replaying the changes. */
#ifndef MDAT_UI_TRACE_JSON_H
#define MDAT_UI_TRACE_JSON_H

#include "supervisor/trace/trace.h"

extern const struct trace_format json_trace_format;

#endif
