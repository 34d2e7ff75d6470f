/* tui_threads: the threads pane of `mdat attach` (a row per thread: state,
 * location, what it waits on or does next; under --memory-model tso a row
 * under each thread with buffered stores), what the rest of the TUI asks
 * about threads, and how the table's columns fit a pane of a given width. */
#ifndef MDAT_UI_TUI_THREADS_H
#define MDAT_UI_TUI_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/explore/session.h"
#include "ui/tui/tui_layout.h"
#include "ui/tui/tui_pane.h"

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

/* The widest cell of each column of the table, header included, in the
 * column's full and short forms. */
struct tui_thread_widths {
    int mark, id, id_header;                /* id_header: the header "thread" */
    int state, state_short;                 /* "■ waiting-lock", "■ lock" */
    int location, location_short;           /* "line 30 thread_one", "line 30" */
    int doing;                              /* "waits: mutex lock_b (held by T3)" */
};
/* Which forms fit; doing is the width the last column gets (its natural
 * width when everything fits, else what is left, never below 12). */
struct tui_thread_columns {
    bool id_header, state_short, location_short, location;
    int doing;
};
/* Gives way in this order until the row fits width (gap blanks between
 * columns): the location's function, the state's long name, the location,
 * the id column's header; then the last column is cut. */
void tui_threads_columns(int width, int gap, const struct tui_thread_widths *w, struct tui_thread_columns *out);

/* The row under a thread with buffered stores (--memory-model tso), oldest
 * first: "T2 buffer: flag[0] := 1 (line 14), turn := 1 (line 15)", fitted
 * to width characters: the stores' lines go first, then the last stores
 * give way to "+N more". Locations in shown_file read "line N". "" when
 * the thread has none. */
void tui_buffer_text(const struct state_thread *t, const char *shown_file, int width, char *buf, size_t len);
/* The execution ended with a failure of thread id that is not a deadlock. */
bool tui_thread_failed(const struct session_view *v, int id);
/* Rows the pane would like: header, threads and their buffer rows. */
int tui_threads_rows(const struct session_view *v);

/* What the threads pane is built from, besides the view. */
struct tui_threads_ui {
    int selected;                           /* the selected thread's id */
    const struct tui_glyphs *glyphs;
    const char *shown_file;                 /* the source pane's file (locations in it say "line N"), or NULL */
};
/* Fills p (title and rows) for the pane r; sets *cursor_y, *cursor_x to
 * the selected thread's row when it is in view. */
void tui_threads_build(struct tui_pane *p, const struct tui_rect *r, const struct session_view *v,
                       const struct tui_threads_ui *ui, int *cursor_y, int *cursor_x);

#endif
