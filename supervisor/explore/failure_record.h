/* failure_record: saving a failure found by the batch: with --keep-going
 * its schedule at once, in the worker that found it; then shrunk
 * (shrink.h), its execution re-run once with the trace recorded in every
 * saved format, its schedule file (and the original's), the program's
 * output and input, all in the output directory, the schedule first and
 * each file whole or not at all; and the schedule of each outcome of
 * --outcomes. */
#ifndef MDAT_EXPLORE_FAILURE_RECORD_H
#define MDAT_EXPLORE_FAILURE_RECORD_H

#include "supervisor/explore/workers.h"

/* Re-runs the failing execution w and fills f with what was saved. false
 * with a reason when mdat could not do it. profile: what execution 0 taught
 * a learning strategy (NULL: nothing). choices: the execution's choices
 * when the strategy cannot make them again from (seed, index) alone (a
 * systematic one: they are replayed); NULL: the strategy makes them. */
bool record_failure(struct program *prog, const struct explore_options *opt, const struct wire_result *w,
                    uint64_t estimate, const struct strategy_profile *profile, const struct choice_list *choices,
                    struct explore_failure *f, char *err, size_t errlen);

/* Re-runs the execution of outcome o and saves its schedule into the
 * output directory (o->schedule_file), noting whether the re-run ended the
 * same way. rank: its place in the table from 1, named in the file; 0:
 * the file is named by the execution alone (a shard's table is a part of
 * the whole one, whose ranks it does not know). choices: as for
 * record_failure (a systematic strategy's kept choices). */
bool record_outcome(struct program *prog, const struct explore_options *opt, struct outcome *o, size_t rank,
                    uint64_t estimate, const struct strategy_profile *profile, const struct choice_list *choices,
                    char *err, size_t errlen);

#endif
