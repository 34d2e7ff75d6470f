/* observe_choice: whether a batch's later executions follow page ownership
 * or observe every access (see observe_choice.c). */
#ifndef MDAT_EXPLORE_OBSERVE_CHOICE_H
#define MDAT_EXPLORE_OBSERVE_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/explore/workers.h"

/* Execution 0 ran with page ownership (shared->first); true when the same
 * execution observing every access costs less, so that every later one
 * should observe every access. Runs execution 0 once more to know; its
 * verdict counts for nothing. */
bool observe_choice_all_pays(struct program *prog, const struct explore_options *opt, uint64_t estimate,
                             const struct shared_state *shared);

#endif
