/* tui_screen: what `mdat attach` puts on the screen, as text rows with
 * styles, before anything is drawn.
 *
 * Built from the session's view and the frontend's own state (selected
 * thread, scrolling, theme-independent glyphs) for a terminal of a given
 * size: the status line, the source pane with every thread's line marked by
 * its number, the threads table, the sync objects and watches with the rows
 * that changed on the last step, the event log, the program's output, the
 * message line, the hint bar, the wake-up chooser and where the cursor
 * goes. Pure: the drawing module only paints it, tests read it. */
#ifndef MDAT_UI_TUI_SCREEN_H
#define MDAT_UI_TUI_SCREEN_H

#include <stdbool.h>

#include "supervisor/explore/session.h"
#include "ui/tui/tui_keys.h"
#include "ui/tui/tui_layout.h"
#include "ui/tui/tui_source.h"

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
};
extern const struct tui_glyphs tui_glyphs_utf8, tui_glyphs_ascii;

/* The frontend's own state, as far as it changes what is shown. */
struct tui_ui {
    int selected;                       /* thread id (a waiter at a wake-up) */
    int log_back;                       /* log rows scrolled back from the newest */
    bool show_output;
    const struct tui_glyphs *glyphs;
    const struct tui_source *source;    /* the selected thread's file; NULL if none */
    unsigned source_line;               /* the selected thread's line in it, 0 if none */
    const char *message;                /* prompt or notice for the message line, NULL: none */
    bool message_error;
    int message_cursor;                 /* a prompt's cursor column in the message, -1: none */
    enum tui_hint_context hint_context;
    const char *demo;                   /* "playing", "paused"; NULL outside --demo */
    const char *theme;                  /* shown in the status line when just changed, else NULL */
};

struct tui_screen {
    int cols, rows;
    struct tui_layout layout;
    char too_small[128];                /* set when layout.too_small */
    struct tui_row status, message, hint;
    struct tui_pane source, threads, objects, log, output;
    char popup[TUI_POPUP_LINES][TUI_ROW_BYTES];     /* the wake-up chooser; n_popup 0: none */
    struct tui_span popup_span[TUI_POPUP_LINES];
    int n_popup;
    int cursor_y, cursor_x;             /* where the terminal's cursor goes */
};

void tui_screen_init(struct tui_screen *s);
void tui_screen_free(struct tui_screen *s);
void tui_screen_build(struct tui_screen *s, int cols, int rows, const struct session_view *v, const struct tui_ui *ui);

/* Copies at most width characters of src into dst (a UTF-8 string),
 * control characters as '?', non-ASCII as '?' unless utf8; returns the
 * characters written. */
int tui_fit(const char *src, int width, bool utf8, char *dst, size_t len);
/* Characters (code points) of a UTF-8 string. */
int tui_width(const char *s);

/* The thread of that id in the view's state, NULL if none. */
const struct state_thread *tui_view_thread(const struct session_view *v, int id);
/* id is one of the view's candidates (threads that can run, or waiters). */
bool tui_view_candidate(const struct session_view *v, int id);
/* The thread's row differs from the previous state's (or is new). */
bool tui_thread_changed(const struct session_view *v, int id);
/* Where a thread stands: the source file (base name) and line of its next
 * operation, or of its location while it waits (a waiting thread has no
 * next operation). false when unknown or exited. */
bool tui_thread_line(const struct state_thread *t, char *file, size_t len, unsigned *line);
/* One event as a log line for a narrow pane: what happened first, where
 * last ("line 30 thread_one" when the file is shown_file, if not NULL). */
void tui_log_line(const struct trace_event *e, const char *shown_file, char *buf, size_t len);

#endif
