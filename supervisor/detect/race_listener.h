/* race_listener: the race detector as an engine listener (exec_listener.h).
 *
 * Owns turning what the engine says about each step into race_detector's
 * events (whether the thread waits after its call, the mutex a condition
 * wait releases, whether the data is of an atomic type, a dead thread's
 * stack and TLS forgotten) and what a race found becomes: a `race` failure
 * that ends the execution at its second access, one that waits for the
 * execution's end (fail-at-end), or a warning, told once per pair of
 * places. Knows nothing of explore/: it is handed where
 * warnings go and who else wants to hear about racing places. */
#ifndef MDAT_DETECT_RACE_LISTENER_H
#define MDAT_DETECT_RACE_LISTENER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "supervisor/detect/race_detector.h"
#include "supervisor/detect/race_report.h"
#include "supervisor/engine/exec_listener.h"

struct race_listener_config {
    enum race_mode mode;                /* RACES_FAIL, RACES_FAIL_AT_END or RACES_WARN */
    struct race_seen *seen;             /* warnings already given (NULL: give every one) */
    FILE *warnings;                     /* where warnings go (NULL: stderr) */
    const uint64_t *execution;          /* the running execution's index, for warnings (NULL: unsaid) */
    /* Told both instructions of every race found (the preemption policy
     * of --preempt=races); NULL: nobody. */
    void (*raced)(void *ctx, uint64_t pc_a, uint64_t pc_b);
    void *raced_ctx;
};

struct race_listener;

struct race_listener *race_listener_new(const struct race_listener_config *cfg);
void race_listener_free(struct race_listener *l);
struct exec_listener race_listener_hooks(struct race_listener *l);

/* At the end of an execution, once its exit status and output are judged:
 * whether it raced; with RACES_FAIL_AT_END, a race that is the only
 * failure becomes res's (the first one found). */
bool race_listener_judge_end(const struct race_listener *l, struct exec_result *res);

/* The steps of the two accesses of the race that failed the last
 * execution (earlier first); false when it did not fail by a race. */
bool race_listener_failed_steps(const struct race_listener *l, uint64_t *earlier, uint64_t *later);

#endif
