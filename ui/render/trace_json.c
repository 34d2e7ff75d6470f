/* trace_json: trace events and states as JSON Lines. Addresses are hex
 * strings (JSON numbers lose 64-bit precision in many readers), null when
 * 0; every other field keeps trace.h's type and conventions.
 *
 * A state is written whole ("full": true) at the first step, at the start
 * of every kept segment of a long trace and at the end; in between, a
 * step's state lists only the threads and objects that changed (matched by
 * thread id and object address), so a program with thousands of locks
 * writes a few lines' worth per step, not all of them. */
#include "ui/render/trace_json.h"
#include "ui/text/json_writer.h"

#include <inttypes.h>
#include <stdlib.h>

struct json_renderer {
    struct json_writer w;
    struct exec_state *latest;      /* the state after the most recent event; NULL if it had none */
    struct exec_state *written;     /* what a reader has after the states written; NULL before the first */
    bool whole_next;                /* the next state is written whole */
};

static void write_address(struct json_writer *w, const char *key, uint64_t addr)
{
    if (addr == 0) {
        json_null(w, key);
        return;
    }
    char hex[24];
    snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
    json_string(w, key, hex);
}

static void write_event_fields(struct json_writer *w, const struct trace_event *ev)
{
    json_uint(w, "step", ev->step);
    json_int(w, "thread", ev->thread);
    json_bool(w, "switched", ev->switched);
    json_string(w, "op", ev->op);
    json_string(w, "object", ev->object);
    write_address(w, "addr", ev->addr);
    json_string(w, "value", ev->value);
    json_string(w, "file", ev->file);
    json_uint(w, "line", ev->line);
    json_uint(w, "column", ev->column);
    json_string(w, "function", ev->function);
    json_string(w, "where", ev->where);
    json_string(w, "outcome", ev->outcome);
    write_address(w, "pc", ev->pc);
}

static void write_thread(struct json_writer *w, const struct state_thread *t)
{
    json_begin_object(w, NULL);
    json_int(w, "id", t->id);
    json_string(w, "status", thread_status_name(t->status));
    json_string(w, "start", t->start);
    json_string(w, "location", t->location);
    json_string(w, "waiting_on", t->waiting_on);
    json_int(w, "waits_for", t->waits_for);
    if (t->n_pending > 0) {
        /* Only under --memory-model tso, while its buffer holds stores. */
        json_begin_array(w, "buffer");
        for (int i = 0; i < t->n_pending; i++) {
            const struct state_store *e = &t->pending[i];
            json_begin_object(w, NULL);
            json_string(w, "object", e->object);
            write_address(w, "addr", e->addr);
            json_uint(w, "size", e->size);
            json_uint(w, "value", e->value);
            json_string(w, "where", e->where);
            json_end_object(w);
        }
        json_end_array(w);
    }
    if (t->next.op[0]) {
        json_begin_object(w, "next");
        write_event_fields(w, &t->next);
        json_end_object(w);
    } else {
        json_null(w, "next");   /* exited: no next operation */
    }
    json_end_object(w);
}

static void write_object(struct json_writer *w, const struct state_object *o)
{
    json_begin_object(w, NULL);
    json_string(w, "kind", sync_kind_name(o->kind));
    json_string(w, "name", o->name);
    write_address(w, "addr", o->addr);
    json_string(w, "type", o->type);
    json_int(w, "holder", o->holder);
    json_int(w, "count", o->count);
    json_int(w, "limit", o->limit);
    write_address(w, "mutex", o->mutex);
    json_string(w, "mutex_name", o->mutex_name);
    json_begin_array(w, "waiters");
    for (int i = 0; i < o->n_waiters; i++)
        json_int(w, NULL, o->waiters[i]);
    json_end_array(w);
    json_end_object(w);
}

/* The state, whole (before == NULL) or only what differs from before. */
static void write_state(struct json_writer *w, const struct exec_state *s, const struct exec_state *before)
{
    json_begin_object(w, "state");
    json_uint(w, "step", s->step);
    json_int(w, "current", s->current);
    json_bool(w, "full", before == NULL);
    json_begin_array(w, "threads");
    for (int i = 0; i < s->n_threads; i++)
        if (!before || i >= before->n_threads || !state_thread_equal(&s->threads[i], &before->threads[i]))
            write_thread(w, &s->threads[i]);
    json_end_array(w);
    json_begin_array(w, "objects");
    for (int i = 0; i < s->n_objects; i++)
        if (!before || i >= before->n_objects || !state_object_equal(&s->objects[i], &before->objects[i]))
            write_object(w, &s->objects[i]);
    json_end_array(w);
    json_begin_array(w, "watches");
    for (int i = 0; i < s->n_watches; i++) {
        json_begin_object(w, NULL);
        json_string(w, "expr", s->watches[i].expr);
        json_string(w, "value", s->watches[i].value);
        json_bool(w, "error", s->watches[i].error);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void *json_open(FILE *out, bool every_step)
{
    struct json_renderer *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->w = (struct json_writer){.f = out, .compact = true};
    r->whole_next = true;
    return r;
}

static void json_segment(void *renderer)
{
    ((struct json_renderer *)renderer)->whole_next = true;
}

static void json_omitted(FILE *out, uint64_t steps)
{
    fprintf(out, "{\"omitted_steps\":%" PRIu64 "}\n", steps);
}

static void json_event(void *renderer, const struct trace_event *ev, const struct exec_state *state)
{
    struct json_renderer *r = renderer;
    json_begin_object(&r->w, NULL);
    write_event_fields(&r->w, ev);
    if (state && (!r->written || r->whole_next || !exec_state_same_picture(state, r->written))) {
        /* Objects and threads are only ever added at the end, in order:
         * matching them by index is matching them by id and address. */
        write_state(&r->w, state, r->whole_next ? NULL : r->written);
        r->whole_next = false;
        exec_state_free(r->written);
        r->written = exec_state_copy(state);
    }
    json_end_object(&r->w);
    exec_state_free(r->latest);
    r->latest = state ? exec_state_copy(state) : NULL;
}

static void json_close(void *renderer)
{
    struct json_renderer *r = renderer;
    json_begin_object(&r->w, NULL);
    json_bool(&r->w, "end", true);
    if (r->latest)
        write_state(&r->w, r->latest, NULL);
    json_end_object(&r->w);
    fflush(r->w.f);
    exec_state_free(r->latest);
    exec_state_free(r->written);
    free(r);
}

const struct trace_format json_trace_format = {
    .name = "json",
    .suffix = ".jsonl",
    .needs_state = true,
    .open = json_open,
    .event = json_event,
    .close = json_close,
    .segment = json_segment,
    .omitted = json_omitted,
};
