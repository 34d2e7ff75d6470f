/* tui_layout: pane rectangles and list windows. Heights are handed out in
 * rounds: every pane first gets its minimum, then the tables get what they
 * need (within a share of the screen, so a program with 100 threads still
 * leaves room for its source), then the source a fair window, then the log,
 * and the source whatever is left. */
#include "ui/tui/tui_layout.h"

#include <string.h>

enum { TITLE = 1, SOURCE_MIN = 4, SOURCE_FAIR = 9, THREADS_MIN = 3, OBJECTS_MIN = 2, OUTPUT_MIN = 3, LOG_MIN = 3 };

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

static void wide(int cols, int avail, int top, const struct tui_layout_needs *n, struct tui_layout *out)
{
    int lw = cols * 11 / 20, rw = cols - lw - 1;
    /* Left: source over log. */
    int log = max_int(LOG_MIN, min_int(TITLE + n->log_rows, avail * 2 / 5));
    struct tui_rect *lpanes[] = {&out->source, &out->log};
    int lheights[] = {avail - log, log};
    stack(lpanes, lheights, 2, top, 0, lw);
    /* Right: threads, objects, output; what is left goes to the last one. */
    int threads = THREADS_MIN, objects = n->object_rows > 0 ? OBJECTS_MIN : 0;
    int output = n->show_output ? OUTPUT_MIN : 0;
    int left = avail - threads - objects - output;
    grow(&threads, TITLE + n->thread_rows, avail * 3 / 5, &left);
    if (objects)
        grow(&objects, TITLE + n->object_rows, avail, &left);
    if (output)
        output += left;
    else if (objects)
        objects += left;
    else
        threads += left;
    struct tui_rect *rpanes[] = {&out->threads, &out->objects, &out->output};
    int rheights[] = {threads, objects, output};
    stack(rpanes, rheights, 3, top, lw + 1, rw);
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
