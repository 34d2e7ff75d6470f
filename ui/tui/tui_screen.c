/* tui_screen: the rows of every pane, their styles and change marks.
 *
 * States are always spelled out and carry a symbol (runnable, blocked,
 * exited), and a row that changed on the last step carries a mark in its
 * first column, so that nothing depends on colour alone. */
#include "ui/tui/tui_screen.h"
#include "ui/text/text_table.h"
#include "ui/render/trace_log.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct tui_glyphs tui_glyphs_utf8 = {true, "\u25b6", "\u25a0", "\u00b7", "\u25b8", "*", "\u25cf", "\u2026"};
const struct tui_glyphs tui_glyphs_ascii = {false, "+", "#", "-", ">", "*", "B", "..."};

enum { CELL = 256, GUTTER_MARKS = 6 };

/* ---------- text ---------- */

/* Length of the UTF-8 sequence starting with byte c (1 for stray bytes). */
static int utf8_len(unsigned char c)
{
    if (c >= 0xf0 && c < 0xf8)
        return 4;
    if (c >= 0xe0)
        return c < 0xf0 ? 3 : 1;
    if (c >= 0xc0)
        return 2;
    return 1;
}

/* A whole, well-formed sequence of n bytes at p. */
static bool utf8_ok(const unsigned char *p, int n)
{
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return false;
    return true;
}

int tui_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(*p);
        if (!utf8_ok(p, n))
            n = 1;
        p += n;
        w++;
    }
    return w;
}

int tui_fit(const char *src, int width, bool utf8, char *dst, size_t len)
{
    size_t o = 0;
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && w < width;) {
        int n = utf8_len(*p);
        bool ok = n > 1 && utf8_ok(p, n);
        if (*p < 0x80) {
            if (o + 2 > len)
                break;
            dst[o++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
            p++;
        } else if (ok && utf8) {
            if (o + (size_t)n + 1 > len)
                break;
            memcpy(dst + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
        } else {
            if (o + 2 > len)
                break;
            dst[o++] = '?';
            p += ok ? n : 1;
        }
        w++;
    }
    if (len)
        dst[o] = '\0';
    return w;
}

/* ---------- panes ---------- */

static struct tui_row *pane_add(struct tui_pane *p, const char *text, int width, const struct tui_glyphs *g,
                                enum tui_style style)
{
    if (p->n_rows == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 32;
        p->rows = realloc(p->rows, (size_t)p->cap * sizeof *p->rows);
        if (!p->rows)
            abort();
    }
    struct tui_row *r = &p->rows[p->n_rows++];
    memset(r, 0, sizeof *r);
    tui_fit(text, width, g->utf8, r->text, sizeof r->text);
    r->style = style;
    return r;
}

static void add_span(struct tui_row *r, int start, int len, enum tui_style style)
{
    if (r->n_spans < TUI_ROW_SPANS && len > 0)
        r->span[r->n_spans++] = (struct tui_span){start, len, style};
}

static void pane_title(struct tui_pane *p, const struct tui_glyphs *g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pane_title(struct tui_pane *p, const struct tui_glyphs *g, const char *fmt, ...)
{
    char buf[TUI_ROW_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_fit(buf, TUI_ROW_BYTES / 4, g->utf8, p->title, sizeof p->title);
}

static void pane_clear(struct tui_pane *p)
{
    p->n_rows = 0;
    p->title[0] = '\0';
}

void tui_screen_init(struct tui_screen *s)
{
    memset(s, 0, sizeof *s);
}

void tui_screen_free(struct tui_screen *s)
{
    struct tui_pane *panes[] = {&s->source, &s->threads, &s->objects, &s->log, &s->output};
    for (size_t i = 0; i < sizeof panes / sizeof panes[0]; i++)
        free(panes[i]->rows);
    memset(s, 0, sizeof *s);
}

/* ---------- threads ---------- */

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

/* What the location column shows: an address of 0 means nothing is known
 * yet; in a narrow pane "line 30 thread_one" when the file is the one the
 * source pane shows (its name is in that pane's title). */
static void location_text(const struct state_thread *t, const char *shown_file, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strcmp(t->location, "0x0") == 0 ? "" : t->location);
    size_t n = shown_file ? strlen(shown_file) : 0;
    if (n && strncmp(t->location, shown_file, n) == 0 && t->location[n] == ':')
        snprintf(buf, len, "line %s", t->location + n + 1);
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

static bool thread_same(const struct state_thread *a, const struct state_thread *b)
{
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
    if (v->ask != ASK_ENDED && tui_view_candidate(v, t->id))
        return TS_RUNNABLE;
    if (t->status == THREAD_EXITED)
        return TS_EXITED;
    return is_waiting(t->status) || v->ask == ASK_ENDED ? TS_BLOCKED : TS_TEXT;
}

static void build_threads(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->threads;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.threads;
    int n = v->state ? v->state->n_threads : 0;
    int runnable = 0;
    for (int i = 0; i < n; i++)
        runnable += v->ask == ASK_THREAD && tui_view_candidate(v, v->state->threads[i].id);
    if (v->ask == ASK_WAITER)
        pane_title(p, g, "threads (%d): choose the waiter to wake", n);
    else if (v->ask == ASK_ENDED)
        pane_title(p, g, "threads (%d): the execution has ended", n);
    else
        pane_title(p, g, "threads (%d, %d can run %s): digit or Enter steps one", n, runnable, g->runnable);
    struct text_table *t = text_table_new(5);
    text_table_set_width(t, 3, 0, r->w * 2 / 5 > 20 ? r->w * 2 / 5 : 20);
    const char *header[] = {"", "thread", "state", "location", "waiting on / next"};
    text_table_add_row(t, header);
    for (int i = 0; i < n; i++) {
        const struct state_thread *th = &v->state->threads[i];
        char mark[16], id[16], state[64], doing[CELL];
        snprintf(mark, sizeof mark, "%s%s", tui_thread_changed(v, th->id) ? g->changed : " ",
                 th->id == ui->selected ? g->selected : " ");
        snprintf(id, sizeof id, "T%d", th->id);
        snprintf(state, sizeof state, "%s %s", status_glyph(th, g), thread_status_name(th->status));
        thread_doing(th, doing, sizeof doing);
        char where[CELL];
        location_text(th, r->w < TUI_WIDE_COLS && ui->source ? ui->source->name : NULL, where, sizeof where);
        const char *cells[] = {mark, id, state, where, doing};
        text_table_add_row(t, cells);
    }
    /* A window of the threads that keeps the selected one in view. */
    int height = tui_rect_content(r) - 1, selected_index = 0;
    for (int i = 0; i < n; i++)
        if (v->state->threads[i].id == ui->selected)
            selected_index = i;
    int first = height > 0 ? tui_source_first(n, height, selected_index + 1) - 1 : 0;
    char line[TUI_ROW_BYTES];
    text_table_line(t, 0, line, sizeof line);
    pane_add(p, line, r->w, g, TS_HEADER);
    for (int i = 0; i < n; i++) {
        const struct state_thread *th = &v->state->threads[i];
        text_table_line(t, i + 1, line, sizeof line);
        struct tui_row *row = pane_add(p, line, r->w, g, thread_style(v, th));
        row->thread = th->id;
        row->changed = tui_thread_changed(v, th->id);
        if (row->changed)
            add_span(row, 0, 1, TS_CHANGED);
        if (th->id == ui->selected)     /* the mark, the gap, "T2" */
            add_span(row, 1, 3 + snprintf(NULL, 0, "T%d", th->id), TS_CURRENT);
        if (th->id == ui->selected && i >= first && i < first + height) {
            s->cursor_y = r->y + 2 + (i - first);
            s->cursor_x = r->x + 1;
        }
    }
    /* Keep the header and the window only. */
    if (first > 0 && p->n_rows > 1) {
        memmove(&p->rows[1], &p->rows[1 + first], (size_t)(p->n_rows - 1 - first) * sizeof *p->rows);
        p->n_rows -= first;
    }
    text_table_free(t);
}

/* ---------- sync objects and watches ---------- */

static const struct state_object *find_object(const struct exec_state *st, const struct state_object *like)
{
    for (int i = 0; st && i < st->n_objects; i++) {
        const struct state_object *o = &st->objects[i];
        if (o->kind == like->kind && o->addr == like->addr && (o->addr || strcmp(o->name, like->name) == 0))
            return o;
    }
    return NULL;
}

static void holder_text(int holder, const char *verb, const char *when_free, char *buf, size_t len)
{
    if (holder > 0)
        snprintf(buf, len, "%s T%d", verb, holder);
    else
        snprintf(buf, len, "%s", holder < 0 ? "held outside the program" : when_free);
}

static void object_cells(const struct state_object *o, char *state, char *waiting, size_t len)
{
    switch (o->kind) {
    case SYNC_MUTEX:
    case SYNC_SPINLOCK:
        holder_text(o->holder, "held by", "free", state, len);
        if (o->holder > 0 && o->count > 1)
            snprintf(state + strlen(state), len - strlen(state), " (x%d)", o->count);
        break;
    case SYNC_SEMAPHORE:
    case SYNC_FUTEX:
        snprintf(state, len, "value %d", o->count);
        break;
    case SYNC_CONDVAR:
        snprintf(state, len, "mutex %s", o->mutex_name[0] ? o->mutex_name : "-");
        break;
    case SYNC_BARRIER:
        snprintf(state, len, "arrived %d/%d", o->count, o->limit);
        break;
    case SYNC_RWLOCK:
        if (o->holder != 0)
            holder_text(o->holder, "writer", "free", state, len);
        else if (o->count > 0)
            snprintf(state, len, "%d reader%s", o->count, o->count == 1 ? "" : "s");
        else
            snprintf(state, len, "free");
        break;
    case SYNC_KIND_COUNT:
        state[0] = '\0';
        break;
    }
    size_t used = 0;
    waiting[0] = '\0';
    for (int i = 0; i < o->n_waiters && used < len; i++) {
        int n = snprintf(waiting + used, len - used, "%sT%d", i ? " " : "waiting: ", o->waiters[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static bool object_changed(const struct session_view *v, const struct state_object *o)
{
    if (!v->previous)
        return false;
    const struct state_object *was = find_object(v->previous, o);
    if (!was)
        return true;
    char a[CELL], b[CELL], c[CELL], d[CELL];
    object_cells(o, a, b, CELL);
    object_cells(was, c, d, CELL);
    return strcmp(a, c) != 0 || strcmp(b, d) != 0;
}

static bool watch_changed(const struct session_view *v, const struct state_watch *w)
{
    if (!v->previous)
        return false;
    for (int i = 0; i < v->previous->n_watches; i++)
        if (strcmp(v->previous->watches[i].expr, w->expr) == 0)
            return strcmp(v->previous->watches[i].value, w->value) != 0;
    return true;
}

static int count_object_rows(const struct session_view *v)
{
    int n = v->n_watches;
    if (v->state)
        n += v->state->n_objects;
    return n;
}

static void build_objects(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->objects;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.objects;
    const struct exec_state *st = v->state;
    int n_objects = st ? st->n_objects : 0;
    pane_title(p, g, "sync objects (%d) and watches (%d)", n_objects, v->n_watches);
    struct text_table *t = text_table_new(5);
    text_table_set_width(t, 2, 0, 32);
    bool changed[256] = {false};
    int rows = 0;
    for (int i = 0; i < n_objects && rows < 256; i++, rows++) {
        const struct state_object *o = &st->objects[i];
        char state[CELL], waiting[CELL];
        object_cells(o, state, waiting, CELL);
        changed[rows] = object_changed(v, o);
        const char *cells[] = {changed[rows] ? g->changed : " ", sync_kind_name(o->kind), o->name, state, waiting};
        text_table_add_row(t, cells);
    }
    /* The watches the state evaluated; an expression it has no value for yet still shows. */
    for (int i = 0; i < v->n_watches && rows < 256; i++, rows++) {
        const struct state_watch *w = NULL;
        for (int k = 0; st && k < st->n_watches; k++)
            if (strcmp(st->watches[k].expr, v->watches[i]) == 0)
                w = &st->watches[k];
        char value[CELL], number[16];
        snprintf(number, sizeof number, "watch %d", i + 1);
        if (w)
            snprintf(value, sizeof value, "%s%s", w->error ? "" : "= ", w->value);
        else
            snprintf(value, sizeof value, "(no value yet)");
        changed[rows] = w && watch_changed(v, w);
        const char *cells[] = {changed[rows] ? g->changed : " ", number, v->watches[i], value, ""};
        text_table_add_row(t, cells);
    }
    char line[TUI_ROW_BYTES];
    for (int i = 0; i < rows; i++) {
        text_table_line(t, i, line, sizeof line);
        bool is_watch = i >= n_objects;
        struct tui_row *row = pane_add(p, line, r->w, g, changed[i] ? TS_CHANGED : TS_TEXT);
        row->changed = changed[i];
        if (is_watch && st)
            for (int k = 0; k < st->n_watches; k++)
                if (strcmp(st->watches[k].expr, v->watches[i - n_objects]) == 0 && st->watches[k].error)
                    row->style = TS_ERROR;
    }
    text_table_free(t);
}

/* ---------- source ---------- */

/* "2>", "2,3>", "2,3+>" when they do not fit. */
static void gutter_marks(const int *ids, int n, char *buf, size_t len)
{
    char list[64] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof list; i++) {
        int k = snprintf(list + used, sizeof list - used, "%s%d", i ? "," : "", ids[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    if (n == 0) {
        buf[0] = '\0';
        return;
    }
    if (strlen(list) > GUTTER_MARKS - 1) {
        list[GUTTER_MARKS - 2] = '\0';
        size_t l = strlen(list);
        if (l && list[l - 1] == ',')
            list[l - 1] = '\0';
        snprintf(buf, len, "%s+>", list);
    } else {
        snprintf(buf, len, "%s>", list);
    }
}

static bool has_breakpoint(const struct session_view *v, const char *file, unsigned line)
{
    for (int i = 0; i < v->n_breakpoints; i++)
        if (v->breakpoints[i].line == line && strcmp(v->breakpoints[i].file, file) == 0)
            return true;
    return false;
}

static void build_source(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->source;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.source;
    const struct tui_source *src = ui->source;
    if (!src) {
        const struct state_thread *t = find_thread(v->state, ui->selected);
        char text[128];
        if (t && strcmp(t->next.op, "start") == 0)
            snprintf(text, sizeof text, "(T%d has not started: its next step starts it)", t->id);
        else
            snprintf(text, sizeof text, "(no source line for T%d)", ui->selected);
        pane_title(p, g, "source");
        pane_add(p, text, r->w, g, TS_EXITED);
        return;
    }
    if (ui->source_line)
        pane_title(p, g, "source: %s (T%d at line %u)", src->name, ui->selected, ui->source_line);
    else
        pane_title(p, g, "source: %s", src->name);
    if (!src->ok) {
        pane_add(p, src->error, r->w, g, TS_ERROR);
        return;
    }
    int height = tui_rect_content(r);
    /* Show every thread's line in this file when they fit, else centre the selected one. */
    int lo = (int)ui->source_line, hi = lo;
    for (int i = 0; v->state && i < v->state->n_threads; i++) {
        char file[64];
        unsigned at;
        if (tui_thread_line(&v->state->threads[i], file, sizeof file, &at) && strcmp(file, src->name) == 0) {
            lo = lo == 0 || (int)at < lo ? (int)at : lo;
            hi = (int)at > hi ? (int)at : hi;
        }
    }
    int first = tui_source_first(src->n_lines, height, (int)ui->source_line);
    if (lo > 0 && hi - lo < height && (ui->source_line == 0 || ((int)ui->source_line >= lo && (int)ui->source_line <= hi)))
        first = tui_source_covering(src->n_lines, height, lo, hi);
    int digits = snprintf(NULL, 0, "%d", src->n_lines);
    for (int ln = first; ln < first + height && ln <= src->n_lines; ln++) {
        int ids[64], n = 0;
        for (int i = 0; v->state && i < v->state->n_threads && n < 64; i++) {
            char file[64];
            unsigned at;
            if (tui_thread_line(&v->state->threads[i], file, sizeof file, &at) && at == (unsigned)ln &&
                strcmp(file, src->name) == 0)
                ids[n++] = v->state->threads[i].id;
        }
        char marks[32], text[TUI_ROW_BYTES];
        gutter_marks(ids, n, marks, sizeof marks);
        bool bp = has_breakpoint(v, src->name, (unsigned)ln);
        snprintf(text, sizeof text, "%*s%s%*d  %s", GUTTER_MARKS, marks, bp ? g->breakpoint : " ", digits, ln,
                 src->lines[ln - 1]);
        bool current = ui->source_line == (unsigned)ln;
        struct tui_row *row = pane_add(p, text, r->w, g, current ? TS_CURRENT : TS_TEXT);
        if (n && !current)
            add_span(row, 0, GUTTER_MARKS, TS_MARK);
        if (bp)
            add_span(row, GUTTER_MARKS, 1, TS_BREAK);
    }
}

/* ---------- log, output ---------- */

void tui_log_line(const struct trace_event *e, const char *shown_file, char *buf, size_t len)
{
    char op[CELL];
    trace_log_operation(e, op, sizeof op);
    int n = snprintf(buf, len, "%5" PRIu64 " %c T%-2d %-22s", e->step, e->switched ? '*' : ' ', e->thread, op);
    if (e->outcome[0] && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " -> %s", e->outcome);
    size_t f = shown_file ? strlen(shown_file) : 0;
    if (f && strncmp(e->where, shown_file, f) == 0 && e->where[f] == ':' && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "  @ line %s", e->where + f + 1);
    else if (e->where[0] && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "  @ %s", e->where);
    size_t l = strlen(buf);
    while (l > 0 && buf[l - 1] == ' ')
        buf[--l] = '\0';
}

static void build_log(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->log;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.log;
    int total = (int)v->n_events, height = tui_rect_content(r);
    int first = tui_tail_first(total, height, ui->log_back);
    if (total == 0)
        pane_title(p, g, "event log: no step yet");
    else
        pane_title(p, g, "event log: steps %" PRIu64 "-%" PRIu64 " of %" PRIu64 "%s", v->events[first].step,
                   v->events[first + height < total ? first + height - 1 : total - 1].step, v->events[total - 1].step,
                   first + height < total ? " (PgDn: newer)" : "");
    for (int i = first; i < total && i < first + height; i++) {
        char line[TRACE_LOG_LINE_MAX];
        tui_log_line(&v->events[i], r->w < TUI_WIDE_COLS && ui->source ? ui->source->name : NULL, line, sizeof line);
        pane_add(p, line, r->w, g, i == total - 1 ? TS_CHANGED : TS_TEXT);
    }
}

static void build_output(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->output;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.output;
    int height = tui_rect_content(r);
    pane_title(p, g, "program output (%zu bytes; o hides)", v->output_len);
    /* The last `height` lines (a last line without newline counts). */
    size_t end = v->output_len;
    if (end && v->output[end - 1] == '\n')
        end--;
    size_t start = end;
    int lines = 0;
    while (start > 0 && lines < height) {
        start--;
        if (v->output[start] == '\n' && ++lines == height) {
            start++;
            break;
        }
    }
    if (v->output_len == 0) {
        pane_add(p, "(nothing yet)", r->w, g, TS_EXITED);
        return;
    }
    while (start < end) {
        const char *nl = memchr(v->output + start, '\n', end - start);
        size_t len = nl ? (size_t)(nl - (v->output + start)) : end - start;
        char line[TUI_ROW_BYTES];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), v->output + start);
        pane_add(p, line, r->w, g, TS_TEXT);
        start += len + 1;
    }
}

/* ---------- status, message, hint, chooser ---------- */

static void set_row(struct tui_row *row, const char *text, int width, const struct tui_glyphs *g,
                    enum tui_style style)
{
    memset(row, 0, sizeof *row);
    tui_fit(text, width, g->utf8, row->text, sizeof row->text);
    row->style = style;
}

static void build_status(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    const char *name = strrchr(v->program, '/');
    name = name ? name + 1 : v->program;
    char step[64], last[CELL] = "", text[TUI_ROW_BYTES];
    if (v->reach > v->step || v->end_known)
        snprintf(step, sizeof step, "step %" PRIu64 " of %" PRIu64, v->step, v->reach);
    else
        snprintf(step, sizeof step, "step %" PRIu64, v->step);
    if (v->n_events) {
        const struct trace_event *e = &v->events[v->n_events - 1];
        char op[CELL];
        trace_log_operation(e, op, sizeof op);
        snprintf(last, sizeof last, "last: T%d %s", e->thread, op);
    } else {
        snprintf(last, sizeof last, "last: -");
    }
    int n = snprintf(text, sizeof text, " %s | %s | %s | %s%s", name, step, last, v->mode,
                     v->unsaved ? " (unsaved)" : "");
    if (ui->demo && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, " | demo %s", ui->demo);
    if (ui->theme && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, " | theme %s", ui->theme);
    set_row(&s->status, text, s->cols, ui->glyphs, TS_STATUS);
}

static const char *message_of(const struct session_view *v, const struct tui_ui *ui, bool *error)
{
    *error = false;
    if (ui->message) {
        *error = ui->message_error;
        return ui->message;
    }
    if (v->notice && v->notice[0]) {
        *error = v->notice_is_error;
        return v->notice;
    }
    if (v->ask == ASK_ENDED && v->result) {
        *error = v->result->kind != FAIL_NONE;
        if (v->result->message[0])
            return v->result->message;
        return "the program ran to its end: b goes back, s saves the schedule";
    }
    return NULL;
}

static void build_popup(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    if (v->ask != ASK_WAITER)
        return;
    const struct state_thread *waker = find_thread(v->state, v->waker);
    char op[CELL] = "wakes";
    if (waker)
        trace_log_operation(&waker->next, op, sizeof op);
    snprintf(s->popup[0], sizeof s->popup[0], "T%d %s: which waiter wakes?", v->waker, op[0] ? op : "wakes");
    size_t used = 0;
    char *line = s->popup[1];
    line[0] = '\0';
    for (size_t i = 0; i < v->n_candidates && used < sizeof s->popup[1]; i++) {
        const struct state_thread *t = find_thread(v->state, v->candidates[i]);
        int start = tui_width(line);
        int n = snprintf(line + used, sizeof s->popup[1] - used, "%s[%d] %s", i ? "   " : "", v->candidates[i],
                         t ? t->start : "");
        if (n < 0)
            break;
        used += (size_t)n;
        if (v->candidates[i] == ui->selected)
            s->popup_span[1] = (struct tui_span){start + (i ? 3 : 0), tui_width(line) - start - (i ? 3 : 0),
                                                 TS_CURRENT};
    }
    snprintf(s->popup[2], sizeof s->popup[2], "press its number, or Up/Down and Enter");
    s->n_popup = 3;
}

/* ---------- the whole screen ---------- */

void tui_screen_build(struct tui_screen *s, int cols, int rows, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *panes[] = {&s->source, &s->threads, &s->objects, &s->log, &s->output};
    for (size_t i = 0; i < sizeof panes / sizeof panes[0]; i++)
        pane_clear(panes[i]);
    s->cols = cols;
    s->rows = rows;
    s->n_popup = 0;
    memset(s->popup_span, 0, sizeof s->popup_span);
    s->cursor_y = s->cursor_x = 0;
    s->too_small[0] = '\0';
    bool message_error;
    const char *message = message_of(v, ui, &message_error);
    int n_lines = 0;
    for (size_t i = 0; i < v->output_len; i++)
        n_lines += v->output[i] == '\n';
    struct tui_layout_needs needs = {
        .thread_rows = 1 + (v->state ? v->state->n_threads : 0),
        .object_rows = count_object_rows(v),
        .log_rows = (int)v->n_events,
        .show_output = ui->show_output,
        .output_rows = n_lines + 1,
        .message = message != NULL,
    };
    tui_layout_compute(cols, rows, &needs, &s->layout);
    if (s->layout.too_small) {
        snprintf(s->too_small, sizeof s->too_small, "terminal too small (need %dx%d, have %dx%d)", TUI_MIN_COLS,
                 TUI_MIN_ROWS, cols, rows);
        return;
    }
    const struct tui_glyphs *g = ui->glyphs;
    build_status(s, v, ui);
    build_source(s, v, ui);
    build_threads(s, v, ui);
    if (s->layout.objects.h)
        build_objects(s, v, ui);
    build_log(s, v, ui);
    if (s->layout.output.h)
        build_output(s, v, ui);
    build_popup(s, v, ui);
    if (message) {
        set_row(&s->message, message, cols, g, message_error ? TS_ERROR : TS_MESSAGE);
        if (ui->message && ui->message_cursor >= 0) {
            s->cursor_y = s->layout.message.y;
            s->cursor_x = ui->message_cursor < cols ? ui->message_cursor : cols - 1;
        }
    } else {
        memset(&s->message, 0, sizeof s->message);
    }
    char hint[TUI_ROW_BYTES];
    tui_hint_bar(ui->hint_context, cols, hint, sizeof hint);
    set_row(&s->hint, hint, cols, g, TS_HINT);
}
