/* observe_choice: whether a batch's later executions follow page ownership
 * or observe every access (see observe_choice.c). */
#ifndef MDAT_EXPLORE_OBSERVE_CHOICE_H
#define MDAT_EXPLORE_OBSERVE_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/explore/workers.h"

enum observe_choice {
    OBSERVE_OWNED,      /* later executions follow page ownership */
    OBSERVE_ALL,        /* they observe every access */
    OBSERVE_CUT_SHORT,  /* the probe was killed from outside: *cut_short says so */
};

/* Execution 0 ran with page ownership (shared->first): whether the same
 * execution observing every access costs less. Runs execution 0 once
 * more to know; its verdict counts for nothing. */
enum observe_choice observe_choice_probe(struct program *prog, const struct explore_options *opt, uint64_t estimate,
                                         const struct shared_state *shared, struct wire_result *cut_short);

#endif
