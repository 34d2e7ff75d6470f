/* trace_formats: the registry of trace formats (log, status, json, and the
 * timeline pictures) and the FORMAT[,every] argument of --trace. */
#ifndef MDAT_UI_TRACE_FORMATS_H
#define MDAT_UI_TRACE_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/trace/trace.h"

/* Every format, log first, NULL-terminated: each is saved with every
 * failure `mdat run` reports. */
extern const struct trace_format *const trace_formats[];

/* NULL for an unknown name. */
const struct trace_format *trace_format_by_name(const char *name);

/* Parses the value of --trace=VALUE ("log", "status,every", ...; NULL is
 * plain --trace: log). On an unknown format or option, or a file_only one:
 * false and a one-line reason. */
bool trace_option_parse(const char *value, const struct trace_format **format, bool *every_step, char *err,
                        size_t errlen);

#endif
