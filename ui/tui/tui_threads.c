/* tui_threads: the threads pane of `mdat attach`: one row per thread with
 * its state, location and what it waits on or does next, the selected one
 * kept in view. In a narrow pane the columns give way in an order that
 * keeps "waiting on / next", the one a person steps by, whole: the
 * location shortens to its line, the state to its glyph and short name,
 * then the location goes (the source pane marks where each thread is) and
 * last the "thread" header; only then is the last column cut. After the
 * execution failed, the thread that failed says how ("✗ assertion"), not
 * the state it was in. Under --memory-model tso a thread with buffered stores
 * has a second row listing them, oldest first: the stores the other
 * threads do not see yet. */
#include "ui/tui/tui_threads.h"
#include "ui/text/text_table.h"
#include "ui/render/trace_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct state_thread *find_thread(const struct exec_state *st, int id)
{
    for (int i = 0; st && i < st->n_threads; i++)
        if (st->threads[i].id == id)
            return &st->threads[i];
    return NULL;
}

const struct state_thread *tui_view_thread(const struct session_view *v, int id)
{
    return find_thread(v->state, id);
}

bool tui_view_candidate(const struct session_view *v, int id)
{
    for (size_t i = 0; i < v->n_candidates; i++)
        if (v->candidates[i] == id)
            return true;
    return false;
}

static bool is_waiting(enum thread_status s)
{
    return s != THREAD_RUNNING && s != THREAD_READY && s != THREAD_SLEEPING && s != THREAD_EXITED;
}

static const char *status_glyph(const struct state_thread *t, const struct tui_glyphs *g)
{
    if (t->status == THREAD_EXITED)
        return g->exited;
    return is_waiting(t->status) ? g->blocked : g->runnable;
}

bool tui_thread_line(const struct state_thread *t, char *file, size_t len, unsigned *line)
{
    *line = 0;
    file[0] = '\0';
    if (t->status == THREAD_EXITED)
        return false;
    if (t->next.line) {
        snprintf(file, len, "%s", t->next.file);
        *line = t->next.line;
        return true;
    }
    /* "deadlock_lock_order.c:30 thread_one" */
    const char *colon = strchr(t->location, ':');
    if (!colon || colon[1] < '1' || colon[1] > '9')
        return false;
    snprintf(file, len, "%.*s", (int)(colon - t->location), t->location);
    *line = (unsigned)strtoul(colon + 1, NULL, 10);
    return *line > 0;
}

enum { CELL = TUI_CELL, DOING_MIN = 12 };

/* What the location column shows: an address of 0 means nothing is known
 * yet; "line 30 thread_one" when the file is the one the source pane shows
 * (its name is in that pane's title). */
static void location_text(const struct state_thread *t, const char *shown_file, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strcmp(t->location, "0x0") == 0 ? "" : t->location);
    size_t n = shown_file ? strlen(shown_file) : 0;
    if (n && strncmp(t->location, shown_file, n) == 0 && t->location[n] == ':')
        snprintf(buf, len, "line %s", t->location + n + 1);
}

/* The location without its function: "line 30", "deadlock_lock_order.c:30". */
static void location_short(const char *full, char *buf, size_t len)
{
    const char *space = strchr(strncmp(full, "line ", 5) == 0 ? full + 5 : full, ' ');
    snprintf(buf, len, "%.*s", space ? (int)(space - full) : (int)strlen(full), full);
}

/* "waits: mutex lock_b (held by T3)" or "next: lock lock_b". */
static void thread_doing(const struct state_thread *t, char *buf, size_t len)
{
    buf[0] = '\0';
    if (t->status == THREAD_EXITED)
        return;
    if (t->waiting_on[0]) {
        snprintf(buf, len, "waits: %s", t->waiting_on);
        return;
    }
    char op[CELL];
    trace_log_operation(&t->next, op, sizeof op);
    if (op[0])
        snprintf(buf, len, "next: %s", op);
}

static bool buffer_same(const struct state_thread *a, const struct state_thread *b)
{
    if (a->n_pending != b->n_pending)
        return false;
    for (int i = 0; i < a->n_pending; i++)
        if (a->pending[i].addr != b->pending[i].addr || a->pending[i].value != b->pending[i].value)
            return false;
    return true;
}

static bool thread_same(const struct state_thread *a, const struct state_thread *b)
{
    if (!buffer_same(a, b))
        return false;
    char x[CELL], y[CELL];
    thread_doing(a, x, sizeof x);
    thread_doing(b, y, sizeof y);
    return a->status == b->status && strcmp(a->location, b->location) == 0 && strcmp(x, y) == 0;
}

bool tui_thread_changed(const struct session_view *v, int id)
{
    const struct state_thread *now = find_thread(v->state, id);
    if (!now || !v->previous)
        return false;
    const struct state_thread *was = find_thread(v->previous, id);
    return !was || !thread_same(now, was);
}

static enum tui_style thread_style(const struct session_view *v, const struct state_thread *t)
{
    if (tui_thread_failed(v, t->id))
        return TS_ERROR;
    if (v->ask != ASK_ENDED && tui_view_candidate(v, t->id))
        return TS_RUNNABLE;
    if (t->status == THREAD_EXITED)
        return TS_EXITED;
    return is_waiting(t->status) || v->ask == ASK_ENDED ? TS_BLOCKED : TS_TEXT;
}

/* ---------- columns ---------- */

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

void tui_threads_columns(int width, int gap, const struct tui_thread_widths *w, struct tui_thread_columns *out)
{
    *out = (struct tui_thread_columns){.id_header = true, .location = true};
    for (int give_way = 0;; give_way++) {
        int id = out->id_header ? max_int(w->id, w->id_header) : w->id;
        int state = out->state_short ? w->state_short : w->state;
        int location = !out->location ? 0 : out->location_short ? w->location_short : w->location;
        int used = w->mark + gap + id + gap + state + gap + (out->location ? location + gap : 0);
        if (used + w->doing <= width || give_way == 4) {
            out->doing = used + w->doing <= width ? w->doing : max_int(width - used, DOING_MIN);
            return;
        }
        switch (give_way) {
        case 0: out->location_short = true; break;
        case 1: out->state_short = true; break;
        case 2: out->location = false; break;
        case 3: out->id_header = false; break;  /* last: a table without its header reads as noise */
        }
    }
}

/* ---------- store buffers ---------- */

/* "flag[0] := 1", with " (line 14)" when `site`. */
static void store_text(const struct state_store *e, const char *shown_file, bool site, char *buf, size_t len)
{
    snprintf(buf, len, "%s := %llu", e->object, (unsigned long long)e->value);
    if (!site || !e->where[0])
        return;
    size_t n = shown_file ? strlen(shown_file) : 0, used = strlen(buf);
    if (n && strncmp(e->where, shown_file, n) == 0 && e->where[n] == ':')
        snprintf(buf + used, len - used, " (line %s)", e->where + n + 1);
    else
        snprintf(buf + used, len - used, " (%s)", e->where);
}

/* The first `shown` stores, with their sites or not, and "+N more". */
static void buffer_line(const struct state_thread *t, const char *shown_file, bool sites, int shown, char *buf,
                        size_t len)
{
    int used = snprintf(buf, len, "T%d buffer: ", t->id);
    for (int i = 0; i < shown && used >= 0 && (size_t)used < len; i++) {
        char one[CELL];
        store_text(&t->pending[i], shown_file, sites, one, sizeof one);
        int n = snprintf(buf + used, len - (size_t)used, "%s%s", i ? ", " : "", one);
        used = n < 0 ? -1 : used + n;
    }
    if (shown < t->n_pending && used >= 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, "%s+%d more", shown ? ", " : "", t->n_pending - shown);
}

void tui_buffer_text(const struct state_thread *t, const char *shown_file, int width, char *buf, size_t len)
{
    buf[0] = '\0';
    if (t->n_pending <= 0)
        return;
    for (int shown = t->n_pending; shown >= 1; shown--) {
        for (int sites = 1; sites >= 0; sites--) {
            buffer_line(t, shown_file, sites, shown, buf, len);
            if (tui_width(buf) <= width)
                return;
        }
    }
    buffer_line(t, shown_file, false, 1, buf, len);     /* cut by the pane */
}

int tui_threads_rows(const struct session_view *v)
{
    int n = 1;
    for (int i = 0; v->state && i < v->state->n_threads; i++)
        n += 1 + (v->state->threads[i].n_pending > 0);
    return n;
}

/* ---------- the pane ---------- */

/* One thread's cells in every form the columns may take. */
struct thread_cells {
    char mark[16], id[16], state[64], state_short[64], location[CELL], location_short[CELL], doing[CELL];
};

/* The execution ended in a failure of this thread (an assertion, a crash,
 * a misuse): its state is that failure. A deadlock's threads stay as they
 * wait, which is the failure. */
bool tui_thread_failed(const struct session_view *v, int id)
{
    const struct exec_result *r = v->ask == ASK_ENDED ? v->result : NULL;
    return r && r->kind != FAIL_NONE && r->kind != FAIL_DEADLOCK && r->thread == id;
}

static void thread_cells(const struct state_thread *th, const struct session_view *v, const struct tui_threads_ui *ui,
                         struct thread_cells *c)
{
    const struct tui_glyphs *g = ui->glyphs;
    const char *status = thread_status_name(th->status);
    snprintf(c->mark, sizeof c->mark, "%s%s", tui_thread_changed(v, th->id) ? g->changed : " ",
             th->id == ui->selected ? g->selected : " ");
    snprintf(c->id, sizeof c->id, "T%d", th->id);
    if (tui_thread_failed(v, th->id)) {
        snprintf(c->state, sizeof c->state, "%s %s", g->failed, failure_kind_name(v->result->kind));
        snprintf(c->state_short, sizeof c->state_short, "%s", c->state);
    } else {
        snprintf(c->state, sizeof c->state, "%s %s", status_glyph(th, g), status);
        snprintf(c->state_short, sizeof c->state_short, "%s %s", status_glyph(th, g),
                 strncmp(status, "waiting-", 8) == 0 ? status + 8 : status);
    }
    location_text(th, ui->shown_file, c->location, sizeof c->location);
    location_short(c->location, c->location_short, sizeof c->location_short);
    thread_doing(th, c->doing, sizeof c->doing);
}

static const char *const HEADER[] = {"", "thread", "state", "location", "waiting on / next"};

static void measure(const struct thread_cells *c, int n, struct tui_thread_widths *w)
{
    *w = (struct tui_thread_widths){.id_header = tui_width(HEADER[1]), .state = tui_width(HEADER[2]),
                                    .state_short = tui_width(HEADER[2]), .location = tui_width(HEADER[3]),
                                    .location_short = tui_width(HEADER[3]), .doing = tui_width(HEADER[4])};
    for (int i = 0; i < n; i++) {
        w->mark = max_int(w->mark, tui_width(c[i].mark));
        w->id = max_int(w->id, tui_width(c[i].id));
        w->state = max_int(w->state, tui_width(c[i].state));
        w->state_short = max_int(w->state_short, tui_width(c[i].state_short));
        w->location = max_int(w->location, tui_width(c[i].location));
        w->location_short = max_int(w->location_short, tui_width(c[i].location_short));
        w->doing = max_int(w->doing, tui_width(c[i].doing));
    }
}

/* The table in the forms that fit: rows 1..n are the threads, row 0 the header. */
static struct text_table *fitted_table(const struct thread_cells *c, int n, int width)
{
    struct tui_thread_widths w;
    struct tui_thread_columns fit;
    measure(c, n, &w);
    tui_threads_columns(width, 2, &w, &fit);
    int n_columns = fit.location ? 5 : 4;
    struct text_table *t = text_table_new(n_columns);
    text_table_set_width(t, n_columns - 1, 0, fit.doing);
    const char *header[] = {HEADER[0], fit.id_header ? HEADER[1] : "", HEADER[2], HEADER[3], HEADER[4]};
    if (!fit.location)
        header[3] = HEADER[4];
    text_table_add_row(t, header);
    for (int i = 0; i < n; i++) {
        const char *location = fit.location_short ? c[i].location_short : c[i].location;
        const char *cells[] = {c[i].mark, c[i].id, fit.state_short ? c[i].state_short : c[i].state,
                               fit.location ? location : c[i].doing, c[i].doing};
        text_table_add_row(t, cells);
    }
    return t;
}

/* Under the thread's row, from its id column (after the two marks and the
 * gap): its buffered stores. Dimmed while they cannot be flushed. */
static void add_buffer_row(struct tui_pane *p, const struct tui_rect *r, const struct session_view *v,
                           const struct tui_threads_ui *ui, const struct state_thread *th)
{
    enum { INDENT = 4 };
    char text[TUI_ROW_BYTES], line[TUI_ROW_BYTES];
    tui_buffer_text(th, ui->shown_file, r->w - INDENT, text, sizeof text);
    snprintf(line, sizeof line, "%*s%s", INDENT, "", text);
    bool flushable = v->ask == ASK_THREAD && tui_view_candidate(v, -th->id);
    struct tui_row *row = tui_pane_add(p, line, r->w, ui->glyphs, flushable ? TS_TEXT : TS_BLOCKED);
    row->thread = th->id;
    row->changed = tui_thread_changed(v, th->id);
}

void tui_threads_build(struct tui_pane *p, const struct tui_rect *r, const struct session_view *v,
                       const struct tui_threads_ui *ui, int *cursor_y, int *cursor_x)
{
    const struct tui_glyphs *g = ui->glyphs;
    int n = v->state ? v->state->n_threads : 0;
    int runnable = 0, flushable = 0;
    for (int i = 0; i < n; i++) {
        runnable += v->ask == ASK_THREAD && tui_view_candidate(v, v->state->threads[i].id);
        flushable += v->ask == ASK_THREAD && tui_view_candidate(v, -v->state->threads[i].id);
    }
    if (v->ask == ASK_WAITER)
        tui_pane_title(p, g, "threads (%d): choose the waiter to wake", n);
    else if (v->ask == ASK_ENDED)
        tui_pane_title(p, g, "threads (%d): the execution has ended", n);
    else if (flushable) {
        /* The long form when the pane has room (120x40's right column has not). */
        char title[160];
        snprintf(title, sizeof title, "threads (%d, %d can run %s): digit or Enter steps one, f flushes", n,
                 runnable, g->runnable);
        if (tui_width(title) + 2 > r->w)
            snprintf(title, sizeof title, "threads (%d, %d can run %s): digit steps, f flushes", n, runnable,
                     g->runnable);
        tui_pane_title(p, g, "%s", title);
    }
    else
        tui_pane_title(p, g, "threads (%d, %d can run %s): digit or Enter steps one", n, runnable, g->runnable);
    struct thread_cells *cells = calloc((size_t)n + 1, sizeof *cells);
    if (!cells)
        abort();
    for (int i = 0; i < n; i++)
        thread_cells(&v->state->threads[i], v, ui, &cells[i]);
    struct text_table *t = fitted_table(cells, n, r->w);
    free(cells);
    /* A window of the rows (threads and their buffers) that keeps the
     * selected thread, and its buffer when there is room, in view. */
    int height = tui_rect_content(r) - 1, selected_row = 0, n_rows = tui_threads_rows(v) - 1;
    for (int i = 0, at = 0; i < n; i++) {
        const struct state_thread *th = &v->state->threads[i];
        if (th->id == ui->selected)
            selected_row = at + (th->n_pending > 0 && height > 2);
        at += 1 + (th->n_pending > 0);
    }
    int first = height > 0 ? tui_source_first(n_rows, height, selected_row + 1) - 1 : 0;
    char line[TUI_ROW_BYTES];
    text_table_line(t, 0, line, sizeof line);
    tui_pane_add(p, line, r->w, g, TS_HEADER);
    for (int i = 0; i < n; i++) {
        const struct state_thread *th = &v->state->threads[i];
        text_table_line(t, i + 1, line, sizeof line);
        struct tui_row *row = tui_pane_add(p, line, r->w, g, thread_style(v, th));
        row->thread = th->id;
        row->changed = tui_thread_changed(v, th->id);
        if (row->changed)
            tui_row_span(row, 0, 1, TS_CHANGED);
        if (th->id == ui->selected)     /* the mark, the gap, "T2" */
            tui_row_span(row, 1, 3 + snprintf(NULL, 0, "T%d", th->id), TS_CURRENT);
        int at = p->n_rows - 2;         /* this row among those below the header */
        if (th->id == ui->selected && at >= first && at < first + height) {
            *cursor_y = r->y + 2 + (at - first);
            *cursor_x = r->x + 1;
        }
        if (th->n_pending > 0)
            add_buffer_row(p, r, v, ui, th);
    }
    /* Keep the header and the window only. */
    if (first > 0 && p->n_rows > 1) {
        memmove(&p->rows[1], &p->rows[1 + first], (size_t)(p->n_rows - 1 - first) * sizeof *p->rows);
        p->n_rows -= first;
    }
    text_table_free(t);
}
