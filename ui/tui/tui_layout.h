/* tui_layout: where each pane of `mdat attach` goes on a terminal of a
 * given size, and which part of a long list a pane shows.
 *
 * Pure arithmetic, no terminal: 80x24 is the smallest screen that works
 * (one column of panes, the log at least six lines); from 120 columns the
 * source takes the left half and the tables the right, over a log the
 * full width of the screen; rows the tables leave free in the right column
 * go to the story of a failure (its message and the steps that led to it)
 * and to the program's output. Below 80x24 the layout says "too small"
 * and nothing else is drawn. */
#ifndef MDAT_UI_TUI_LAYOUT_H
#define MDAT_UI_TUI_LAYOUT_H

#include <stdbool.h>

enum { TUI_MIN_COLS = 80, TUI_MIN_ROWS = 24, TUI_WIDE_COLS = 120 };

/* A pane: its first row is its title, its content the rows below. h == 0:
 * not shown. */
struct tui_rect {
    int y, x, h, w;
};

/* How many content rows each pane would like. */
struct tui_layout_needs {
    int thread_rows;            /* header + one per thread */
    int object_rows;            /* sync objects and watches; 0: the pane is left out */
    int log_rows;               /* events so far */
    bool show_output;
    int output_rows;
    bool message;               /* a notice or prompt line above the hint bar */
    int story_rows;             /* the failure and its cause steps (wide only); 0: none */
    bool output_auto;           /* show the output where the tables leave room (wide only) */
};

struct tui_layout {
    bool too_small;
    bool wide;
    struct tui_rect status, source, threads, objects, story, log, output, message, hint;
};

void tui_layout_compute(int cols, int rows, const struct tui_layout_needs *needs, struct tui_layout *out);

/* The width of the right column of a wide layout of cols columns. */
int tui_layout_right_width(int cols);

/* Content rows of a pane (its height less the title). */
int tui_rect_content(const struct tui_rect *r);

/* The first line (1-based) of a window of `height` lines over a file of
 * `total` lines that shows `line`, a third from the top when it can. */
int tui_source_first(int total, int height, int line);

/* The first line of such a window that shows lines lo..hi (which fit in
 * height), centred on them. */
int tui_source_covering(int total, int height, int lo, int hi);

/* The first of `total` rows shown in `height` rows when the view is
 * scrolled `back` rows up from the newest (clamped). */
int tui_tail_first(int total, int height, int back);

#endif
