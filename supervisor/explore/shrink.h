/* shrink: a failing execution made short enough to read. By re-execution
 * of edited choice lists (strategy_guided), first to the fewest preemptions
 * (switches away from a thread that could have gone on), then to the fewest
 * steps. A candidate counts only when it fails the same way: the same
 * failure kind at the same location (file:line), which is also what makes
 * two failures of a batch distinct. The work is bounded by a number of
 * re-executions, which keeps the result a function of the input, and by
 * wall-clock time as a safety net (reported when it cut the search). */
#ifndef MDAT_EXPLORE_SHRINK_H
#define MDAT_EXPLORE_SHRINK_H

#include "supervisor/explore/explore.h"

struct shrink_outcome {
    bool shrunk;                    /* the original failed again under the guided replay */
    struct choice_list choices;     /* of the shortest execution found (replays exactly) */
    uint64_t steps, preemptions;
    uint64_t original_steps, original_preemptions;
    uint64_t runs;                  /* re-executions made */
    double seconds;
    bool out_of_time;               /* the time limit, not the search, ended it */
};

/* Shrinks the execution `index` of opt's batch that made `original` and
 * failed with kind at location. false with a reason only when mdat could
 * not run the program at all; a failure that does not come back leaves
 * out->shrunk false and out->choices the original's. */
bool shrink_failure(struct program *prog, const struct explore_options *opt, uint64_t index,
                    const struct choice_list *original, enum failure_kind kind, const char *location,
                    struct shrink_outcome *out, char *err, size_t errlen);
void shrink_outcome_free(struct shrink_outcome *out);

#endif
