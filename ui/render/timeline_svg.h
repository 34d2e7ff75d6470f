/* timeline_svg: the picture of one execution as SVG.
 *
 * Owns the drawing: one lane per thread (labelled "T2 worker", with its
 * status at the end), time as step numbers along x (a column per step,
 * narrower the more steps there are), a mark per step shaped and coloured
 * by its kind (read, write, atomic, sync call, thread start/create/join,
 * yield/sleep, other) carrying every detail in its <title> (the tooltip),
 * lock holds as named bars under the holder's marks, blocked intervals
 * hatched and labelled with what the thread waits on, wake-ups as arrows
 * from the waking step to the woken thread's next step, context switches
 * as dashed lines between lanes, the failing step ringed in red with the
 * failure as the caption, a header (program, strategy, seed, execution,
 * steps) and a legend. Shapes and text say everything the colours say, so
 * it reads in grey and on paper. Elements carry classes a test can find:
 * lane, mark (data-kind, data-step), hold (data-object), blocked, wake,
 * switch, failure (data-step), caption, legend; after the last step,
 * what the threads blocked at the end wait on and an arrow from each to
 * the thread it waits for (wait-edge, data-from, data-to; "cycle" when
 * the arrows make a deadlock's wait cycle). */
#ifndef MDAT_UI_TIMELINE_SVG_H
#define MDAT_UI_TIMELINE_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/render/timeline_model.h"

/* Writes the picture of tl (after timeline_end). standalone: a document of
 * its own, for a .svg file: XML declaration first, and the header (program,
 * seed, the failure as caption) drawn in the picture; else the <svg>
 * element alone, without the header, to be inlined in a page that has it. */
void timeline_write_svg(FILE *f, const struct timeline *tl, bool standalone);

/* Whether the picture is wider than the window it is laid out for (a
 * 1400 px one): too many steps to fit. A page then scrolls it sideways
 * and opens it at its end, where the failure is; one that fits is drawn
 * across the page's width. */
bool timeline_svg_is_wide(const struct timeline *tl);

#endif
