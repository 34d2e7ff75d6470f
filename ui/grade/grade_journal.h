/* grade_journal: every unit's verdict written to disk as it is decided, and
 * read back by mdat grade --resume (see grade_journal.c). */
#ifndef MDAT_UI_GRADE_JOURNAL_H
#define MDAT_UI_GRADE_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "ui/grade/model/grade_model.h"

struct grade_journal {
    FILE *f;                    /* opened for appending */
    char path[PATH_MAX];
    uint64_t seed;
};

/* OUT/journal.jsonl, or OUT/journal-shard-K-of-N.jsonl (shard_n > 0). */
void grade_journal_path(const char *out_dir, int shard_k, int shard_n, char *out, size_t len);

/* Starts the journal of this grading. Fresh: a header (the settings) replaces
 * any earlier journal. resume: the journal must exist and hold the same
 * settings; its units (at most max_units) are read into units, and grading
 * appends after them. false with a one-line reason in err. */
bool grade_journal_start(struct grade_journal *j, const struct grade_settings *s, int shard_k, int shard_n,
                         bool resume, struct grade_unit *units, size_t max_units, size_t *n_units, char *err,
                         size_t errlen);
/* Appends one decided unit and syncs it to disk. */
bool grade_journal_append(struct grade_journal *j, const struct grade_unit *u, char *err, size_t errlen);
void grade_journal_close(struct grade_journal *j);

#endif
