/* tui_screen: what `mdat attach` puts on the screen, as text rows with
 * styles, before anything is drawn.
 *
 * Built from the session's view and the frontend's own state (selected
 * thread, scrolling, theme-independent glyphs) for a terminal of a given
 * size: the status line, the source pane with every thread's line marked by
 * its number, the threads table, the sync objects and watches with the rows
 * that changed on the last step, the event log (which keeps the steps that
 * led to a failure in view at its end), the failure's story (wide screens),
 * the program's output, the message line, the hint bar, the wake-up chooser and where the cursor
 * goes. Pure: the drawing module only paints it, tests read it. */
#ifndef MDAT_UI_TUI_SCREEN_H
#define MDAT_UI_TUI_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/explore/session.h"
#include "ui/tui/tui_keys.h"
#include "ui/tui/tui_layout.h"
#include "ui/tui/tui_pane.h"
#include "ui/tui/tui_source.h"
#include "ui/tui/tui_threads.h"

/* The frontend's own state, as far as it changes what is shown. */
struct tui_ui {
    int selected;                       /* thread id (a waiter at a wake-up) */
    int log_back;                       /* log rows scrolled back from the newest */
    bool show_output;
    bool output_auto;                   /* show the output where a wide layout has rows to spare */
    const struct tui_glyphs *glyphs;
    const struct tui_source *source;    /* the selected thread's file; NULL if none */
    unsigned source_line;               /* the selected thread's line in it, 0 if none */
    const char *message;                /* prompt or notice for the message line, NULL: none */
    bool message_error;
    int message_cursor;                 /* a prompt's cursor column in the message, -1: none */
    enum tui_hint_context hint_context;
    const char *demo;                   /* "playing", "paused"; NULL outside --demo */
    const char *theme;                  /* shown in the status line when just changed, else NULL */
    const char *caption;                /* the schedule's caption for this step (message line), else NULL */
    /* Steps this path's end showed as its failure's cause (marked in the
     * log on the way back to them); NULL: none known. */
    const uint64_t *cause_steps;
    int n_cause_steps;
};

struct tui_screen {
    int cols, rows;
    struct tui_layout layout;
    char too_small[128];                /* set when layout.too_small */
    struct tui_row status, message, hint;
    struct tui_pane source, threads, objects, story, log, output;
    size_t cause[EXEC_CAUSE_STEPS];     /* at the end of a failure: the events that led to it */
    int n_cause;
    char popup[TUI_POPUP_LINES][TUI_ROW_BYTES];     /* the wake-up chooser; n_popup 0: none */
    struct tui_span popup_span[TUI_POPUP_LINES];
    int n_popup;
    int cursor_y, cursor_x;             /* where the terminal's cursor goes */
};

void tui_screen_init(struct tui_screen *s);
void tui_screen_free(struct tui_screen *s);
void tui_screen_build(struct tui_screen *s, int cols, int rows, const struct session_view *v, const struct tui_ui *ui);

/* One event as a log line for a narrow pane: what happened first, where
 * last ("line 30 thread_one" when the file is shown_file, if not NULL). */
void tui_log_line(const struct trace_event *e, const char *shown_file, char *buf, size_t len);

#endif
