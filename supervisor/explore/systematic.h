/* systematic: the batch of a systematic strategy (dfs, dpor), whose every
 * execution depends on the ones before it. They run in order in mdat's own
 * process (whatever -j says: the answer must not depend on it), until -n
 * executions, the first failure (without --keep-going) or the end of the
 * search space; the choices of each failure found are kept, since the
 * strategy could not make them again from (seed, index) alone. */
#ifndef MDAT_EXPLORE_SYSTEMATIC_H
#define MDAT_EXPLORE_SYSTEMATIC_H

#include "supervisor/explore/workers.h"

/* The choices of each execution in tally->found (same order). */
struct systematic_found {
    struct choice_list choices[MAX_REPORTED];
    struct choice_list lowest;      /* of tally->lowest (count_all) */
};

/* Runs the search, booking each execution in tally and filling sum's
 * systematic fields. false when an execution could not be run (the tally
 * has the error). */
void systematic_run(struct program *prog, const struct explore_options *opt, struct tally *tally,
                    struct systematic_found *found, struct explore_summary *sum);
void systematic_found_free(struct systematic_found *found);

#endif
