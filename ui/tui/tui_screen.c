/* tui_screen: the rows of every pane, their styles and change marks.
 *
 * States are always spelled out and carry a symbol (runnable, blocked,
 * exited), and a row that changed on the last step carries a mark in its
 * first column, so that nothing depends on colour alone. */
#include "ui/tui/tui_screen.h"
#include "ui/text/text_table.h"
#include "ui/render/trace_log.h"
#include "supervisor/detect/cause_steps.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELL = TUI_CELL, GUTTER_MARKS = 6 };

void tui_screen_init(struct tui_screen *s)
{
    memset(s, 0, sizeof *s);
}

void tui_screen_free(struct tui_screen *s)
{
    struct tui_pane *panes[] = {&s->source, &s->threads, &s->objects, &s->story, &s->log, &s->output};
    for (size_t i = 0; i < sizeof panes / sizeof panes[0]; i++)
        free(panes[i]->rows);
    memset(s, 0, sizeof *s);
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
    tui_pane_title(p, g, "sync objects (%d) and watches (%d)", n_objects, v->n_watches);
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
        struct tui_row *row = tui_pane_add(p, line, r->w, g, changed[i] ? TS_CHANGED : TS_TEXT);
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
        const struct state_thread *t = tui_view_thread(v, ui->selected);
        char text[128];
        if (t && strcmp(t->next.op, "start") == 0)
            snprintf(text, sizeof text, "(T%d has not started: its next step starts it)", t->id);
        else
            snprintf(text, sizeof text, "(no source line for T%d)", ui->selected);
        tui_pane_title(p, g, "source");
        tui_pane_add(p, text, r->w, g, TS_EXITED);
        return;
    }
    if (ui->source_line)
        tui_pane_title(p, g, "source: %s (T%d at line %u)", src->name, ui->selected, ui->source_line);
    else
        tui_pane_title(p, g, "source: %s", src->name);
    if (!src->ok) {
        tui_pane_add(p, src->error, r->w, g, TS_ERROR);
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
        struct tui_row *row = tui_pane_add(p, text, r->w, g, current ? TS_CURRENT : TS_TEXT);
        if (n && !current)
            tui_row_span(row, 0, GUTTER_MARKS, TS_MARK);
        if (bp)
            tui_row_span(row, GUTTER_MARKS, 1, TS_BREAK);
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

/* The rows of a log that keeps the failure's cause in view: its cause
 * steps, the last `tail` steps, and a gap row (-1) between steps that are
 * not next to each other. Returns the rows, or more than max when they do
 * not fit. */
static int log_story(const size_t *cause, int n_cause, int total, int tail, bool gaps, long *rows, int max)
{
    int n = 0;
    long previous = -2;
    for (int i = 0; i < n_cause; i++) {
        long at = (long)cause[i];
        if (at >= total - tail)
            break;
        if (gaps && previous >= 0 && at > previous + 1) {
            if (n < max)
                rows[n] = -1;
            n++;
        }
        if (n < max)
            rows[n] = at;
        n++;
        previous = at;
    }
    long first = total - tail;
    if (gaps && previous >= 0 && first > previous + 1) {
        if (n < max)
            rows[n] = -1;
        n++;
    }
    for (long at = first; at < total; at++) {
        if (n < max)
            rows[n] = at;
        n++;
    }
    return n;
}

/* At the end of a failed execution, with the log not scrolled: which rows
 * to show so that the steps that caused the failure stay on screen, as
 * many of the last steps as fit after them. 0: show the plain tail. */
static int log_rows_with_cause(const struct session_view *v, int height, const size_t *cause, int n_cause, long *rows)
{
    if (n_cause == 0 || height < 3)
        return 0;
    int total = (int)v->n_events;
    /* The cause steps first: the "..." rows between far-apart steps go
     * when they do not all fit with the last step (the step numbers still
     * say where they are), then the earliest cause steps. */
    for (int drop = 0; drop < n_cause; drop++) {
        for (int gaps = 1; gaps >= 0; gaps--) {
            for (int tail = height; tail >= 1; tail--) {
                int n = log_story(cause + drop, n_cause - drop, total, tail < total ? tail : total, gaps, rows,
                                  height);
                if (n <= height)
                    return n;
            }
        }
    }
    return 0;
}

static bool is_cause(const size_t *cause, int n_cause, size_t at)
{
    for (int i = 0; i < n_cause; i++)
        if (cause[i] == at)
            return true;
    return false;
}

/* In a log as wide as the screen, a step of the file the source pane shows
 * carries its line of code after the step, at a column of its own: what
 * the step ran, readable from the back of a lecture hall. */
static void append_code(const struct trace_event *e, const struct tui_ui *ui, int width, char *line, size_t len)
{
    enum { CODE_COLUMN = 76, CODE_MIN = 16 };
    const struct tui_source *src = ui->source;
    if (width < TUI_WIDE_COLS || !src || !src->ok || !e->line || (int)e->line > src->n_lines ||
        strcmp(e->file, src->name) != 0)
        return;
    const char *code = src->lines[e->line - 1];
    while (*code == ' ')
        code++;
    int used = tui_width(line), column = used < CODE_COLUMN ? CODE_COLUMN : used + 2;
    if (!code[0] || column + 2 + CODE_MIN > width)
        return;
    size_t l = strlen(line);
    snprintf(line + l, len - l, "%*s%s %s", column - used, "", ui->glyphs->utf8 ? "\u2502" : "|", code);
}

static void add_log_row(struct tui_pane *p, const struct session_view *v, const struct tui_ui *ui, int width, size_t at,
                        bool cause)
{
    const struct tui_glyphs *g = ui->glyphs;
    char line[TRACE_LOG_LINE_MAX + TUI_ROW_BYTES], text[TRACE_LOG_LINE_MAX + TUI_ROW_BYTES + 8];
    tui_log_line(&v->events[at], width < TUI_WIDE_COLS && ui->source ? ui->source->name : NULL, line, sizeof line);
    append_code(&v->events[at], ui, width, line, sizeof line);
    /* The mark in the first column (a blank below step 10000). */
    if (cause)
        snprintf(text, sizeof text, "%s%s", g->cause, line[0] == ' ' ? line + 1 : line);
    else
        snprintf(text, sizeof text, "%s", line);
    enum tui_style style = at + 1 == v->n_events ? TS_CHANGED : cause ? TS_ERROR : TS_TEXT;
    tui_pane_add(p, text, width, g, style);
}

static void build_log(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->log;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.log;
    int total = (int)v->n_events, height = tui_rect_content(r);
    const size_t *cause = s->cause;
    int n_cause = s->n_cause;
    long story[256];
    int n_story = ui->log_back == 0 && height <= 256 ? log_rows_with_cause(v, height, cause, n_cause, story) : 0;
    if (n_story > 0) {
        tui_pane_title(p, g, "event log: %s marks the steps that led to the %s (last step %" PRIu64 ")", g->cause,
                       failure_kind_name(v->result->kind), v->events[total - 1].step);
        for (int i = 0; i < n_story; i++) {
            if (story[i] < 0)
                tui_pane_add(p, "     ...", r->w, g, TS_EXITED);
            else
                add_log_row(p, v, ui, r->w, (size_t)story[i], is_cause(cause, n_cause, (size_t)story[i]));
        }
        return;
    }
    int first = tui_tail_first(total, height, ui->log_back);
    if (total == 0)
        tui_pane_title(p, g, "event log: no step yet");
    else
        tui_pane_title(p, g, "event log: steps %" PRIu64 "-%" PRIu64 " of %" PRIu64 "%s", v->events[first].step,
                   v->events[first + height < total ? first + height - 1 : total - 1].step, v->events[total - 1].step,
                   first + height < total ? " (PgDn: newer)" : "");
    for (int i = first; i < total && i < first + height; i++) {
        bool known = false;
        for (int k = 0; k < ui->n_cause_steps && !known; k++)
            known = ui->cause_steps[k] == v->events[i].step;
        add_log_row(p, v, ui, r->w, (size_t)i, known);
    }
}

/* ---------- the failure's story (wide screens) ---------- */

/* Breaks text into lines of at most width characters at blanks (a word
 * longer than a line is cut by the pane); returns the lines, writing at
 * most max of them to lines. */
static int wrap(const char *text, int width, char lines[][TUI_ROW_BYTES], int max)
{
    int n = 0;
    const char *s = text;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *end = s, *cut = NULL;
        int w = 0;
        while (*end && w < width) {
            if (*end == ' ')
                cut = end;
            end++;
            while ((*end & 0xc0) == 0x80)
                end++;
            w++;
        }
        if (*end && *end != ' ' && cut)
            end = cut;
        if (n < max)
            snprintf(lines[n], TUI_ROW_BYTES, "%.*s", (int)(end - s), s);
        n++;
        s = end;
    }
    return n;
}

enum { STORY_MESSAGE_LINES = 4 };

/* The failure's message and each step that led to it with its line of code. */
static int story_lines(const struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui, int width,
                       char lines[][TUI_ROW_BYTES], int max)
{
    if (s->n_cause == 0)
        return 0;
    int n = wrap(v->result->message, width - 2, lines, max < STORY_MESSAGE_LINES ? max : STORY_MESSAGE_LINES);
    if (n > STORY_MESSAGE_LINES)
        n = STORY_MESSAGE_LINES;
    for (int i = 0; i < s->n_cause && n < max; i++, n++) {
        const struct trace_event *e = &v->events[s->cause[i]];
        char op[CELL], where[96] = "";
        trace_log_operation(e, op, sizeof op);
        const struct tui_source *src = ui->source;
        bool shown = src && src->ok && e->line && (int)e->line <= src->n_lines && strcmp(e->file, src->name) == 0;
        if (shown) {
            /* The code with its runs of blanks made one. */
            char code[96];
            size_t k = 0;
            for (const char *c = src->lines[e->line - 1]; *c && k + 1 < sizeof code; c++)
                if (*c != ' ' || (k > 0 && code[k - 1] != ' '))
                    code[k++] = *c;
            code[k] = '\0';
            snprintf(where, sizeof where, "line %u: %s", e->line, code);
        } else if (e->line) {
            snprintf(where, sizeof where, "%s:%u", e->file, e->line);
        }
        snprintf(lines[n], TUI_ROW_BYTES, "%s %" PRIu64 " T%d %s%s%s", ui->glyphs->cause, e->step, e->thread, op,
                 where[0] ? "  " : "", where);
    }
    return n;
}

static void build_story(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->story;
    const struct tui_rect *r = &s->layout.story;
    char lines[STORY_MESSAGE_LINES + EXEC_CAUSE_STEPS][TUI_ROW_BYTES];
    int n = story_lines(s, v, ui, r->w, lines, STORY_MESSAGE_LINES + EXEC_CAUSE_STEPS);
    int messages = n - s->n_cause;
    tui_pane_title(p, ui->glyphs, "the %s, and the steps that led to it", failure_kind_name(v->result->kind));
    for (int i = 0; i < n; i++)
        tui_pane_add(p, lines[i], r->w, ui->glyphs, i < messages ? TS_ERROR : TS_TEXT);
}

static void build_output(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *p = &s->output;
    const struct tui_glyphs *g = ui->glyphs;
    const struct tui_rect *r = &s->layout.output;
    int height = tui_rect_content(r);
    tui_pane_title(p, g, "program output (%zu bytes; o hides)", v->output_len);
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
        tui_pane_add(p, "(nothing yet)", r->w, g, TS_EXITED);
        return;
    }
    while (start < end) {
        const char *nl = memchr(v->output + start, '\n', end - start);
        size_t len = nl ? (size_t)(nl - (v->output + start)) : end - start;
        char line[TUI_ROW_BYTES];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), v->output + start);
        tui_pane_add(p, line, r->w, g, TS_TEXT);
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

/* How much the status line says, from all of it down to what fits 80
 * columns: the demo's key hint goes first (the hint bar has it), then a
 * theme just chosen (the message line says it), then the last step's
 * object, then "step k of n" becomes "k/n", then the program's name. It is shortened, never cut: a cut "demo paused (Spac" reads as a
 * fault. */
enum { STATUS_FULL, STATUS_NO_KEY_HINT, STATUS_NO_THEME, STATUS_SHORT_LAST, STATUS_SHORT_STEP, STATUS_NO_NAME,
       STATUS_FORMS };

static void status_text(const struct session_view *v, const struct tui_ui *ui, int form, char *text, size_t len)
{
    const char *name = strrchr(v->program, '/');
    name = name ? name + 1 : v->program;
    char step[64], last[CELL] = "", demo[64] = "";
    bool of = v->reach > v->step || v->end_known;
    if (form >= STATUS_SHORT_STEP && of)
        snprintf(step, sizeof step, "%" PRIu64 "/%" PRIu64, v->step, v->reach);
    else if (of)
        snprintf(step, sizeof step, "step %" PRIu64 " of %" PRIu64, v->step, v->reach);
    else
        snprintf(step, sizeof step, "step %" PRIu64, v->step);
    if (v->n_events) {
        const struct trace_event *e = &v->events[v->n_events - 1];
        char op[CELL];
        trace_log_operation(e, op, sizeof op);
        if (form >= STATUS_SHORT_LAST)
            snprintf(last, sizeof last, "last: T%d %s", e->thread, e->op);
        else
            snprintf(last, sizeof last, "last: T%d %s", e->thread, op);
    } else {
        snprintf(last, sizeof last, "last: -");
    }
    /* The theme just chosen is on the message line too. */
    const char *theme = form >= STATUS_NO_THEME ? NULL : ui->theme;
    if (ui->demo) {
        /* "paused (Space plays)": the key hint in brackets goes first. */
        const char *bracket = strchr(ui->demo, '(');
        int keep = form >= STATUS_NO_KEY_HINT && bracket ? (int)(bracket - ui->demo) : (int)strlen(ui->demo);
        while (keep > 0 && ui->demo[keep - 1] == ' ')
            keep--;
        snprintf(demo, sizeof demo, " | demo %.*s", keep, ui->demo);
    }
    snprintf(text, len, " %s%s%s | %s | %s%s%s%s%s%s", form >= STATUS_NO_NAME ? "" : name,
             form >= STATUS_NO_NAME ? "" : " | ", step, last, v->mode, v->unsaved ? " (unsaved)" : "",
             v->tso ? " | tso" : "", demo, theme ? " | theme " : "", theme ? theme : "");
}

static void build_status(struct tui_screen *s, const struct session_view *v, const struct tui_ui *ui)
{
    char text[TUI_ROW_BYTES];
    for (int form = STATUS_FULL; form < STATUS_FORMS; form++) {
        status_text(v, ui, form, text, sizeof text);
        if (tui_width(text) <= s->cols)
            break;
    }
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
    /* Over the end's message: the failure is in the status line, the
     * threads, the log and its story too. */
    if (ui->caption)
        return ui->caption;
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
    const struct state_thread *waker = tui_view_thread(v, v->waker);
    char op[CELL] = "wakes";
    if (waker)
        trace_log_operation(&waker->next, op, sizeof op);
    snprintf(s->popup[0], sizeof s->popup[0], "T%d %s: which waiter wakes?", v->waker, op[0] ? op : "wakes");
    size_t used = 0;
    char *line = s->popup[1];
    line[0] = '\0';
    for (size_t i = 0; i < v->n_candidates && used < sizeof s->popup[1]; i++) {
        const struct state_thread *t = tui_view_thread(v, v->candidates[i]);
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

/* At the end of a failure, the steps that led to it among the last
 * CAUSE_BOOK_EVENTS (as a report finds them). */
static void find_cause(struct tui_screen *s, const struct session_view *v)
{
    s->n_cause = 0;
    if (v->ask != ASK_ENDED || !v->result || v->result->kind == FAIL_NONE || v->n_events == 0)
        return;
    size_t from = v->n_events > CAUSE_BOOK_EVENTS ? v->n_events - CAUSE_BOOK_EVENTS : 0;
    s->n_cause = cause_steps_find(v->result, v->events + from, v->n_events - from, s->cause, EXEC_CAUSE_STEPS);
    for (int i = 0; i < s->n_cause; i++)
        s->cause[i] += from;
}

void tui_screen_build(struct tui_screen *s, int cols, int rows, const struct session_view *v, const struct tui_ui *ui)
{
    struct tui_pane *panes[] = {&s->source, &s->threads, &s->objects, &s->story, &s->log, &s->output};
    for (size_t i = 0; i < sizeof panes / sizeof panes[0]; i++)
        tui_pane_clear(panes[i]);
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
    find_cause(s, v);
    char story[STORY_MESSAGE_LINES + EXEC_CAUSE_STEPS][TUI_ROW_BYTES];
    int story_rows = cols >= TUI_WIDE_COLS ? story_lines(s, v, ui, tui_layout_right_width(cols), story,
                                                         STORY_MESSAGE_LINES + EXEC_CAUSE_STEPS) : 0;
    struct tui_layout_needs needs = {
        .story_rows = story_rows,
        .output_auto = ui->output_auto && v->output_len > 0,
        .thread_rows = tui_threads_rows(v),
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
    struct tui_threads_ui tui = {ui->selected, g,
                                 s->layout.threads.w < TUI_WIDE_COLS && ui->source ? ui->source->name : NULL};
    tui_threads_build(&s->threads, &s->layout.threads, v, &tui, &s->cursor_y, &s->cursor_x);
    if (s->layout.objects.h)
        build_objects(s, v, ui);
    if (s->layout.story.h)
        build_story(s, v, ui);
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
