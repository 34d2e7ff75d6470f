/* tui_draw: curses painting of the prepared screen. Styles become colour
 * pairs 1..TS_COUNT plus attributes; a theme without colours uses the
 * attributes alone. */
#include "ui/tui/tui_draw.h"
#include "ui/tui/tui_keys.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct tui_theme *theme;
static bool colors;

void tui_draw_theme(const struct tui_theme *t)
{
    theme = t;
    colors = t->color && has_colors();
    if (colors)
        for (int i = 0; i < TS_COUNT; i++)
            init_pair((short)(i + 1), t->look[i].fg, t->look[i].bg);
    bkgdset(' ' | (colors ? COLOR_PAIR(TS_TEXT + 1) : 0));
    clearok(stdscr, TRUE);
}

static attr_t attr_of(enum tui_style style)
{
    const struct tui_look *l = &theme->look[style];
    attr_t a = colors ? COLOR_PAIR(style + 1) : 0;
    if (l->attrs & TA_BOLD)
        a |= A_BOLD;
    if (l->attrs & TA_REVERSE)
        a |= A_REVERSE;
    if (l->attrs & TA_UNDERLINE)
        a |= A_UNDERLINE;
    if (l->attrs & TA_DIM)
        a |= A_DIM;
    return a;
}

/* The byte offset of character n of a UTF-8 string (its end if shorter). */
static size_t byte_of(const char *s, int n)
{
    size_t i = 0;
    for (int c = 0; s[i] && c < n; c++) {
        i++;
        while ((s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

/* Text at (y, x) in a style, padded with blanks to width when pad. */
static void put(int y, int x, int width, const char *text, enum tui_style style, bool pad)
{
    if (width <= 0)
        return;
    attrset(attr_of(style));
    move(y, x);
    char fitted[TUI_ROW_BYTES];
    int w = tui_fit(text, width, true, fitted, sizeof fitted);
    addstr(fitted);
    if (pad)
        for (; w < width; w++)
            addch(' ');
}

static void put_row(int y, int x, int width, const struct tui_row *r, bool pad)
{
    put(y, x, width, r->text, r->style, pad);
    for (int i = 0; i < r->n_spans; i++) {
        const struct tui_span *sp = &r->span[i];
        if (sp->start >= width)
            continue;
        size_t from = byte_of(r->text, sp->start), to = byte_of(r->text, sp->start + sp->len);
        char part[TUI_ROW_BYTES];
        snprintf(part, sizeof part, "%.*s", (int)(to - from), r->text + from);
        int len = sp->len < width - sp->start ? sp->len : width - sp->start;
        put(y, x + sp->start, len, part, sp->style, true);
    }
}

static void draw_pane(const struct tui_rect *rect, const struct tui_pane *p)
{
    if (rect->h <= 0)
        return;
    char title[TUI_ROW_BYTES];
    snprintf(title, sizeof title, " %s", p->title);
    put(rect->y, rect->x, rect->w, title, TS_TITLE, true);
    int rows = tui_rect_content(rect);
    for (int i = 0; i < rows && i < p->n_rows; i++) {
        const struct tui_row *r = &p->rows[i];
        /* Rows with a background of their own run to the pane's edge. */
        bool pad = r->style == TS_CURRENT || r->style == TS_HEADER;
        put_row(rect->y + 1 + i, rect->x, rect->w, r, pad);
    }
}

static void draw_popup(const struct tui_screen *s)
{
    if (!s->n_popup)
        return;
    int w = 0;
    for (int i = 0; i < s->n_popup; i++) {
        int l = tui_width(s->popup[i]);
        if (l > w)
            w = l;
    }
    w += 4;
    if (w > s->cols - 2)
        w = s->cols - 2;
    int h = s->n_popup + 2;
    const struct tui_rect *t = &s->layout.threads;
    /* Over the source pane, just above the threads it is about. */
    int y = t->y - h > 1 ? t->y - h : 1, x = (s->cols - w) / 2;
    attrset(attr_of(TS_MESSAGE));
    for (int r = 0; r < h; r++) {
        move(y + r, x);
        for (int c = 0; c < w; c++) {
            bool edge_r = r == 0 || r == h - 1, edge_c = c == 0 || c == w - 1;
            chtype ch = edge_r && edge_c ? ACS_PLUS : edge_r ? ACS_HLINE : edge_c ? ACS_VLINE : ' ';
            if (edge_r && edge_c)
                ch = r == 0 ? (c == 0 ? ACS_ULCORNER : ACS_URCORNER) : (c == 0 ? ACS_LLCORNER : ACS_LRCORNER);
            addch(ch);
        }
    }
    for (int i = 0; i < s->n_popup; i++) {
        struct tui_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.text, sizeof row.text, "%s", s->popup[i]);
        row.style = TS_MESSAGE;
        if (s->popup_span[i].len)
            row.span[row.n_spans++] = s->popup_span[i];
        put_row(y + 1 + i, x + 2, w - 4, &row, false);
    }
}

void tui_draw_screen(const struct tui_screen *s)
{
    attrset(attr_of(TS_TEXT));
    erase();
    if (s->layout.too_small) {
        put(0, 0, s->cols, s->too_small, TS_ERROR, false);
        if (s->rows > 1)
            put(1, 0, s->cols, "make the window larger, or press q to quit", TS_TEXT, false);
        move(0, 0);
        refresh();
        return;
    }
    const struct tui_layout *l = &s->layout;
    put_row(l->status.y, 0, s->cols, &s->status, true);
    draw_pane(&l->source, &s->source);
    draw_pane(&l->threads, &s->threads);
    draw_pane(&l->objects, &s->objects);
    draw_pane(&l->story, &s->story);
    draw_pane(&l->log, &s->log);
    draw_pane(&l->output, &s->output);
    if (l->message.h)
        put_row(l->message.y, 0, s->cols, &s->message, true);
    put_row(l->hint.y, 0, s->cols, &s->hint, true);
    draw_popup(s);
    attrset(attr_of(TS_TEXT));
    move(s->cursor_y, s->cursor_x);
    refresh();
}

/* Appends text to lines[], wrapped at width on blanks; continuation lines
 * start with indent blanks. */
static int add_wrapped(char (*lines)[TUI_ROW_BYTES], int n, int max, const char *text, int width, int indent)
{
    const char *p = text;
    bool first = true;
    while (n < max) {
        int room = width - (first ? 0 : indent);
        int len = (int)strlen(p);
        if (room < 10)
            room = 10;
        int cut = len;
        if (tui_width(p) > room) {
            cut = (int)byte_of(p, room);
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = (int)byte_of(p, room);
        }
        snprintf(lines[n++], TUI_ROW_BYTES, "%*s%.*s", first ? 0 : indent, "", cut, p);
        p += cut;
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        first = false;
    }
    return n;
}

int tui_draw_help(const struct tui_glyphs *g, int first)
{
    enum { MAX_LINES = 128, KEYS_WIDTH = 18 };
    static char lines[MAX_LINES][TUI_ROW_BYTES];
    char text[TUI_ROW_BYTES];
    int n = 0, rows = LINES, cols = COLS;
    n = add_wrapped(lines, n, MAX_LINES, "mdat attach: you choose which thread runs each step.", cols, 2);
    snprintf(text, sizeof text,
             "Threads: %s can run, %s waits (on what: see its row), %s exited; %s marks what changed on the last step.",
             g->runnable, g->blocked, g->exited, g->changed);
    n = add_wrapped(lines, n, MAX_LINES, text, cols, 2);
    snprintf(text, sizeof text, "Source: \"2>\" marks the line thread 2 stands at; %s a breakpoint.", g->breakpoint);
    n = add_wrapped(lines, n, MAX_LINES, text, cols, 2);
    int intro = n;
    lines[n++][0] = '\0';
    for (size_t i = 0; i < tui_n_bindings && n < MAX_LINES; i++) {
        char keys[128];
        tui_binding_keys(&tui_bindings[i], keys, sizeof keys);
        snprintf(text, sizeof text, "  %-*s %s", KEYS_WIDTH, keys, tui_bindings[i].help);
        n = add_wrapped(lines, n, MAX_LINES, text, cols, KEYS_WIDTH + 3);
    }
    if (n < MAX_LINES)
        lines[n++][0] = '\0';
    n = add_wrapped(lines, n, MAX_LINES, "Esc cancels a prompt or a long run. Themes: --theme dark|light|mono|projector.",
                    cols, 2);
    attrset(attr_of(TS_TEXT));
    erase();
    put(0, 0, cols, " help: Up/Down scroll, any other key closes", TS_TITLE, true);
    if (first > n - (rows - 1))
        first = n - (rows - 1);
    if (first < 0)
        first = 0;
    for (int r = 1; r < rows && first + r - 1 < n; r++)
        put(r, 0, cols, lines[first + r - 1], first + r - 1 < intro ? TS_MESSAGE : TS_TEXT, false);
    move(0, 0);
    refresh();
    return n;
}

void tui_draw_progress(const struct tui_screen *s, const char *what, uint64_t done, uint64_t total)
{
    if (s->layout.too_small)
        return;
    char text[256];
    if (total)
        snprintf(text, sizeof text, "%s: %" PRIu64 "/%" PRIu64 " steps (Esc stops)", what, done, total);
    else
        snprintf(text, sizeof text, "%s: step %" PRIu64 " (Esc stops)", what, done);
    int y = s->layout.message.h ? s->layout.message.y : s->layout.hint.y;
    put(y, 0, s->cols, text, TS_MESSAGE, true);
    move(y, 0);
    refresh();
}

void tui_draw_invalidate(void)
{
    clearok(stdscr, TRUE);
}
