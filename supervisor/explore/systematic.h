/* systematic: the batch of a systematic strategy (dfs, dpor), whose every
 * execution depends on the ones before it. They run in order in mdat's own
 * process (whatever -j says: the answer must not depend on it), until -n
 * executions, the first failure (without --keep-going) or the end of the
 * search space; the choices of each failure found are kept, since the
 * strategy could not make them again from (seed, index) alone. With
 * --outcomes, so are the choices of the first execution of each outcome
 * (its schedule is saved from them), and an execution the strategy cut
 * short (dpor: equivalent to one already run) is no outcome: each class is
 * counted once. */
#ifndef MDAT_EXPLORE_SYSTEMATIC_H
#define MDAT_EXPLORE_SYSTEMATIC_H

#include "supervisor/explore/workers.h"

/* The first execution of an outcome and its choices. */
struct systematic_outcome {
    uint64_t execution;
    struct choice_list choices;
};

/* The choices of each execution in tally->found (same order). */
struct systematic_found {
    struct choice_list choices[MAX_REPORTED];
    struct choice_list lowest;      /* of tally->lowest (count_all) */
    struct systematic_outcome *outcomes;    /* in the order tally->outcomes added them */
    size_t n_outcomes;
};

/* Runs the search, booking each execution in tally and filling sum's
 * systematic fields. false when an execution could not be run (the tally
 * has the error). */
void systematic_run(struct program *prog, const struct explore_options *opt, struct tally *tally,
                    struct systematic_found *found, struct explore_summary *sum);
void systematic_found_free(struct systematic_found *found);
/* The choices of execution, the first of its outcome; NULL if not kept. */
const struct choice_list *systematic_outcome_choices(const struct systematic_found *found, uint64_t execution);

#endif
