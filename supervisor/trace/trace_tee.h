/* trace_tee: one execution's events fanned out to several trace renderers.
 *
 * Owns the lifetime of the renderers of one execution: each branch is a
 * trace_format writing to its own FILE; trace_tee_open opens them all,
 * trace_tee_event (a trace_sink) feeds each the event and state, and
 * trace_tee_close lets each write what it still holds. This is how one
 * re-run of a failure writes its trace in every format at once. */
#ifndef MDAT_SUPERVISOR_TRACE_TEE_H
#define MDAT_SUPERVISOR_TRACE_TEE_H

#include <stdbool.h>
#include <stdio.h>

#include "supervisor/trace/trace.h"

enum { TRACE_TEE_MAX = 8 };

/* A long trace keeps its last steps: TRACE_TAIL_STEPS by default, in
 * segments of TRACE_SEGMENT_STEPS (so a little more is kept). */
enum { TRACE_TAIL_STEPS = 5000, TRACE_SEGMENT_STEPS = 1000 };

struct trace_tail;

struct trace_tee {
    int n;
    uint64_t tail_steps;        /* keep about the last ones in each file; 0: everything */
    uint64_t steps;             /* events seen since open */
    uint64_t from_step;         /* the first step the execution tells (trace_tee_skip_to) */
    uint64_t skipped;           /* steps before the first one told */
    struct trace_tee_branch {
        const struct trace_format *format;
        FILE *out;
        bool every_step;
        void *renderer;         /* between open and close */
        struct trace_tail *tail;    /* where the renderer writes when the file is bounded */
    } branch[TRACE_TEE_MAX];
};

/* Every file keeps only about its last `steps` steps (0: all). Set before open. */
void trace_tee_bound(struct trace_tee *t, uint64_t steps);
/* The execution tells the tee only its steps from `step` on (0: all):
 * the files say the steps before were left out, as for a bounded tail. */
void trace_tee_skip_to(struct trace_tee *t, uint64_t step);
/* false when the tee is full. */
bool trace_tee_add(struct trace_tee *t, const struct trace_format *format, FILE *out, bool every_step);
/* Whether the execution must produce an exec_state for some branch. */
bool trace_tee_needs_state(const struct trace_tee *t);
void trace_tee_open(struct trace_tee *t);
void trace_tee_event(void *tee, const struct trace_event *ev, const struct exec_state *state);
/* Tells each branch that wants it how the execution ended (before close). */
void trace_tee_summary(struct trace_tee *t, const struct trace_summary *s);
void trace_tee_close(struct trace_tee *t);
/* Whether trace_tee_restart can take back what was told (every file a
 * regular file, which can be emptied). */
bool trace_tee_can_restart(const struct trace_tee *t);
/* Takes back everything told since open (the files emptied) and opens the
 * tee again, for an execution that starts over; false if a file could not
 * be emptied. */
bool trace_tee_restart(struct trace_tee *t);

#endif
