/* detectors: the listeners a batch of executions is judged by (--races,
 * --invariant, and heap errors always), made once per batch and handed to
 * every execution.
 *
 * Owns which detectors run, in which order (invariants first: a step that
 * breaks one is reported as such even if it also races), and what they
 * keep across executions (the races already warned about, shared with
 * forked workers). The explore layer only asks for the listeners of the
 * next execution and, after it, which steps a race failure points at. */
#ifndef MDAT_DETECT_DETECTORS_H
#define MDAT_DETECT_DETECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/detect/race_report.h"
#include "supervisor/engine/exec_listener.h"

struct detect_options {
    enum race_mode races;
    const char *const *invariants;  /* C expressions over globals */
    int n_invariants;
};

enum { DETECT_MAX_LISTENERS = 3 };

struct detectors;

/* NULL with a one-line reason when an invariant is bad (the user's
 * mistake: report it before anything runs). */
struct detectors *detectors_new(const struct detect_options *o, const debuginfo *exe, char *err, size_t errlen);
void detectors_free(struct detectors *d);
/* The listeners for execution `execution` (its index, for warnings) into
 * out[DETECT_MAX_LISTENERS]; returns how many. */
int detectors_listeners(struct detectors *d, uint64_t execution, struct exec_listener *out);
/* Whether the instruction at pc has raced in the running execution (the
 * preemption points of --preempt=races); ctx is the detectors. */
bool detectors_raced_at(void *ctx, uint64_t pc);
/* At the end of an execution, once its exit status and output are judged:
 * whether a race was found in it (res->kind becomes FAIL_RACE when that
 * was its only failure and the races fail at the end). */
bool detectors_judge_end(const struct detectors *d, struct exec_result *res);
/* The steps of the two accesses of the race that failed the last execution. */
bool detectors_race_steps(const struct detectors *d, uint64_t *earlier, uint64_t *later);

#endif
