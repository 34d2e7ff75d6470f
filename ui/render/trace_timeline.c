/* trace_timeline: the timeline page and SVG as trace formats. */
#include "ui/render/trace_timeline.h"
#include "ui/render/timeline_model.h"
#include "ui/render/timeline_svg.h"
#include "ui/render/trace_log.h"
#include "ui/text/xml_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct timeline_renderer {
    FILE *out;
    struct timeline *tl;
};

static void *timeline_open(FILE *out, bool every_step)
{
    struct timeline_renderer *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->out = out;
    r->tl = timeline_new();
    return r;
}

static void timeline_event(void *renderer, const struct trace_event *ev, const struct exec_state *state)
{
    struct timeline_renderer *r = renderer;
    timeline_add(r->tl, ev, state);
}

static void timeline_summary(void *renderer, const struct trace_summary *s)
{
    struct timeline_renderer *r = renderer;
    timeline_set_summary(r->tl, s);
}

static const char page_style[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,Helvetica,sans-serif;margin:16px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px}"
    "h2{font-size:16px;margin:20px 0 6px}"
    ".meta{margin:0 0 6px;color:#444}"
    ".verdict{margin:0 0 10px;font-weight:bold;color:#b00000}"
    ".verdict.ok{color:#1a7f37}"
    ".scroll{overflow-x:auto;border:1px solid #ddd}"
    ".scroll svg{display:block}"
    /* A picture laid out for the window is drawn across it; a wider one
     * scrolls, and a right-to-left box opens at its end (the failure),
     * with no script. */
    ".scroll.fit svg{width:100%;height:auto;min-width:1000px}"
    ".scroll.wide{direction:rtl}.scroll.wide svg{direction:ltr}"
    ".verdict a{color:inherit}"
    "figure{margin:0}"
    "figcaption,.note{color:#555;font-size:12px;margin:4px 0}"
    "table{border-collapse:collapse;font-size:12px}"
    "th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}"
    "th{background:#f4f6f8}"
    "td.n{text-align:right}"
    "tr.failing td{background:#fde2e2;font-weight:bold}"
    "tr.marked td{background:#fff1c2}"
    "@media print{@page{size:landscape;margin:10mm}body{margin:0}"
    ".scroll{overflow:visible;border:none;direction:ltr}.scroll svg{width:100%;height:auto;min-width:0}"
    "h2{break-after:avoid}tr{break-inside:avoid}}";

static void cell(FILE *f, const char *text)
{
    fputs("<td>", f);
    xml_escaped(f, text);
    fputs("</td>", f);
}

static void write_threads_table(FILE *f, const struct timeline *tl)
{
    fputs("<section><h2>Threads at the end</h2><table class=\"threads\"><tr><th>thread</th><th>start</th>"
          "<th>status</th><th>waiting on</th></tr>\n",
          f);
    for (int i = 0; i < tl->n_lanes; i++) {
        const struct timeline_lane *t = &tl->lanes[i];
        fprintf(f, "<tr><td>T%d</td>", t->id);
        cell(f, t->start);
        cell(f, t->has_status ? thread_status_name(t->status) : "");
        cell(f, t->waiting_on);
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

static void write_steps_table(FILE *f, const struct timeline *tl)
{
    size_t n = timeline_n_steps(tl);
    uint64_t failing = timeline_failing_step(tl);
    fputs("<section><h2>Steps</h2>", f);
    if (timeline_total_steps(tl) > n)
        fprintf(f, "<p class=\"note\">The last %zu of %" PRIu64 " steps; the .trace file has more.</p>", n,
                timeline_total_steps(tl));
    fputs("<table class=\"steps\"><tr><th>step</th><th>thread</th><th>operation</th><th>where</th>"
          "<th>outcome</th></tr>\n",
          f);
    char op[TRACE_LOG_LINE_MAX];
    for (size_t i = 0; i < n; i++) {
        const struct trace_event *ev = timeline_step(tl, i);
        const char *cls = ev->step == failing            ? " class=\"failing\" id=\"failing-step\""
                          : timeline_step_marked(tl, ev->step) ? " class=\"marked\""
                                                               : "";
        fprintf(f, "<tr%s><td class=\"n\">%" PRIu64 "</td><td>%sT%d</td>", cls, ev->step, ev->switched ? "* " : "",
                ev->thread);
        trace_log_operation(ev, op, sizeof op);
        cell(f, op);
        cell(f, ev->where);
        cell(f, ev->outcome);
        fputs("</tr>\n", f);
    }
    fputs("</table><p class=\"note\">* a context switch: another thread ran the step before.</p></section>\n", f);
}

static void write_page(FILE *f, const struct timeline *tl)
{
    const struct timeline_summary *s = &tl->summary;
    bool failed = s->known && strcmp(s->failure, "none") != 0;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mdat timeline",
          f);
    if (s->known) {
        fputs(": ", f);
        xml_escaped(f, s->program);
        fputs(failed ? " \xe2\x80\x94 " : "", f);
        if (failed)
            xml_escaped(f, s->failure);
    }
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>mdat timeline", page_style);
    if (s->known) {
        fputs(": ", f);
        xml_escaped(f, s->program);
        if (s->args[0]) {
            fputc(' ', f);
            xml_escaped(f, s->args);
        }
    }
    fputs("</h1>\n<p class=\"meta\">", f);
    if (s->known) {
        fputs("strategy ", f);
        xml_escaped(f, s->strategy);
        fprintf(f, ", seed %" PRIu64 ", execution %" PRIu64 "; ", s->seed, s->execution);
    }
    fprintf(f, "%" PRIu64 " steps, %d threads</p>\n", timeline_total_steps(tl), tl->n_lanes);
    if (s->known) {
        fprintf(f, "<p class=\"verdict%s\">", failed ? "" : " ok");
        if (failed) {
            fputs("FAILURE ", f);
            xml_escaped(f, s->failure);
            uint64_t step = timeline_failing_step(tl);
            if (step)
                fprintf(f, " at <a href=\"#failing-mark\">step %" PRIu64 "</a> (<a href=\"#failing-step\">in the "
                        "table</a>)", step);
            fputs(": ", f);
            xml_escaped(f, s->message);
        } else {
            fputs("no failure", f);
        }
        fputs("</p>\n", f);
    }
    fprintf(f, "</header>\n<main>\n<figure>\n<div class=\"scroll %s\">\n", timeline_svg_is_wide(tl) ? "wide" : "fit");
    timeline_write_svg(f, tl, false);
    fputs("</div>\n<figcaption>One lane per thread, time runs left to right (step numbers on top); a long "
          "execution opens at its end. "
          "Hover a mark for its step, thread, operation, value, source line and outcome; hover a bar, hatching "
          "or arrow for what it stands for. The tables below say the same in text.</figcaption>\n</figure>\n",
          f);
    write_threads_table(f, tl);
    write_steps_table(f, tl);
    fputs("</main>\n</body>\n</html>\n", f);
}

static void timeline_close_as(void *renderer, bool page)
{
    struct timeline_renderer *r = renderer;
    timeline_end(r->tl);
    if (page)
        write_page(r->out, r->tl);
    else
        timeline_write_svg(r->out, r->tl, true);
    fflush(r->out);
    timeline_free(r->tl);
    free(r);
}

static void timeline_close_page(void *renderer)
{
    timeline_close_as(renderer, true);
}

static void timeline_close_svg(void *renderer)
{
    timeline_close_as(renderer, false);
}

const struct trace_format timeline_trace_format = {
    .name = "timeline",
    .suffix = ".html",
    .needs_state = true,
    .open = timeline_open,
    .event = timeline_event,
    .summary = timeline_summary,
    .close = timeline_close_page,
    .file_only = true,
    .keeps_own_tail = true,
};

const struct trace_format timeline_svg_trace_format = {
    .name = "timeline-svg",
    .suffix = ".svg",
    .needs_state = true,
    .open = timeline_open,
    .event = timeline_event,
    .summary = timeline_summary,
    .close = timeline_close_svg,
    .file_only = true,
    .keeps_own_tail = true,
};

const struct trace_format *timeline_format_for_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        return &timeline_trace_format;
    if (strcasecmp(dot, ".svg") == 0)
        return &timeline_svg_trace_format;
    return NULL;
}
