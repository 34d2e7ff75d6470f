/* trace_tee: fans one execution's events out to several trace renderers. */
#include "supervisor/trace/trace_tee.h"

bool trace_tee_add(struct trace_tee *t, const struct trace_format *format, FILE *out, bool every_step)
{
    if (t->n == TRACE_TEE_MAX)
        return false;
    t->branch[t->n++] = (struct trace_tee_branch){.format = format, .out = out, .every_step = every_step};
    return true;
}

bool trace_tee_needs_state(const struct trace_tee *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->branch[i].format->needs_state)
            return true;
    return false;
}

void trace_tee_open(struct trace_tee *t)
{
    for (int i = 0; i < t->n; i++)
        t->branch[i].renderer = t->branch[i].format->open(t->branch[i].out, t->branch[i].every_step);
}

void trace_tee_event(void *tee, const struct trace_event *ev, const struct exec_state *state)
{
    struct trace_tee *t = tee;
    for (int i = 0; i < t->n; i++)
        t->branch[i].format->event(t->branch[i].renderer, ev, state);
}

void trace_tee_summary(struct trace_tee *t, const struct trace_summary *s)
{
    for (int i = 0; i < t->n; i++)
        if (t->branch[i].format->summary)
            t->branch[i].format->summary(t->branch[i].renderer, s);
}

void trace_tee_close(struct trace_tee *t)
{
    for (int i = 0; i < t->n; i++) {
        t->branch[i].format->close(t->branch[i].renderer);
        t->branch[i].renderer = NULL;
    }
}
