/* trace_status: event lines plus thread and sync-object tables that mark
 * what changed; under --memory-model tso, a table of the stores waiting in
 * each thread's buffer. */
#include "ui/render/trace_status.h"
#include "ui/text/text_table.h"
#include "ui/render/trace_log.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_COLUMNS = 4, CELL_MAX = 256 };

/* What one table shows: its header row and how wide each column may grow.
 * The first column names the row (thread id, object name). */
struct table_shape {
    int n_columns;
    const char *header[MAX_COLUMNS];
    int max_width[MAX_COLUMNS];
};

enum { NAME_WIDTH = 32, LOCATION_WIDTH = 40, DOING_WIDTH = 60, WAITERS_WIDTH = 40 };

static const struct table_shape thread_shape = {
    4, {"thread", "status", "location", "waiting on / next"}, {0, 0, LOCATION_WIDTH, DOING_WIDTH}};

static const struct table_shape buffer_shape = {2, {"buffer", "stores, oldest first"}, {0, 0}};

static const struct table_shape watch_shape = {2, {"watch", "value"}, {NAME_WIDTH, DOING_WIDTH}};

static const struct table_shape object_shapes[SYNC_KIND_COUNT] = {
    [SYNC_MUTEX] = {4, {"mutex", "type", "holder", "waiting"}, {NAME_WIDTH, 0, 0, WAITERS_WIDTH}},
    [SYNC_SEMAPHORE] = {3, {"semaphore", "value", "waiting"}, {NAME_WIDTH, 0, WAITERS_WIDTH}},
    [SYNC_CONDVAR] = {3, {"condvar", "mutex", "waiting"}, {NAME_WIDTH, NAME_WIDTH, WAITERS_WIDTH}},
    [SYNC_BARRIER] = {3, {"barrier", "arrived", "waiting"}, {NAME_WIDTH, 0, WAITERS_WIDTH}},
    [SYNC_RWLOCK] = {4, {"rwlock", "writer", "readers", "waiting"}, {NAME_WIDTH, 0, 0, WAITERS_WIDTH}},
    [SYNC_SPINLOCK] = {3, {"spinlock", "holder", "waiting"}, {NAME_WIDTH, 0, WAITERS_WIDTH}},
    [SYNC_FUTEX] = {3, {"futex", "value", "waiting"}, {NAME_WIDTH, 0, WAITERS_WIDTH}},
};

struct row_cells {
    char cell[MAX_COLUMNS][CELL_MAX];
};

struct status_renderer {
    FILE *out;
    bool every_step;
    struct exec_state *latest;      /* the state after the most recent event; NULL if it had none */
    bool latest_shown;              /* its tables are already printed */
    struct exec_state *shown;       /* the state of the tables printed last; NULL before the first */
};

static void thread_cells(const struct state_thread *t, struct row_cells *c)
{
    snprintf(c->cell[0], CELL_MAX, "T%d", t->id);
    snprintf(c->cell[1], CELL_MAX, "%s", thread_status_name(t->status));
    snprintf(c->cell[2], CELL_MAX, "%s", t->location);
    if (t->waiting_on[0])
        snprintf(c->cell[3], CELL_MAX, "%s", t->waiting_on);
    else
        trace_log_operation(&t->next, c->cell[3], CELL_MAX);
}

/* "T2", "free", or "other" for a holder that is no thread of the program's
 * we know (trace.h's -1). */
static void holder_cell(int holder, const char *when_free, char *buf)
{
    if (holder > 0)
        snprintf(buf, CELL_MAX, "T%d", holder);
    else
        snprintf(buf, CELL_MAX, "%s", holder < 0 ? "other" : when_free);
}

/* "T3 T5", or "-" when nobody waits; cut at CELL_MAX like any cell. */
static void waiters_cell(const struct state_object *o, char *buf)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->n_waiters && used < CELL_MAX; i++) {
        int n = snprintf(buf + used, CELL_MAX - used, "%sT%d", i ? " " : "", o->waiters[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (o->n_waiters == 0)
        snprintf(buf, CELL_MAX, "-");
}

static void object_cells(const struct state_object *o, struct row_cells *c)
{
    const struct table_shape *shape = &object_shapes[o->kind];
    char *last = c->cell[shape->n_columns - 1];
    snprintf(c->cell[0], CELL_MAX, "%s", o->name);
    waiters_cell(o, last);
    switch (o->kind) {
    case SYNC_MUTEX:
        snprintf(c->cell[1], CELL_MAX, "%s", o->type[0] ? o->type : "-");
        holder_cell(o->holder, "free", c->cell[2]);
        if (o->holder != 0 && o->count > 1)
            snprintf(c->cell[2] + strlen(c->cell[2]), CELL_MAX - strlen(c->cell[2]), " x%d", o->count);
        break;
    case SYNC_SEMAPHORE:
    case SYNC_FUTEX:
        snprintf(c->cell[1], CELL_MAX, "%d", o->count);
        break;
    case SYNC_CONDVAR:
        snprintf(c->cell[1], CELL_MAX, "%s", o->mutex_name[0] ? o->mutex_name : "-");
        break;
    case SYNC_BARRIER:
        snprintf(c->cell[1], CELL_MAX, "%d/%d", o->count, o->limit);
        break;
    case SYNC_RWLOCK:
        holder_cell(o->holder, "-", c->cell[1]);
        snprintf(c->cell[2], CELL_MAX, "%d", o->count);
        break;
    case SYNC_SPINLOCK:
        holder_cell(o->holder, "free", c->cell[1]);
        break;
    case SYNC_KIND_COUNT:
        break;
    }
}

static bool same_cells(const struct row_cells *a, const struct row_cells *b, int n_columns)
{
    for (int i = 0; i < n_columns; i++)
        if (strcmp(a->cell[i], b->cell[i]) != 0)
            return false;
    return true;
}

static const struct state_thread *find_thread(const struct exec_state *s, int id)
{
    for (int i = 0; i < s->n_threads; i++)
        if (s->threads[i].id == id)
            return &s->threads[i];
    return NULL;
}

/* Objects are known by kind and address; one without an address by its
 * name. States list objects in the order they became known, so the same
 * index is tried first (thousands of locks: no search per row). */
static const struct state_object *find_object(const struct exec_state *s, const struct state_object *like, int index)
{
    if (index < s->n_objects) {
        const struct state_object *o = &s->objects[index];
        if (o->kind == like->kind && o->addr == like->addr && (o->addr != 0 || strcmp(o->name, like->name) == 0))
            return o;
    }
    for (int i = 0; i < s->n_objects; i++) {
        const struct state_object *o = &s->objects[i];
        if (o->kind == like->kind && o->addr == like->addr && (o->addr != 0 || strcmp(o->name, like->name) == 0))
            return o;
    }
    return NULL;
}

/* One table being filled: its rows and which of them are marked. */
struct marked_table {
    const struct table_shape *shape;
    struct text_table *table;
    bool *marked;
    int n_rows;
};

static void marked_table_begin(struct marked_table *m, const struct table_shape *shape, int max_rows)
{
    m->shape = shape;
    m->table = text_table_new(shape->n_columns);
    for (int i = 0; i < shape->n_columns; i++)
        text_table_set_width(m->table, i, 0, shape->max_width[i]);
    m->marked = calloc((size_t)max_rows + 1, sizeof *m->marked);
    if (!m->marked)
        abort();
    text_table_add_row(m->table, shape->header);
    m->n_rows = 1;
}

/* Adds a row; it is marked when the previously printed tables had no such
 * row or showed it otherwise (never before the first tables: before == NULL
 * and shown == false). */
static void marked_table_add(struct marked_table *m, const struct row_cells *now, const struct row_cells *before,
                             bool shown)
{
    const char *cells[MAX_COLUMNS];
    for (int i = 0; i < m->shape->n_columns; i++)
        cells[i] = now->cell[i];
    text_table_add_row(m->table, cells);
    m->marked[m->n_rows++] = shown && (!before || !same_cells(now, before, m->shape->n_columns));
}

static void marked_table_print(struct marked_table *m, FILE *out)
{
    char line[MAX_COLUMNS * (CELL_MAX + 2)];
    for (int r = 0; r < m->n_rows; r++) {
        text_table_line(m->table, r, line, sizeof line);
        fprintf(out, "  %c %s\n", m->marked[r] ? '*' : ' ', line);
    }
    text_table_free(m->table);
    free(m->marked);
}

static void print_threads(const struct exec_state *s, const struct exec_state *shown, FILE *out)
{
    struct marked_table m;
    marked_table_begin(&m, &thread_shape, s->n_threads);
    for (int i = 0; i < s->n_threads; i++) {
        struct row_cells now, before;
        const struct state_thread *was = shown ? find_thread(shown, s->threads[i].id) : NULL;
        thread_cells(&s->threads[i], &now);
        if (was)
            thread_cells(was, &before);
        marked_table_add(&m, &now, was ? &before : NULL, shown != NULL);
    }
    marked_table_print(&m, out);
}

/* "x := 1 (sb.c:21), y := 1 (sb.c:29)", "-" when empty; cut at CELL_MAX. */
static void buffer_cells(const struct state_thread *t, struct row_cells *c)
{
    snprintf(c->cell[0], CELL_MAX, "T%d", t->id);
    char *buf = c->cell[1];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->n_pending && used < CELL_MAX; i++) {
        const struct state_store *e = &t->pending[i];
        int n = snprintf(buf + used, CELL_MAX - used, "%s%s := %" PRIu64 "%s%s%s", i ? ", " : "", e->object, e->value,
                         e->where[0] ? " (" : "", e->where, e->where[0] ? ")" : "");
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (t->n_pending == 0)
        snprintf(buf, CELL_MAX, "-");
}

static bool has_pending(const struct exec_state *s, int id)
{
    const struct state_thread *t = s ? find_thread(s, id) : NULL;
    return t && t->n_pending > 0;
}

/* A row for each thread whose buffer holds stores now or did in the last
 * tables (emptied: "-"); no table when there is none (always under sc). */
static void print_buffers(const struct exec_state *s, const struct exec_state *shown, FILE *out)
{
    int n = 0;
    for (int i = 0; i < s->n_threads; i++)
        n += has_pending(s, s->threads[i].id) || has_pending(shown, s->threads[i].id);
    if (n == 0)
        return;
    struct marked_table m;
    marked_table_begin(&m, &buffer_shape, n);
    for (int i = 0; i < s->n_threads; i++) {
        const struct state_thread *t = &s->threads[i];
        if (!has_pending(s, t->id) && !has_pending(shown, t->id))
            continue;
        struct row_cells now, before;
        const struct state_thread *was = shown ? find_thread(shown, t->id) : NULL;
        buffer_cells(t, &now);
        if (was)
            buffer_cells(was, &before);
        marked_table_add(&m, &now, was ? &before : NULL, shown != NULL);
    }
    marked_table_print(&m, out);
}

/* Tables longer than this show only the objects in use (held, waited on,
 * or changed since the last tables) and count the others. */
enum { OBJECTS_ALL_SHOWN = 32 };

static bool in_use(const struct state_object *o)
{
    return o->holder != 0 || o->n_waiters > 0 || (o->kind == SYNC_BARRIER && o->count > 0);
}

static void print_objects(const struct exec_state *s, enum sync_kind kind, const struct exec_state *shown,
                          FILE *out)
{
    struct marked_table m;
    int n = 0;
    for (int i = 0; i < s->n_objects; i++)
        n += s->objects[i].kind == kind;
    if (n == 0)
        return;
    marked_table_begin(&m, &object_shapes[kind], n);
    int idle = 0;
    for (int i = 0; i < s->n_objects; i++) {
        const struct state_object *o = &s->objects[i];
        if (o->kind != kind)
            continue;
        struct row_cells now, before;
        const struct state_object *was = shown ? find_object(shown, o, i) : NULL;
        object_cells(o, &now);
        if (was)
            object_cells(was, &before);
        bool changed = shown && (!was || !same_cells(&now, &before, object_shapes[kind].n_columns));
        if (n > OBJECTS_ALL_SHOWN && !in_use(o) && !changed) {
            idle++;
            continue;
        }
        marked_table_add(&m, &now, was ? &before : NULL, shown != NULL);
    }
    marked_table_print(&m, out);
    if (idle)
    {
        const char *name = sync_kind_name(kind);
        const char *plural = idle == 1 ? "" : name[strlen(name) - 1] == 'x' ? "es" : "s";
        fprintf(out, "    (%d more %s%s, free and unchanged)\n", idle, name, plural);
    }
}

static const struct state_watch *find_watch(const struct exec_state *s, const char *expr)
{
    for (int i = 0; i < s->n_watches; i++)
        if (strcmp(s->watches[i].expr, expr) == 0)
            return &s->watches[i];
    return NULL;
}

static void watch_cells(const struct state_watch *w, struct row_cells *c)
{
    snprintf(c->cell[0], CELL_MAX, "%s", w->expr);
    snprintf(c->cell[1], CELL_MAX, "%s%s", w->error ? "error: " : "", w->value);
}

static void print_watches(const struct exec_state *s, const struct exec_state *shown, FILE *out)
{
    if (s->n_watches == 0)
        return;
    struct marked_table m;
    marked_table_begin(&m, &watch_shape, s->n_watches);
    for (int i = 0; i < s->n_watches; i++) {
        struct row_cells now, before;
        const struct state_watch *was = shown ? find_watch(shown, s->watches[i].expr) : NULL;
        watch_cells(&s->watches[i], &now);
        if (was)
            watch_cells(was, &before);
        marked_table_add(&m, &now, was ? &before : NULL, shown != NULL);
    }
    marked_table_print(&m, out);
}

static void print_tables(struct status_renderer *r, const struct exec_state *s, const char *title)
{
    if (s->n_threads == 0 && s->n_objects == 0 && s->n_watches == 0)
        return;
    fprintf(r->out, "  %s after step %" PRIu64 ":\n", title, s->step);
    if (s->n_threads > 0)
        print_threads(s, r->shown, r->out);
    print_buffers(s, r->shown, r->out);
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        print_objects(s, (enum sync_kind)k, r->shown, r->out);
    print_watches(s, r->shown, r->out);
    exec_state_free(r->shown);
    r->shown = exec_state_copy(s);
}

static void *status_open(FILE *out, bool every_step)
{
    struct status_renderer *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->out = out;
    r->every_step = every_step;
    return r;
}

static void status_event(void *renderer, const struct trace_event *ev, const struct exec_state *state)
{
    struct status_renderer *r = renderer;
    if (ev->switched && r->latest && !r->latest_shown)
        print_tables(r, r->latest, "state");
    trace_log_print(r->out, ev, state);
    exec_state_free(r->latest);
    r->latest = state ? exec_state_copy(state) : NULL;
    r->latest_shown = false;
    if (r->every_step && r->latest) {
        print_tables(r, r->latest, "state");
        r->latest_shown = true;
    }
}

/* After a cut, the first tables show everything again. */
static void status_segment(void *renderer)
{
    struct status_renderer *r = renderer;
    exec_state_free(r->shown);
    r->shown = NULL;
}

static void status_close(void *renderer)
{
    struct status_renderer *r = renderer;
    if (r->latest && !r->latest_shown)
        print_tables(r, r->latest, "final state");
    fflush(r->out);
    exec_state_free(r->latest);
    exec_state_free(r->shown);
    free(r);
}

const struct trace_format status_trace_format = {
    .name = "status",
    .suffix = ".status",
    .needs_state = true,
    .open = status_open,
    .event = status_event,
    .close = status_close,
    .segment = status_segment,
    .omitted = trace_log_omitted,
};
