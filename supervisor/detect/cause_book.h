/* cause_book: the events of a running execution kept for its cause steps
 * (cause_steps.h): its last CAUSE_BOOK_EVENTS, so that a cause further
 * back than that is left out, and memory stays bounded however long it
 * runs. The explore layer feeds it as a trace sink and, once the verdict
 * is known, has it fill exec_result.cause. It knows nothing of which steps
 * matter. */
#ifndef MDAT_DETECT_CAUSE_BOOK_H
#define MDAT_DETECT_CAUSE_BOOK_H

#include "supervisor/engine/exec_config.h"
#include "supervisor/trace/trace.h"

struct cause_book;
struct cause_book *cause_book_new(void);
void cause_book_free(struct cause_book *b);
/* A trace_sink: keeps ev (a step numbered from 1 again starts over: the
 * execution ran again). */
void cause_book_event(void *book, const struct trace_event *ev, const struct exec_state *state);
/* Fills res->cause with the cause steps of the events kept (none when res
 * is no failure); the book keeps its events. */
void cause_book_fill(struct cause_book *b, struct exec_result *res);

#endif
