/* tui_pane: the rows of text a pane of `mdat attach` shows, before they are
 * drawn: each row fitted to the pane's width (cut with an ellipsis), with
 * its style, spans of other styles and the thread it is about; and the
 * glyphs that make states readable without colour. Knows nothing of what
 * the rows say: tui_screen and tui_threads fill them, tui_draw paints them. */
#ifndef MDAT_UI_TUI_PANE_H
#define MDAT_UI_TUI_PANE_H

#include <stdbool.h>
#include <stddef.h>

/* What a piece of text is; each theme says how it looks. */
enum tui_style {
    TS_TEXT,
    TS_TITLE,       /* pane titles */
    TS_HEADER,      /* table headers */
    TS_STATUS,      /* the status line */
    TS_HINT,        /* the hint bar */
    TS_MESSAGE,     /* notices and prompts */
    TS_ERROR,       /* a refused command, a failure */
    TS_RUNNABLE,    /* a thread that can run now */
    TS_BLOCKED,
    TS_EXITED,
    TS_CHANGED,     /* changed on the last step */
    TS_CURRENT,     /* the selected thread's line and row */
    TS_MARK,        /* thread numbers in the source gutter */
    TS_BREAK,       /* breakpoint marks */
    TS_COUNT
};

enum { TUI_ROW_BYTES = 1024, TUI_ROW_SPANS = 4, TUI_POPUP_LINES = 4 };

/* Part of a row in another style; start and len count characters. */
struct tui_span {
    int start, len;
    enum tui_style style;
};

struct tui_row {
    char text[TUI_ROW_BYTES];   /* fitted to the pane's width */
    enum tui_style style;
    struct tui_span span[TUI_ROW_SPANS];
    int n_spans;
    int thread;                 /* the thread the row is about, 0 if none */
    bool changed;
};

struct tui_pane {
    char title[TUI_ROW_BYTES];
    struct tui_row *rows;
    int n_rows, cap;
};

/* The symbols that make states readable without colour; ASCII when the
 * locale is not UTF-8. */
struct tui_glyphs {
    bool utf8;
    const char *runnable, *blocked, *exited, *selected, *changed, *breakpoint, *ellipsis;
    const char *failed;         /* the thread the execution failed in */
    const char *cause;          /* a step of the failure's cause, in the log */
};
extern const struct tui_glyphs tui_glyphs_utf8, tui_glyphs_ascii;

/* The room for one cell's text while rows are built. */
enum { TUI_CELL = 256 };

/* Copies at most width characters of src into dst (a UTF-8 string),
 * control characters as '?', non-ASCII as '?' unless utf8; returns the
 * characters written. */
int tui_fit(const char *src, int width, bool utf8, char *dst, size_t len);
/* Characters (code points) of a UTF-8 string. */
int tui_width(const char *s);

/* Appends a row of text (cut to width characters, ending in the glyphs'
 * ellipsis when it was longer) in a style; returns it for spans. */
struct tui_row *tui_pane_add(struct tui_pane *p, const char *text, int width, const struct tui_glyphs *g,
                             enum tui_style style);
/* Marks characters start..start+len-1 of the row in another style (at most TUI_ROW_SPANS). */
void tui_row_span(struct tui_row *r, int start, int len, enum tui_style style);
void tui_pane_title(struct tui_pane *p, const struct tui_glyphs *g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* No rows and no title, the memory kept for the next build. */
void tui_pane_clear(struct tui_pane *p);

#endif
