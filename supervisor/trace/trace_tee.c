/* trace_tee: fans one execution's events out to several trace renderers. */
#include "supervisor/trace/trace_tee.h"
#include "supervisor/trace/trace_tail.h"

#include <sys/stat.h>
#include <unistd.h>

void trace_tee_bound(struct trace_tee *t, uint64_t steps)
{
    t->tail_steps = steps;
}

void trace_tee_skip_to(struct trace_tee *t, uint64_t step)
{
    t->from_step = step;
}

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
    t->steps = 0;
    t->skipped = 0;
    for (int i = 0; i < t->n; i++) {
        struct trace_tee_branch *b = &t->branch[i];
        FILE *out = b->out;
        b->tail = NULL;
        if (t->tail_steps && !b->format->keeps_own_tail)
            b->tail = trace_tail_open(t->tail_steps / TRACE_SEGMENT_STEPS + 1, &out);
        if (!b->tail)
            out = b->out;
        b->renderer = b->format->open(out, b->every_step);
    }
}

void trace_tee_event(void *tee, const struct trace_event *ev, const struct exec_state *state)
{
    struct trace_tee *t = tee;
    if (t->steps == 0 && ev->step > 1)
        t->skipped = ev->step - 1;
    bool cut = t->steps > 0 && t->steps % TRACE_SEGMENT_STEPS == 0;
    for (int i = 0; i < t->n; i++) {
        struct trace_tee_branch *b = &t->branch[i];
        if (cut && b->tail) {
            trace_tail_cut(b->tail, t->steps);
            if (b->format->segment)
                b->format->segment(b->renderer);
        }
        b->format->event(b->renderer, ev, state);
    }
    t->steps++;
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
        struct trace_tee_branch *b = &t->branch[i];
        b->format->close(b->renderer);
        b->renderer = NULL;
        if (!b->tail)
            continue;
        uint64_t dropped = trace_tail_dropped(b->tail) + t->skipped;
        if (dropped && b->format->omitted)
            b->format->omitted(b->out, dropped);
        trace_tail_finish(b->tail, b->out);
        b->tail = NULL;
    }
}

bool trace_tee_can_restart(const struct trace_tee *t)
{
    for (int i = 0; i < t->n; i++) {
        struct stat st;
        if (fstat(fileno(t->branch[i].out), &st) != 0 || !S_ISREG(st.st_mode))
            return false;
    }
    return true;
}

bool trace_tee_restart(struct trace_tee *t)
{
    trace_tee_close(t);
    bool emptied = true;
    for (int i = 0; i < t->n; i++) {
        FILE *out = t->branch[i].out;
        emptied &= fflush(out) == 0 && ftruncate(fileno(out), 0) == 0 && fseek(out, 0, SEEK_SET) == 0;
    }
    trace_tee_open(t);
    return emptied;
}
