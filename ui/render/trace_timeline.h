/* trace_timeline: pictures of an execution as trace formats.
 *
 * "timeline" (files ending ".html") is a self-contained HTML page: a
 * header (program, strategy, seed, execution, the verdict), the SVG
 * timeline of timeline_svg inline, then the threads at the end and every
 * drawn step as tables, so that the page prints and reads without hovering;
 * no script, no external font, style sheet or image: it works offline. A
 * picture wider than the window it is laid out for sits in a box that
 * scrolls right to left, so that the page opens on its end (the failure);
 * the verdict links to the failing step.
 * "timeline-svg" (".svg") is the same picture alone, for slides. Both
 * gather the whole execution (timeline_model) and write at close, with the
 * caption of the summary when one came. They are file_only: --trace does
 * not print them; `mdat run` saves both with each failure and
 * `mdat replay --timeline FILE` writes either. */
#ifndef MDAT_UI_TRACE_TIMELINE_H
#define MDAT_UI_TRACE_TIMELINE_H

#include "supervisor/trace/trace.h"

extern const struct trace_format timeline_trace_format;
extern const struct trace_format timeline_svg_trace_format;

/* The timeline format a file name asks for by its extension (".html" or
 * ".htm": the page; ".svg": the picture alone; any case), NULL for others. */
const struct trace_format *timeline_format_for_path(const char *path);

#endif
