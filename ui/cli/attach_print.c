/* attach_print: the report of `mdat attach -p PID` as text and as JSON. */
#include "ui/cli/attach_print.h"

#include <inttypes.h>
#include <string.h>

#include "ui/text/json_writer.h"

/* ---- text ---- */

static void print_thread(FILE *f, const struct foreign_report *r, const struct foreign_thread_view *t)
{
    fprintf(f, "  T%-3d tid %-7d %-16s %-16s %s", t->number, (int)t->tid, t->name, t->state,
            t->location[0] ? t->location : t->proc_state == 'Z' ? "(the other threads go on)" : "?");
    if (t->start[0])
        fprintf(f, "  (began in %s)", t->start);
    fputc('\n', f);
    char what[512];
    foreign_wait_text(r, t, what, sizeof what);
    if (!what[0])
        return;
    static const char *const verb[] = {
        [FWAIT_SYNC] = "waits on ", [FWAIT_JOIN] = "waits to ", [FWAIT_IO] = "waits in ",
        [FWAIT_CHILD] = "waits for a child: ", [FWAIT_SLEEP] = "sleeps: ", [FWAIT_SIGNAL] = "waits for ",
        [FWAIT_OTHER] = "in ",
    };
    fprintf(f, "        %s%s%s%s%s\n", verb[t->wait.kind] ? verb[t->wait.kind] : "", what,
            t->called[0] ? " (in " : "", t->called, t->called[0] ? ")" : "");
}

static void print_object(FILE *f, const struct foreign_report *r, const struct foreign_object_view *o)
{
    fprintf(f, "  %-9s %-24s", sync_kind_name(o->kind), o->name);
    bool said = true;
    if (o->holder) {
        char who[32];
        foreign_thread_label(r, o->holder, who, sizeof who);
        fprintf(f, " held by %s%s", who, o->holder_number ? "" : " (ended)");
    } else if (o->readers) {
        fprintf(f, " held for reading (%u)", o->readers);
    } else if (o->kind == SYNC_MUTEX || o->kind == SYNC_RWLOCK) {
        fprintf(f, " free");
    } else if (o->has_value) {
        fprintf(f, " value %" PRId64, o->value);
    } else {
        said = false;
    }
    if (o->n_waiters) {
        fprintf(f, "%s waiting:", said ? ";" : "");
        for (size_t i = 0; i < o->n_waiters && i < FOREIGN_MAX_WAITERS; i++)
            fprintf(f, " T%d", o->waiters[i]);
        if (o->n_waiters > FOREIGN_MAX_WAITERS)
            fprintf(f, " and %zu more", o->n_waiters - FOREIGN_MAX_WAITERS);
    }
    fputc('\n', f);
}

void attach_print_text(FILE *f, const struct foreign_report *r)
{
    fprintf(f, "process %d (%s, %s): %zu thread%s\n", (int)r->pid, r->comm, r->exe[0] ? r->exe : "?", r->n_threads,
            r->n_threads == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_threads; i++)
        print_thread(f, r, &r->threads[i]);
    if (r->n_objects) {
        fprintf(f, "sync objects:\n");
        for (size_t i = 0; i < r->n_objects; i++)
            print_object(f, r, &r->objects[i]);
    }
    fprintf(f, "%s\n", r->verdict_text);
}

/* ---- JSON ---- */

static void json_location(struct json_writer *w, const struct foreign_thread_view *t)
{
    json_begin_object(w, "location");
    char addr[32];
    snprintf(addr, sizeof addr, "0x%" PRIx64, t->pc);
    json_string(w, "address", addr);
    json_string(w, "text", t->location);
    json_string_or_null(w, "file", t->loc.line ? t->loc.basename : NULL);
    if (t->loc.line)
        json_uint(w, "line", t->loc.line);
    else
        json_null(w, "line");
    json_string_or_null(w, "function", t->loc.function);
    json_end_object(w);
}

static void json_thread_ref(struct json_writer *w, const char *key, const struct foreign_report *r, pid_t tid)
{
    json_begin_object(w, key);
    json_int(w, "tid", tid);
    int n = 0;
    for (size_t i = 0; i < r->n_threads; i++)
        if (r->threads[i].tid == tid && strcmp(r->threads[i].state, "ended") != 0)
            n = r->threads[i].number;
    if (n)
        json_int(w, "thread", n);
    else
        json_null(w, "thread");
    json_end_object(w);
}

static const char *wait_kind_name(enum foreign_wait_kind k)
{
    switch (k) {
    case FWAIT_SYNC: return "sync";
    case FWAIT_JOIN: return "join";
    case FWAIT_IO: return "io";
    case FWAIT_CHILD: return "child";
    case FWAIT_SLEEP: return "sleep";
    case FWAIT_SIGNAL: return "signal";
    case FWAIT_OTHER: return "syscall";
    case FWAIT_NONE: return "none";
    }
    return "?";
}

static void json_wait(struct json_writer *w, const struct foreign_report *r, const struct foreign_thread_view *t)
{
    const struct foreign_wait *wt = &t->wait;
    if (wt->kind == FWAIT_NONE) {
        json_null(w, "wait");
        return;
    }
    char text[512], addr[32];
    foreign_wait_text(r, t, text, sizeof text);
    json_begin_object(w, "wait");
    json_string(w, "kind", wait_kind_name(wt->kind));
    json_string(w, "text", text);
    json_bool(w, "timed", wt->timed);
    json_bool(w, "only_inside", wt->only_inside);
    if (wt->kind == FWAIT_SYNC) {
        json_string(w, "object_kind", sync_kind_name(wt->sync));
        json_string_or_null(w, "object", wt->object_name[0] ? wt->object_name : NULL);
        snprintf(addr, sizeof addr, "0x%" PRIx64, wt->object);
        json_string(w, "address", addr);
        if (wt->holder)
            json_thread_ref(w, "holder", r, wt->holder);
        else
            json_null(w, "holder");
    } else if (wt->kind == FWAIT_JOIN) {
        json_thread_ref(w, "joins", r, wt->join_tid);
    } else {
        json_string(w, "call", wt->call);
    }
    json_end_object(w);
}

static void json_threads(struct json_writer *w, const struct foreign_report *r)
{
    json_begin_array(w, "threads");
    for (size_t i = 0; i < r->n_threads; i++) {
        const struct foreign_thread_view *t = &r->threads[i];
        char state[2] = {t->proc_state, '\0'};
        json_begin_object(w, NULL);
        json_int(w, "thread", t->number);
        json_int(w, "tid", t->tid);
        json_string(w, "name", t->name);
        json_string(w, "state", t->state);
        json_string(w, "proc_state", state);
        json_string_or_null(w, "start", t->start[0] ? t->start : NULL);
        json_string_or_null(w, "in_call", t->called[0] ? t->called : NULL);
        json_location(w, t);
        json_wait(w, r, t);
        json_bool(w, "stuck", t->stuck);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_objects(struct json_writer *w, const struct foreign_report *r)
{
    json_begin_array(w, "objects");
    for (size_t i = 0; i < r->n_objects; i++) {
        const struct foreign_object_view *o = &r->objects[i];
        char addr[32];
        snprintf(addr, sizeof addr, "0x%" PRIx64, o->addr);
        json_begin_object(w, NULL);
        json_string(w, "kind", sync_kind_name(o->kind));
        json_string(w, "name", o->name);
        json_string(w, "address", addr);
        if (o->holder)
            json_thread_ref(w, "holder", r, o->holder);
        else
            json_null(w, "holder");
        if (o->has_value)
            json_int(w, "value", o->value);
        if (o->kind == SYNC_RWLOCK)
            json_uint(w, "readers", o->readers);
        json_begin_array(w, "waiters");
        for (size_t k = 0; k < o->n_waiters && k < FOREIGN_MAX_WAITERS; k++)
            json_int(w, NULL, o->waiters[k]);
        json_end_array(w);
        json_uint(w, "n_waiters", o->n_waiters);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The running threads' watch: null when they were not watched. */
static void json_livelock(struct json_writer *w, const struct foreign_report *r)
{
    const struct foreign_livelock *l = &r->livelock;
    if (!l->watched) {
        json_null(w, "livelock");
        return;
    }
    json_begin_object(w, "livelock");
    json_uint(w, "window_ms", (unsigned)l->window_ms);
    json_begin_array(w, "threads");
    for (size_t i = 0; i < l->n_threads; i++)
        json_int(w, NULL, l->threads[i]);
    json_end_array(w);
    json_uint(w, "instructions", l->instructions);
    json_bool(w, "found", l->found);
    if (l->found) {
        json_uint(w, "period", l->period);
        json_string(w, "schedule", l->any_schedule ? "any" : "round-robin");
        json_string(w, "where", l->where);
        json_string_or_null(w, "unless", l->unless[0] ? l->unless : NULL);
    } else {
        json_string_or_null(w, "why_not", l->why_not[0] ? l->why_not : NULL);
    }
    json_end_object(w);
}

void attach_print_json(FILE *f, const struct foreign_report *r)
{
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_int(&w, "pid", r->pid);
    json_string(&w, "executable", r->exe);
    json_string(&w, "name", r->comm);
    json_bool(&w, "stopped", r->stopped_process);
    json_threads(&w, r);
    json_objects(&w, r);
    json_begin_array(&w, "cycle");
    for (size_t i = 0; i < r->cycle_len; i++)
        json_int(&w, NULL, r->threads[r->cycle[i]].number);
    json_end_array(&w);
    json_livelock(&w, r);
    json_begin_object(&w, "verdict");
    json_string(&w, "kind", foreign_verdict_name(r->verdict));
    json_bool(&w, "stuck", foreign_report_stuck(r));
    json_string(&w, "text", r->verdict_text);
    json_end_object(&w);
    json_end_object(&w);
    fputc('\n', f);
}
