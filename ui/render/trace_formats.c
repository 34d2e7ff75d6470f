/* trace_formats: which trace formats exist, by name, and which of them
 * --trace prints. */
#include "ui/render/trace_formats.h"
#include "ui/render/trace_json.h"
#include "ui/render/trace_log.h"
#include "ui/render/trace_status.h"
#include "ui/render/trace_timeline.h"

#include <stdio.h>
#include <string.h>

const struct trace_format *const trace_formats[] = {
    &log_trace_format,
    &status_trace_format,
    &json_trace_format,
    &timeline_trace_format,
    &timeline_svg_trace_format,
    NULL,
};

const struct trace_format *trace_format_by_name(const char *name)
{
    for (int i = 0; trace_formats[i]; i++)
        if (strcmp(trace_formats[i]->name, name) == 0)
            return trace_formats[i];
    return NULL;
}

bool trace_option_parse(const char *value, const struct trace_format **format, bool *every_step, char *err,
                        size_t errlen)
{
    *format = &log_trace_format;
    *every_step = false;
    if (!value)
        return true;
    const char *comma = strchr(value, ',');
    size_t name_len = comma ? (size_t)(comma - value) : strlen(value);
    char name[32];
    if (name_len < sizeof name) {
        memcpy(name, value, name_len);
        name[name_len] = '\0';
        *format = trace_format_by_name(name);
    } else {
        *format = NULL;
    }
    if (*format && (*format)->file_only) {
        snprintf(err, errlen, "the %s is a picture written to a file, not printed: mdat run saves it with each "
                 "failure, mdat replay --timeline FILE writes it", name);
        *format = NULL;
        return false;
    }
    if (!*format) {
        int n = snprintf(err, errlen, "unknown trace format \"%.*s\"; the formats are", (int)name_len, value);
        for (int i = 0, listed = 0; trace_formats[i] && n >= 0 && (size_t)n < errlen; i++)
            if (!trace_formats[i]->file_only)
                n += snprintf(err + n, errlen - (size_t)n, "%s %s", listed++ ? "," : "", trace_formats[i]->name);
        return false;
    }
    if (comma && strcmp(comma + 1, "every") != 0) {
        snprintf(err, errlen, "unknown trace option \"%s\"; the only one is \"every\", as in --trace=status,every",
                 comma + 1);
        return false;
    }
    *every_step = comma != NULL;
    return true;
}
