/* tui_layout: pane rectangles and list windows. Heights are handed out in
 * rounds: every pane first gets its minimum (the log six lines: on a
 * projector the steps that led here are the story), then the tables get
 * what they need (within a share of the screen, so a program with 100
 * threads still leaves room for its source), then the source a fair
 * window, then the log, and the source whatever is left. From 120 columns
 * the log runs the full width under source and tables, so that its long
 * lines are whole, and the tables' column is only as tall as they need
 * when the log can use the rows. */
#include "ui/tui/tui_layout.h"

#include <string.h>

enum { TITLE = 1, SOURCE_MIN = 4, SOURCE_FAIR = 7, THREADS_MIN = 3, OBJECTS_MIN = 2, OUTPUT_MIN = 3, LOG_MIN = 7,
       STORY_MIN = 3 };

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* Grows *h towards want (never past cap) from *left. */
static void grow(int *h, int want, int cap, int *left)
{
    int target = min_int(want, cap);
    if (target > *h) {
        int add = min_int(target - *h, *left);
        *h += add;
        *left -= add;
    }
}

/* Stacks the panes of a column from y down, in the order given; panes of
 * height 0 are left out. */
static void stack(struct tui_rect *const *panes, const int *heights, int n, int y, int x, int w)
{
    for (int i = 0; i < n; i++) {
        *panes[i] = (struct tui_rect){y, x, heights[i], heights[i] ? w : 0};
        y += heights[i];
    }
}

static void narrow(int cols, int avail, int top, const struct tui_layout_needs *n, struct tui_layout *out)
{
    int source = SOURCE_MIN, threads = THREADS_MIN, objects = n->object_rows > 0 ? OBJECTS_MIN : 0;
    int output = n->show_output ? OUTPUT_MIN : 0, log = LOG_MIN;
    int left = avail - source - threads - objects - output - log;
    grow(&threads, TITLE + n->thread_rows, avail * 2 / 5, &left);
    if (objects)
        grow(&objects, TITLE + n->object_rows, avail / 4, &left);
    if (output)
        grow(&output, TITLE + n->output_rows, avail / 4, &left);
    grow(&source, SOURCE_FAIR, avail, &left);
    grow(&log, TITLE + n->log_rows, avail / 3, &left);
    source += left;
    struct tui_rect *panes[] = {&out->source, &out->threads, &out->objects, &out->output, &out->log};
    int heights[] = {source, threads, objects, output, log};
    stack(panes, heights, 5, top, 0, cols);
}

/* The right column of the top part: threads, objects, the failure's
 * story, output; what is left goes to the output when it is shown, else to
 * the story, else to the last table. The output shows by itself when
 * there are rows to spare for it. */
static void wide_tables(int avail, int top, int x, int w, const struct tui_layout_needs *n, struct tui_layout *out)
{
    int threads = THREADS_MIN, objects = n->object_rows > 0 ? OBJECTS_MIN : 0;
    int story = n->story_rows > 0 ? STORY_MIN : 0, output = n->show_output ? OUTPUT_MIN : 0;
    int left = avail - threads - objects - story - output;
    grow(&threads, TITLE + n->thread_rows, avail * 3 / 5, &left);
    if (objects)
        grow(&objects, TITLE + n->object_rows, avail, &left);
    if (story)
        grow(&story, TITLE + n->story_rows, avail, &left);
    if (!output && n->output_auto && left >= OUTPUT_MIN + 1)
        output = OUTPUT_MIN;
    left = avail - threads - objects - story - output;
    if (output)
        grow(&output, TITLE + n->output_rows, avail, &left);
    if (output)
        output += left;
    else if (story)
        story += left;
    else if (objects)
        objects += left;
    else
        threads += left;
    struct tui_rect *panes[] = {&out->threads, &out->objects, &out->story, &out->output};
    int heights[] = {threads, objects, story, output};
    stack(panes, heights, 4, top, x, w);
}

static void wide(int cols, int avail, int top, const struct tui_layout_needs *n, struct tui_layout *out)
{
    int rw = tui_layout_right_width(cols), lw = cols - rw - 1;
    /* The top part is at least half the screen (the source), and as tall
     * as the tables need; the log below it takes what it needs of the
     * rest, and any rows it does not need go back to the top. */
    int tables = TITLE + n->thread_rows + (n->object_rows > 0 ? TITLE + n->object_rows : 0) +
                 (n->show_output ? TITLE + n->output_rows : 0) + (n->story_rows > 0 ? TITLE + n->story_rows : 0);
    int top_min = max_int(avail / 2, min_int(tables, avail * 3 / 4));
    int log = max_int(LOG_MIN, min_int(TITLE + n->log_rows, avail - top_min));
    int upper = avail - log;
    out->source = (struct tui_rect){top, 0, upper, lw};
    wide_tables(upper, top, lw + 1, rw, n, out);
    out->log = (struct tui_rect){top + upper, 0, log, cols};
}

void tui_layout_compute(int cols, int rows, const struct tui_layout_needs *needs, struct tui_layout *out)
{
    memset(out, 0, sizeof *out);
    if (cols < TUI_MIN_COLS || rows < TUI_MIN_ROWS) {
        out->too_small = true;
        return;
    }
    out->status = (struct tui_rect){0, 0, 1, cols};
    out->hint = (struct tui_rect){rows - 1, 0, 1, cols};
    int bottom = rows - 1;
    if (needs->message) {
        out->message = (struct tui_rect){rows - 2, 0, 1, cols};
        bottom--;
    }
    int avail = bottom - 1;
    out->wide = cols >= TUI_WIDE_COLS;
    if (out->wide)
        wide(cols, avail, 1, needs, out);
    else
        narrow(cols, avail, 1, needs, out);
}

int tui_layout_right_width(int cols)
{
    return cols - cols * 11 / 20 - 1;
}

int tui_rect_content(const struct tui_rect *r)
{
    return r->h > TITLE ? r->h - TITLE : 0;
}

int tui_source_first(int total, int height, int line)
{
    if (height <= 0 || total <= height)
        return 1;
    int first = line - height / 3;
    if (first > total - height + 1)
        first = total - height + 1;
    return first < 1 ? 1 : first;
}

int tui_source_covering(int total, int height, int lo, int hi)
{
    int first = lo - (height - (hi - lo + 1)) / 2;
    if (first > total - height + 1)
        first = total - height + 1;
    return first < 1 ? 1 : first;
}

int tui_tail_first(int total, int height, int back)
{
    int first = total - height - (back > 0 ? back : 0);
    return first < 0 ? 0 : first;
}
