/* timeline_svg: lays out lanes and columns, then draws header, grid,
 * lanes (hatching, hold bars, marks), switches, wake-ups, the failure and
 * the legend, in that order (later is on top). */
#include "ui/render/timeline_svg.h"
#include "ui/render/trace_log.h"
#include "ui/text/xml_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    LABEL_W = 170,          /* the lane names' column */
    MARK_ROW = 20,          /* marks sit in the top of a lane */
    BAR_ROW = 14,           /* one level of hold bars under them */
    MAX_LEVELS = 6,         /* deeper nesting shares the last level */
    MIN_LANE_H = 30,
    EDGE_LANE_H = 46,       /* lanes apart enough for wait arrows between them to show */
    RIGHT_PAD = 24,
    RIGHT_LABEL_W = 44,     /* a wide picture names its lanes on the right too */
    LINE_H = 17,
    END_TEXT_W = 290,       /* after the last step: what the threads still wait on */
    EDGE_COL = 20,          /* a column per wait arrow */
    MIN_EDGES_W = 96,       /* room for the arrows' heading */
};
/* The width a picture is laid out for: a 1400 px window less the page's
 * margins and a scrollbar. Shorter executions get wider columns (up to
 * MAX_COL), longer ones narrower, down to MIN_COL; below it the picture
 * grows past the window and the page opens it at its end, where the
 * failure is. */
static const double PAGE_WIDTH = 1360, MAX_COL = 60, MIN_COL = 9;

static const char *const kind_label[TL_KIND_COUNT] = {
    "read", "write", "atomic / read-modify-write", "lock, unlock, other sync call",
    "thread start, create, join, exit", "yield, sleep", "other call",
};

/* Fill colours of hold bars, one per lock in the order first held. */
static const char *const hold_colours[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99",
                                           "#8dd3c7", "#d9d9d9"};
enum { N_HOLD_COLOURS = sizeof hold_colours / sizeof hold_colours[0] };

struct layout {
    uint64_t first, last;       /* steps drawn; first > last when none */
    double col, mark;           /* column width, mark size */
    double plot_x, plot_w, plot_top, plot_bottom;
    /* After the plot: the end zone, where what lasted to the end goes on
     * (the waits' text, then the arrows of who waits for whom). */
    double end_x, end_text_w, edges_x, edges_w;
    bool wide;                  /* wider than PAGE_WIDTH: scrolls */
    double width, height;
    double legend_top;
    int n_caption_lines;
    double *lane_top, *lane_h;  /* by lane index */
    int *hold_level;            /* by hold index */
    uint64_t failing;
    bool standalone;            /* with its own header: a document alone */
};

static double x_center(const struct layout *l, uint64_t step)
{
    return l->plot_x + ((double)(step - l->first) + 0.5) * l->col;
}

static double x_left(const struct layout *l, uint64_t step)
{
    return l->plot_x + (double)(step - l->first) * l->col;
}

/* Where an interval begins and ends: clipped to the drawn steps, the end
 * of the plot for one that lasted to the end. */
static double x_from(const struct layout *l, uint64_t step)
{
    return step < l->first ? l->plot_x : x_center(l, step);
}

static double x_to(const struct layout *l, uint64_t step)
{
    if (step == 0)
        return l->end_x + l->end_text_w;
    return step > l->last ? l->plot_x + l->plot_w : x_center(l, step);
}

static double mark_y(const struct layout *l, int lane)
{
    return l->lane_top[lane] + MARK_ROW / 2.0;
}

/* ---------- text ---------- */

/* Roughly how wide text is: wrapping and fitting need no more. */
static double text_width(const char *s, double font_size)
{
    return xml_char_count(s) * font_size * 0.6;
}

/* Calls line() for each line of s wrapped at spaces to max_chars characters. */
static int wrap(const char *s, int max_chars, void (*line)(void *ctx, const char *text, int index), void *ctx)
{
    char buf[1024];
    int n_lines = 0;
    const char *p = s;
    if (max_chars < 10)
        max_chars = 10;
    while (*p) {
        const char *end = p, *last_space = NULL;
        int chars = 0;
        while (*end && chars < max_chars) {
            if (*end == ' ')
                last_space = end;
            end++;
            while ((*end & 0xc0) == 0x80)
                end++;
            chars++;
        }
        if (*end && last_space && last_space > p)
            end = last_space;
        size_t len = (size_t)(end - p) < sizeof buf ? (size_t)(end - p) : sizeof buf - 1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (line)
            line(ctx, buf, n_lines);
        n_lines++;
        p = end;
        while (*p == ' ')
            p++;
    }
    return n_lines;
}

struct caption_ctx {
    FILE *f;
    double x, y;
};

static void caption_line(void *ctx, const char *text, int index)
{
    struct caption_ctx *c = ctx;
    fprintf(c->f, "<tspan x=\"%.0f\" y=\"%.0f\">", c->x, c->y + index * LINE_H);
    xml_escaped(c->f, text);
    fputs("</tspan>", c->f);
}

/* "FAILURE deadlock at step 10: 3 threads blocked, ..." or "" */
static void caption_text(const struct timeline *tl, uint64_t failing, char *buf, size_t len)
{
    const struct timeline_summary *s = &tl->summary;
    if (!s->known)
        snprintf(buf, len, "%s", "");
    else if (failing)
        snprintf(buf, len, "FAILURE %s at step %" PRIu64 ": %s", s->failure, failing, s->message);
    else if (strcmp(s->failure, "none") != 0)
        snprintf(buf, len, "FAILURE %s: %s", s->failure, s->message);
    else
        snprintf(buf, len, "no failure: the execution ended after %" PRIu64 " steps", s->steps);
}

/* ---------- layout ---------- */

static int by_from(const void *a, const void *b, void *holds)
{
    const struct timeline_interval *h = holds;
    uint64_t x = h[*(const size_t *)a].from, y = h[*(const size_t *)b].from;
    return (x > y) - (x < y);
}

static size_t *sorted_holds(const struct timeline *tl)
{
    size_t *order = malloc((tl->n_holds + 1) * sizeof *order);
    if (!order)
        abort();
    for (size_t i = 0; i < tl->n_holds; i++)
        order[i] = i;
    qsort_r(order, tl->n_holds, sizeof *order, by_from, tl->holds);
    return order;
}

/* Nested or overlapping holds of one thread go on separate levels. Returns
 * the levels each lane needs. */
static int *assign_levels(const struct timeline *tl, struct layout *l)
{
    int *levels = calloc((size_t)tl->n_lanes + 1, sizeof *levels);
    uint64_t *busy_until = calloc(((size_t)tl->n_lanes + 1) * MAX_LEVELS, sizeof *busy_until);
    l->hold_level = calloc(tl->n_holds + 1, sizeof *l->hold_level);
    if (!levels || !busy_until || !l->hold_level)
        abort();
    size_t *order = sorted_holds(tl);
    for (size_t k = 0; k < tl->n_holds; k++) {
        const struct timeline_interval *h = &tl->holds[order[k]];
        int lane = timeline_lane_index(tl, h->thread);
        if (lane < 0)
            continue;
        uint64_t *busy = &busy_until[(size_t)lane * MAX_LEVELS];
        int level = 0;
        while (level < MAX_LEVELS - 1 && busy[level] > h->from)
            level++;
        busy[level] = h->to ? h->to : UINT64_MAX;
        l->hold_level[order[k]] = level;
        if (level + 1 > levels[lane])
            levels[lane] = level + 1;
    }
    free(order);
    free(busy_until);
    return levels;
}

/* Title, meta line and caption (standalone only), the failure's label,
 * the step numbers. */
static double header_height(const struct layout *l)
{
    double h = l->standalone ? 48 + l->n_caption_lines * LINE_H : 8;
    return h + (l->failing ? 14 : 0) + 22;
}

static int caption_chars(const struct layout *l)
{
    return (int)((l->width - 24) / (13 * 0.62));
}

static int legend_rows(const struct layout *l);

/* The end zone: text for threads blocked at the end, a column per wait
 * edge. */
static void lay_out_end(const struct timeline *tl, struct layout *l)
{
    bool blocked_at_end = false;
    for (size_t i = 0; i < tl->n_blocked; i++)
        blocked_at_end |= tl->blocked[i].to == 0;
    l->end_text_w = blocked_at_end ? END_TEXT_W : 0;
    int edges = 0;
    for (int i = 0; i < tl->n_lanes; i++)
        edges += timeline_waits_for_at_end(tl, &tl->lanes[i]) != 0;
    l->edges_w = edges ? 16 + edges * EDGE_COL : 0;
    if (edges && l->edges_w < MIN_EDGES_W)
        l->edges_w = MIN_EDGES_W;
}

static void lay_out(const struct timeline *tl, bool standalone, struct layout *l)
{
    size_t n = timeline_n_steps(tl);
    memset(l, 0, sizeof *l);
    l->standalone = standalone;
    l->first = n ? timeline_step(tl, 0)->step : 1;
    l->last = n ? timeline_step(tl, n - 1)->step : 0;
    uint64_t columns = n ? l->last - l->first + 1 : 1;
    lay_out_end(tl, l);
    double budget = PAGE_WIDTH - LABEL_W - RIGHT_PAD - l->end_text_w - l->edges_w;
    l->col = budget / (double)columns;
    l->col = l->col > MAX_COL ? MAX_COL : l->col < MIN_COL ? MIN_COL : l->col;
    l->mark = l->col - 2 < 14 ? l->col - 2 : 14;
    l->plot_x = LABEL_W;
    l->plot_w = (double)columns * l->col;
    l->end_x = l->plot_x + l->plot_w;
    l->edges_x = l->end_x + l->end_text_w;
    l->width = l->edges_x + l->edges_w + RIGHT_PAD;
    l->wide = l->width > PAGE_WIDTH + 0.5;
    if (l->wide)
        l->width += RIGHT_LABEL_W;
    if (l->width < PAGE_WIDTH)
        l->width = PAGE_WIDTH;
    l->failing = timeline_failing_step(tl);
    char caption[800];
    caption_text(tl, l->failing, caption, sizeof caption);
    l->n_caption_lines = caption[0] ? wrap(caption, caption_chars(l), NULL, NULL) : 0;
    l->plot_top = header_height(l);
    int *levels = assign_levels(tl, l);
    l->lane_top = calloc((size_t)tl->n_lanes + 1, sizeof *l->lane_top);
    l->lane_h = calloc((size_t)tl->n_lanes + 1, sizeof *l->lane_h);
    if (!l->lane_top || !l->lane_h)
        abort();
    double y = l->plot_top;
    for (int i = 0; i < tl->n_lanes; i++) {
        double h = MARK_ROW + levels[i] * BAR_ROW + 2;
        l->lane_top[i] = y;
        double min_h = l->edges_w > 0 ? EDGE_LANE_H : MIN_LANE_H;
        l->lane_h[i] = h < min_h ? min_h : h;
        y += l->lane_h[i];
    }
    free(levels);
    l->plot_bottom = y;
    l->legend_top = y + 28;
    l->height = l->legend_top + legend_rows(l) * 22 + 8;
}

static void layout_free(struct layout *l)
{
    free(l->lane_top);
    free(l->lane_h);
    free(l->hold_level);
}

/* ---------- marks ---------- */

/* A mark of that kind centred on (x, y), size s across. */
static void draw_shape(FILE *f, enum timeline_kind kind, double x, double y, double s)
{
    double r = s / 2;
    switch (kind) {
    case TL_READ:
    case TL_YIELD:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", x, y, kind == TL_YIELD ? r - 0.75 : r);
        break;
    case TL_WRITE:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x - r * 0.9, y - r * 0.9,
                s * 0.9, s * 0.9);
        break;
    case TL_ATOMIC:
        r *= 1.15;
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"/>", x, y - r, x + r, y, x, y + r, x - r, y);
        break;
    case TL_SYNC:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"/>", x, y - r, x + r, y + r * 0.8, x - r, y + r * 0.8);
        break;
    case TL_THREAD:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"/>", x - r * 0.8, y - r, x + r, y, x - r * 0.8, y + r);
        break;
    case TL_OTHER:
    case TL_KIND_COUNT:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>", x - r, y - r, x + r, y + r, x - r, y + r,
                x + r, y - r);
        break;
    }
}

static void lane_title(FILE *f, const struct timeline *tl, int thread)
{
    const struct timeline_lane *lane = timeline_lane(tl, thread);
    fprintf(f, "T%d", thread);
    if (lane && lane->start[0]) {
        fputc(' ', f);
        xml_escaped(f, lane->start);
    }
}

static void draw_mark(FILE *f, const struct timeline *tl, const struct layout *l, const struct trace_event *ev,
                      int lane)
{
    enum timeline_kind kind = timeline_kind_of(ev->op);
    bool marked = timeline_step_marked(tl, ev->step);
    fprintf(f, "<g class=\"mark k-%s%s%s\" data-kind=\"%s\" data-step=\"%" PRIu64 "\"><title>step %" PRIu64 " \xc2\xb7 ",
            timeline_kind_name(kind), ev->outcome[0] ? " outcome" : "", marked ? " marked" : "", timeline_kind_name(kind),
            ev->step, ev->step);
    lane_title(f, tl, ev->thread);
    if (ev->switched)
        fputs(" (context switch)", f);
    char op[TRACE_LOG_LINE_MAX];
    trace_log_operation(ev, op, sizeof op);
    fputc('\n', f);
    xml_escaped(f, op);
    if (ev->where[0]) {
        fputc('\n', f);
        xml_escaped(f, ev->where);
    }
    if (ev->outcome[0]) {
        fputs("\n\xe2\x86\x92 ", f);  /* → */
        xml_escaped(f, ev->outcome);
    }
    if (marked && ev->step != l->failing) {
        fputs("\none of the accesses of the ", f);
        xml_escaped(f, tl->summary.failure);
    }
    if (ev->step == l->failing) {
        fputs("\nFAILURE ", f);
        xml_escaped(f, tl->summary.failure);
        fputs(": ", f);
        xml_escaped(f, tl->summary.message);
    }
    fputs("</title>", f);
    draw_shape(f, kind, x_center(l, ev->step), mark_y(l, lane), l->mark);
    fputs("</g>\n", f);
}

/* ---------- lanes ---------- */

/* Text that fits in width at font_size, cut with "…", or nothing when not
 * even a few characters would. */
static void fitted_text(FILE *f, const char *cls, double x, double y, double width, double font_size,
                        const char *prefix, const char *s)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s", prefix, s);
    int fits = (int)(width / (font_size * 0.6));
    if (fits < 4)
        return;
    fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">", cls, x, y);
    xml_escaped_cut(f, buf, fits);
    fputs("</text>", f);
}

static void interval_start(FILE *f, const struct timeline *tl, const struct timeline_interval *in)
{
    if (in->from)
        fprintf(f, " from step %" PRIu64, in->from);
    else
        fprintf(f, " from before step %" PRIu64, tl->first_told);
}

static void draw_blocked(FILE *f, const struct timeline *tl, const struct layout *l, const struct timeline_interval *b,
                         int lane)
{
    double x0 = x_from(l, b->from), x1 = x_to(l, b->to);
    if (x1 - x0 < 1)
        x1 = x0 + 1;
    fprintf(f, "<g class=\"blocked\" data-status=\"%s\"><title>", thread_status_name(b->status));
    lane_title(f, tl, b->thread);
    fprintf(f, " %s", thread_status_name(b->status));
    interval_start(f, tl, b);
    if (b->to)
        fprintf(f, " to step %" PRIu64, b->to);
    else
        fputs(" to the end", f);
    if (b->what[0]) {
        fputs(": waiting on ", f);
        xml_escaped(f, b->what);
    }
    fprintf(f, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0, l->lane_top[lane] + 2,
            x1 - x0, l->lane_h[lane] - 4);
    double text_x = x0 + l->mark / 2 + 4, room = x1 - text_x - 2;
    /* Without "waiting on " when only the object fits whole. */
    bool whole = (xml_char_count("waiting on ") + xml_char_count(b->what)) * 11 * 0.6 <= room;
    fitted_text(f, "blocked-text", text_x, mark_y(l, lane) + 4, room, 11, whole ? "waiting on " : "", b->what);
    fputs("</g>\n", f);
}

static void draw_hold(FILE *f, const struct timeline *tl, const struct layout *l, size_t index, int lane)
{
    const struct timeline_interval *h = &tl->holds[index];
    const struct timeline_object *o = &tl->objects[h->object];
    double x0 = x_from(l, h->from), x1 = x_to(l, h->to);
    if (x1 - x0 < 2)
        x1 = x0 + 2;
    double y = l->lane_top[lane] + MARK_ROW + l->hold_level[index] * BAR_ROW;
    fputs("<g class=\"hold\" data-object=\"", f);
    xml_escaped(f, o->name);
    fprintf(f, "\"><title>T%d holds %s ", h->thread, sync_kind_name(o->kind));
    xml_escaped(f, o->name);
    interval_start(f, tl, h);
    if (h->to)
        fprintf(f, " to step %" PRIu64 "</title>", h->to);
    else
        fputs(" to the end</title>", f);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>", x0, y, x1 - x0,
            BAR_ROW - 2, hold_colours[h->object % N_HOLD_COLOURS]);
    fitted_text(f, "hold-text", x0 + 3, y + BAR_ROW - 4, x1 - x0 - 4, 10, "", o->name);
    fputs("</g>\n", f);
}

static void draw_lane(FILE *f, const struct timeline *tl, const struct layout *l, int lane)
{
    const struct timeline_lane *t = &tl->lanes[lane];
    fprintf(f, "<g class=\"lane\" data-thread=\"%d\">\n", t->id);
    fprintf(f, "<text class=\"lane-name\" x=\"8\" y=\"%.1f\">T%d", mark_y(l, lane) + 3, t->id);
    if (t->start[0]) {
        fputc(' ', f);
        xml_escaped_cut(f, t->start, 18);
    }
    fputs("</text>", f);
    if (t->has_status) {
        fprintf(f, "<text class=\"lane-status\" x=\"8\" y=\"%.1f\">", mark_y(l, lane) + 13);
        fprintf(f, "at the end: %s", thread_status_name(t->status));
        fputs("</text>", f);
    }
    if (l->wide)
        fprintf(f, "<text class=\"lane-name right\" x=\"%.1f\" y=\"%.1f\">T%d</text>", l->width - RIGHT_LABEL_W + 8,
                mark_y(l, lane) + 4, t->id);
    fputc('\n', f);
    for (size_t i = 0; i < tl->n_blocked; i++)
        if (tl->blocked[i].thread == t->id)
            draw_blocked(f, tl, l, &tl->blocked[i], lane);
    for (size_t i = 0; i < tl->n_holds; i++)
        if (tl->holds[i].thread == t->id)
            draw_hold(f, tl, l, i, lane);
    for (size_t i = 0; i < timeline_n_steps(tl); i++) {
        const struct trace_event *ev = timeline_step(tl, i);
        if (ev->thread == t->id)
            draw_mark(f, tl, l, ev, lane);
    }
    fputs("</g>\n", f);
}

/* ---------- the rest ---------- */

static void draw_header(FILE *f, const struct timeline *tl, const struct layout *l)
{
    const struct timeline_summary *s = &tl->summary;
    fputs("<text class=\"title\" x=\"12\" y=\"22\">mdat timeline", f);
    if (s->known && s->program[0]) {
        fputs(": ", f);
        xml_escaped(f, s->program);
        if (s->args[0]) {
            fputc(' ', f);
            xml_escaped_cut(f, s->args, 80);
        }
    }
    fputs("</text>\n<text class=\"meta\" x=\"12\" y=\"40\">", f);
    if (s->known) {
        xml_escaped(f, s->strategy);
        fprintf(f, " seed %" PRIu64 ", execution %" PRIu64 " \xc2\xb7 ", s->seed, s->execution);
    }
    size_t n = timeline_n_steps(tl);
    fprintf(f, "%" PRIu64 " steps, %d threads", timeline_total_steps(tl), tl->n_lanes);
    if (timeline_total_steps(tl) > n)
        fprintf(f, " \xc2\xb7 showing the last %zu steps (%" PRIu64 " to %" PRIu64 ")", n, l->first, l->last);
    fputs("</text>\n", f);
    char caption[800];
    caption_text(tl, l->failing, caption, sizeof caption);
    if (caption[0]) {
        bool failed = s->known && strcmp(s->failure, "none") != 0;
        fprintf(f, "<text class=\"caption%s\">", failed ? "" : " ok");
        struct caption_ctx c = {f, 12, 60};
        wrap(caption, caption_chars(l), caption_line, &c);
        fputs("</text>\n", f);
    }
}

/* Step numbers every few columns, far enough apart for the widest, with
 * grid lines. */
static void draw_axis(FILE *f, const struct layout *l)
{
    static const uint64_t nice[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
    char widest[24];
    double label_w = snprintf(widest, sizeof widest, "%" PRIu64, l->last) * 6.5 + 12;
    if (label_w < 40)
        label_w = 40;
    uint64_t every = nice[sizeof nice / sizeof nice[0] - 1];
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if ((double)nice[i] * l->col >= label_w) {
            every = nice[i];
            break;
        }
    fprintf(f, "<g class=\"axis\"><text class=\"tick\" x=\"8\" y=\"%.1f\">step</text>\n", l->plot_top - 6);
    for (uint64_t s = l->first; s <= l->last; s++) {
        if (s % every != 0 && s != l->first)
            continue;
        if (s != l->first && (double)(s - l->first) * l->col < label_w)
            continue;   /* too close to the first label */
        double x = x_center(l, s);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, l->plot_top - 3, x,
                l->plot_bottom);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64 "</text>\n", x,
                l->plot_top - 6, s);
    }
    fputs("</g>\n", f);
}

static void draw_switches(FILE *f, const struct timeline *tl, const struct layout *l)
{
    fputs("<g class=\"switches\">\n", f);
    for (size_t i = 1; i < timeline_n_steps(tl); i++) {
        const struct trace_event *prev = timeline_step(tl, i - 1), *ev = timeline_step(tl, i);
        if (!ev->switched || prev->thread == ev->thread)
            continue;
        int a = timeline_lane_index(tl, prev->thread), b = timeline_lane_index(tl, ev->thread);
        double x = x_left(l, ev->step);
        fprintf(f, "<line class=\"switch\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, mark_y(l, a), x,
                mark_y(l, b));
    }
    fputs("</g>\n", f);
}

static void draw_wakes(FILE *f, const struct timeline *tl, const struct layout *l)
{
    for (size_t i = 0; i < tl->n_wakes; i++) {
        const struct timeline_wake *w = &tl->wakes[i];
        int a = timeline_lane_index(tl, w->from_thread), b = timeline_lane_index(tl, w->to_thread);
        if (a < 0 || b < 0 || w->from_step < l->first || w->to_step > l->last || w->to_step <= w->from_step)
            continue;
        double x0 = x_center(l, w->from_step), y0 = mark_y(l, a);
        double x1 = x_center(l, w->to_step), y1 = mark_y(l, b);
        /* End at the mark's edge, not under it. */
        double dx = x1 - x0, dy = y1 - y0, len = dx * dx + dy * dy;
        double cut = l->mark / 2 + 1.5;
        if (len > 0) {
            double k = cut / sqrt(len);
            x1 -= dx * k;
            y1 -= dy * k;
        }
        fprintf(f, "<g class=\"wake\" data-from=\"%" PRIu64 "\" data-to=\"%" PRIu64 "\"><title>step %" PRIu64 ": T%d ",
                w->from_step, w->to_step, w->from_step, w->from_thread);
        xml_escaped(f, w->by);
        fprintf(f, " wakes T%d", w->to_thread);
        if (w->what[0]) {
            fputs(" (waiting on ", f);
            xml_escaped(f, w->what);
            fputc(')', f);
        }
        fprintf(f, "; T%d runs again at step %" PRIu64 "</title>", w->to_thread, w->to_step);
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1f\" marker-end=\"url(#mdat-arrow)\"/></g>\n", x0, y0, x1, y1);
    }
}

/* One arrow per thread waiting at the end for another: from the end of
 * the waiter's "waiting on ..." text (which names the lock) to the lane
 * of the thread it waits for, in a column of its own; red when it is part
 * of a cycle (the deadlock), grey otherwise (a join of a thread in it). */
static void draw_wait_edges(FILE *f, const struct timeline *tl, const struct layout *l)
{
    if (l->edges_w <= 0)
        return;
    bool any_cycle = false;
    for (int i = 0; i < tl->n_lanes; i++)
        any_cycle |= timeline_in_wait_cycle(tl, &tl->lanes[i]);
    fprintf(f, "<g class=\"waits\"><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", l->edges_x + 4,
            l->plot_top - 6, any_cycle ? "wait cycle" : "waits for");
    double x = l->edges_x + 16;
    for (int i = 0; i < tl->n_lanes; i++) {
        const struct timeline_lane *t = &tl->lanes[i];
        int target = timeline_waits_for_at_end(tl, t);
        if (!target)
            continue;
        bool cycle = timeline_in_wait_cycle(tl, t);
        int to = timeline_lane_index(tl, target);
        fprintf(f, "<g class=\"wait-edge%s\" data-from=\"%d\" data-to=\"%d\"><title>T%d waits for T%d: ",
                cycle ? " cycle" : "", t->id, target, t->id, target);
        xml_escaped(f, t->waiting_on);
        fputs(cycle ? " (part of the wait cycle)" : "", f);
        fputs("</title>", f);
        double y0 = mark_y(l, i), y1 = mark_y(l, to);
        const char *marker = cycle ? "url(#mdat-arrow-cycle)" : "url(#mdat-arrow-wait)";
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>", l->edges_x + 2, y0);
        if (to == i)    /* waits for itself: a loop back to its lane */
            fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\" marker-end=\"%s\"/>",
                    l->edges_x + 2, y0, x, y0, x + 14, y0 - 12, x + 14, y0 + 12, x + 2, y0 + 6, marker);
        else
            fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1f\" marker-end=\"%s\"/>", l->edges_x + 2, y0, x, y0,
                    x, y1 + (y1 > y0 ? -7 : 7), marker);
        fputs("</g>\n", f);
        x += EDGE_COL;
    }
    fputs("</g>\n", f);
}

static void draw_failure(FILE *f, const struct timeline *tl, const struct layout *l)
{
    if (!l->failing)
        return;
    const struct trace_event *ev = NULL;
    for (size_t i = timeline_n_steps(tl); i-- > 0 && !ev;)
        if (timeline_step(tl, i)->step == l->failing)
            ev = timeline_step(tl, i);
    if (!ev)
        return;
    int lane = timeline_lane_index(tl, ev->thread);
    double x = x_center(l, ev->step);
    fprintf(f, "<g class=\"failure\" id=\"failing-mark\" data-step=\"%" PRIu64 "\"><title>FAILURE ", ev->step);
    xml_escaped(f, tl->summary.failure);
    fprintf(f, " at step %" PRIu64 ": ", ev->step);
    xml_escaped(f, tl->summary.message);
    fprintf(f, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x_left(l, ev->step),
            l->plot_top - 32, l->col, l->plot_bottom - l->plot_top + 32);
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", x, mark_y(l, lane), l->mark / 2 + 4);
    fprintf(f, "<text class=\"failure-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">failing step</text></g>\n",
            x + l->col / 2 + 2, l->plot_top - 22);
}

/* ---------- legend ---------- */

enum legend_item_kind {
    LEGEND_MARK, LEGEND_HOLD, LEGEND_BLOCKED, LEGEND_WAKE, LEGEND_SWITCH, LEGEND_FAILURE, LEGEND_WAIT_EDGE
};

static const struct legend_item {
    enum legend_item_kind what;
    enum timeline_kind kind;
    const char *label;
} legend_items[] = {
    {LEGEND_MARK, TL_READ, NULL},       {LEGEND_MARK, TL_WRITE, NULL},   {LEGEND_MARK, TL_ATOMIC, NULL},
    {LEGEND_MARK, TL_SYNC, NULL},       {LEGEND_MARK, TL_THREAD, NULL},  {LEGEND_MARK, TL_YIELD, NULL},
    {LEGEND_MARK, TL_OTHER, NULL},      {LEGEND_HOLD, 0, "lock held (bar named after the lock)"},
    {LEGEND_BLOCKED, 0, "blocked (hatched)"}, {LEGEND_WAKE, 0, "wake-up"},
    {LEGEND_SWITCH, 0, "context switch"},     {LEGEND_FAILURE, 0, "failing step"},
    {LEGEND_WAIT_EDGE, 0, "waits for (at the end; red: a deadlock's cycle)"},
};
enum { N_LEGEND = sizeof legend_items / sizeof legend_items[0] };

static const char *legend_label(const struct legend_item *it)
{
    return it->label ? it->label : kind_label[it->kind];
}

static double legend_item_width(const struct legend_item *it)
{
    return 24 + text_width(legend_label(it), 11) + 18;
}

/* Items flow left to right, wrapping at the picture's width; calls draw
 * for each with its place unless draw is NULL. Returns the rows used. */
static int legend_flow(const struct layout *l, void (*draw)(FILE *, const struct legend_item *, double, double),
                       FILE *f)
{
    /* A wide picture opens at its end: its legend is there. */
    double left = l->wide ? l->width - PAGE_WIDTH + 12 : 12;
    double x = left, y = l->legend_top;
    int rows = 1;
    for (int i = 0; i < N_LEGEND; i++) {
        double w = legend_item_width(&legend_items[i]);
        if (x + w > l->width - 8 && x > left) {
            x = left;
            y += 22;
            rows++;
        }
        if (draw)
            draw(f, &legend_items[i], x, y);
        x += w;
    }
    return rows;
}

static int legend_rows(const struct layout *l)
{
    return legend_flow(l, NULL, NULL);
}

static void draw_legend_item(FILE *f, const struct legend_item *it, double x, double y)
{
    double cx = x + 8, cy = y - 4;
    switch (it->what) {
    case LEGEND_MARK:
        fprintf(f, "<g class=\"k-%s\">", timeline_kind_name(it->kind));
        draw_shape(f, it->kind, cx, cy, 12);
        fputs("</g>", f);
        break;
    case LEGEND_HOLD:
        fprintf(f, "<rect class=\"legend-hold\" x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"%d\" rx=\"2\" fill=\"%s\"/>",
                x, cy - 4, BAR_ROW - 2, hold_colours[0]);
        break;
    case LEGEND_BLOCKED:
        fprintf(f, "<g class=\"blocked\"><rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"12\"/></g>", x, cy - 6);
        break;
    case LEGEND_WAKE:
        fprintf(f, "<g class=\"wake\"><path d=\"M%.1f %.1fL%.1f %.1f\" marker-end=\"url(#mdat-arrow)\"/></g>", x,
                cy + 4, x + 16, cy - 4);
        break;
    case LEGEND_SWITCH:
        fprintf(f, "<line class=\"switch\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cx, cy - 7, cx, cy + 7);
        break;
    case LEGEND_FAILURE:
        fprintf(f, "<g class=\"failure-key\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\"/></g>", cx, cy);
        break;
    case LEGEND_WAIT_EDGE:
        fprintf(f, "<g class=\"wait-edge cycle\"><path d=\"M%.1f %.1fL%.1f %.1f\" marker-end=\"url(#mdat-arrow-cycle)\"/></g>",
                x, cy, x + 16, cy);
        break;
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 24, y, legend_label(it));
}

static void draw_legend(FILE *f, const struct layout *l)
{
    fputs("<g class=\"legend\">\n", f);
    legend_flow(l, draw_legend_item, f);
    fputs("</g>\n", f);
}

/* ---------- the document ---------- */

static const char svg_style[] =
    ".mdat-tl text{font-family:'DejaVu Sans',Verdana,Arial,Helvetica,sans-serif;fill:#222;font-size:11px}"
    ".mdat-tl .title{font-size:16px;font-weight:bold}"
    ".mdat-tl .meta{font-size:12px;fill:#444}"
    ".mdat-tl .caption{font-size:13px;font-weight:bold;fill:#b00000}"
    ".mdat-tl .caption.ok{fill:#1a7f37}"
    ".mdat-tl .tick{font-size:11px;fill:#555}"
    ".mdat-tl .grid{stroke:#e2e2e2;stroke-width:1}"
    ".mdat-tl .lane-bg{fill:#ffffff}"
    ".mdat-tl .lane-bg.odd{fill:#f4f6f8}"
    ".mdat-tl .lane-name{font-size:12px;font-weight:bold}"
    ".mdat-tl .lane-status{font-size:10px;fill:#555}"
    ".mdat-tl .k-read>*{fill:#0072b2}"
    ".mdat-tl .k-write>*{fill:#d55e00}"
    ".mdat-tl .k-atomic>*{fill:#cc79a7}"
    ".mdat-tl .k-sync>*{fill:#e69f00}"
    ".mdat-tl .k-thread>*{fill:#222222}"
    ".mdat-tl .k-yield>*{fill:#ffffff;stroke:#777;stroke-width:1.5}"
    ".mdat-tl .k-other>*{fill:none;stroke:#555;stroke-width:1.5}"
    ".mdat-tl .mark.outcome>*{stroke:#000;stroke-width:1.2}"
    ".mdat-tl .mark.marked>*{stroke:#c00000;stroke-width:2.2}"
    ".mdat-tl .mark:hover>*{stroke:#000;stroke-width:2}"
    ".mdat-tl .blocked rect{fill:url(#mdat-hatch);stroke:#8a8a8a;stroke-width:.6}"
    ".mdat-tl .blocked-text{font-size:11px;fill:#333}"
    ".mdat-tl .hold rect,.mdat-tl .legend-hold{stroke:#444;stroke-width:.6}"
    ".mdat-tl .hold-text{font-size:10px;fill:#111}"
    ".mdat-tl .switch{stroke:#8a8a8a;stroke-width:1;stroke-dasharray:2 2}"
    ".mdat-tl .wake path{stroke:#009e73;stroke-width:1.6;fill:none}"
    ".mdat-tl .failure rect{fill:#ff0000;fill-opacity:.10;pointer-events:none}"
    ".mdat-tl .failure circle,.mdat-tl .failure-key circle{fill:none;stroke:#c00000;stroke-width:2.5;"
    "pointer-events:none}"
    ".mdat-tl .failure-label{font-size:11px;font-weight:bold;fill:#c00000}"
    ".mdat-tl .wait-edge path{stroke:#777;stroke-width:1.8;fill:none}"
    ".mdat-tl .wait-edge circle{fill:#777}"
    ".mdat-tl .wait-edge.cycle path{stroke:#c00000;stroke-width:2.2}"
    ".mdat-tl .wait-edge.cycle circle{fill:#c00000}"
;

bool timeline_svg_is_wide(const struct timeline *tl)
{
    struct layout l;
    lay_out(tl, false, &l);
    bool wide = l.wide;
    layout_free(&l);
    return wide;
}

void timeline_write_svg(FILE *f, const struct timeline *tl, bool standalone)
{
    struct layout l;
    lay_out(tl, standalone, &l);
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mdat-tl\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"mdat-tl-title\">\n",
            l.width, l.height, l.width, l.height);
    fputs("<title id=\"mdat-tl-title\">mdat timeline", f);
    if (tl->summary.known) {
        fputs(" of ", f);
        xml_escaped(f, tl->summary.program);
        fputs(": ", f);
        char caption[800];
        caption_text(tl, l.failing, caption, sizeof caption);
        xml_escaped(f, caption);
    }
    fprintf(f, "</title>\n<style>%s</style>\n", svg_style);
    fputs("<defs><pattern id=\"mdat-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ececec\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#a0a0a0\" stroke-width=\"2\"/></pattern>"
          "<marker id=\"mdat-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
          "markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10Z\" fill=\"#009e73\"/></marker>"
          "<marker id=\"mdat-arrow-cycle\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" "
          "markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0L10 5L0 10Z\" fill=\"#c00000\"/></marker>"
          "<marker id=\"mdat-arrow-wait\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" "
          "markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0L10 5L0 10Z\" fill=\"#777777\"/></marker></defs>\n",
          f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", l.width, l.height);
    if (standalone)
        draw_header(f, tl, &l);
    for (int i = 0; i < tl->n_lanes; i++)
        fprintf(f, "<rect class=\"lane-bg%s\" x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\"/>\n",
                i % 2 ? " odd" : "", l.lane_top[i], l.width, l.lane_h[i]);
    draw_axis(f, &l);
    for (int i = 0; i < tl->n_lanes; i++)
        draw_lane(f, tl, &l, i);
    draw_switches(f, tl, &l);
    draw_wakes(f, tl, &l);
    draw_wait_edges(f, tl, &l);
    draw_failure(f, tl, &l);
    draw_legend(f, &l);
    fputs("</svg>\n", f);
    layout_free(&l);
}
