/* trace_tail: the last part of a long trace, in memory, for a trace file
 * that must stay bounded.
 *
 * A renderer writes into a stream whose bytes go into segments of about
 * the same number of steps; only the newest segments are kept, and at the
 * end they are written to the real file. Owns the stream (fopencookie), the
 * segment buffers and how many steps were dropped. */
#ifndef MDAT_TRACE_TRACE_TAIL_H
#define MDAT_TRACE_TRACE_TAIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct trace_tail;

/* keep: segments kept (the current one included). *stream is where the
 * renderer writes; NULL on failure. */
struct trace_tail *trace_tail_open(size_t keep, FILE **stream);
/* Starts a new segment after `steps` steps written so far (the stream is
 * flushed first): the oldest segment beyond `keep` is dropped. */
void trace_tail_cut(struct trace_tail *t, uint64_t steps);
/* Steps in the dropped segments. */
uint64_t trace_tail_dropped(const struct trace_tail *t);
/* Closes the stream, writes the kept bytes to out, frees everything. */
void trace_tail_finish(struct trace_tail *t, FILE *out);

#endif
