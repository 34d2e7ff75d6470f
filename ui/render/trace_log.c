/* trace_log: renders trace events as aligned text lines. A '*' before the
 * thread marks a context switch, which is where interleavings happen. */
#include "ui/render/trace_log.h"

#include <inttypes.h>
#include <string.h>

void trace_log_operation(const struct trace_event *ev, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", ev->op, ev->object[0] ? " " : "", ev->object, ev->value[0] ? " " : "",
             ev->value);
}

void trace_log_format(const struct trace_event *ev, char *buf, size_t len)
{
    char what[192];
    trace_log_operation(ev, what, sizeof what);
    int n = snprintf(buf, len, "%6" PRIu64 " %c T%-3d %-36s %s", ev->step, ev->switched ? '*' : ' ', ev->thread, what,
                     ev->where);
    if (ev->outcome[0] && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%s-> %s", ev->where[0] ? "  " : "", ev->outcome);
    /* Trailing blanks would make traces differ on nothing. */
    size_t l = strlen(buf);
    while (l > 0 && buf[l - 1] == ' ')
        buf[--l] = '\0';
}

void trace_log_print(void *ctx, const struct trace_event *ev, const struct exec_state *state)
{
    char line[TRACE_LOG_LINE_MAX];
    trace_log_format(ev, line, sizeof line);
    fprintf((FILE *)ctx, "%s\n", line);
}

/* The renderer is the FILE itself: a log line needs nothing but its event. */
static void *log_open(FILE *out, bool every_step)
{
    return out;
}

static void log_close(void *renderer)
{
    fflush(renderer);
}

void trace_log_omitted(FILE *out, uint64_t steps)
{
    fprintf(out, "  ... the first %" PRIu64 " steps are not kept in this file (--full-trace keeps every step)\n",
            steps);
}

const struct trace_format log_trace_format = {
    .name = "log",
    .suffix = ".trace",
    .needs_state = false,
    .open = log_open,
    .event = trace_log_print,
    .close = log_close,
    .omitted = trace_log_omitted,
};
