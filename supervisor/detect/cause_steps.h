/* cause_steps: which steps of a failed execution led to its failure, so
 * that reports and the TUI can show them even when they are far back.
 *
 * Owns the choice of steps for each kind of failure: a deadlock's
 * acquisitions of the locks in its wait cycle and the attempts that
 * blocked; an assertion's or an invariant's last writes to the variables
 * its expression names (with the loads and stores of a lost update, when
 * one of those writes overwrote another thread's); a checker's lost
 * updates; a race's two accesses; a crash's access with the load before it
 * and the last write to what was loaded. It reads only trace events and
 * the result's words (the message quotes the failed expression), and
 * leaves how they are shown to the renderers (cause_book.h keeps a
 * running execution's events for it). */
#ifndef MDAT_DETECT_CAUSE_STEPS_H
#define MDAT_DETECT_CAUSE_STEPS_H

#include <stddef.h>

#include "supervisor/engine/exec_config.h"
#include "supervisor/trace/trace.h"

/* How far back a cause is looked for: the last this many events. */
enum { CAUSE_BOOK_EVENTS = 20000 };

/* What the choice reads of an event: a fifth of a trace_event, so that
 * the last CAUSE_BOOK_EVENTS of a long execution cost little to keep. */
struct cause_event {
    uint64_t step;
    int thread;
    bool blocked;           /* its outcome: "blocks ..." */
    char op[sizeof ((struct trace_event *)0)->op];
    char object[sizeof ((struct trace_event *)0)->object];
};

void cause_event_of(const struct trace_event *e, struct cause_event *out);

/* The indices into events[0..n) (one execution's, oldest first; a tail of
 * it will do) of the steps that led to res's failure, ascending, at most
 * max of them; returns how many. 0 when the failure's kind has none mdat
 * can name (a hang, a livelock, an exit status) or none is in events. */
int cause_steps_pick(const struct exec_result *res, const struct cause_event *events, size_t n, size_t *out,
                     int max);
/* The same on whole trace events. */
int cause_steps_find(const struct exec_result *res, const struct trace_event *events, size_t n, size_t *out,
                     int max);

#endif
