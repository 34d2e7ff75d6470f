/* grade_json: the parts of grading's JSON documents that the report, the
 * shard report and the journal share (written by one function, read back
 * by the other; grade_json.c). */
#ifndef MDAT_UI_GRADE_JSON_H
#define MDAT_UI_GRADE_JSON_H

#include "ui/grade/model/grade_model.h"
#include "ui/text/json_writer.h"

/* "settings": {...} */
void grade_json_settings(struct json_writer *w, const struct grade_settings *s);
/* key: {"deadlock": N, ...}, every failure kind. */
void grade_json_kind_counts(struct json_writer *w, const char *key, const uint64_t counts[FAIL_KIND_COUNT]);
/* key: {"execution", "seed", "kind", "message", ..., "replay"} */
void grade_json_failure(struct json_writer *w, const char *key, const struct grade_failure *f, uint64_t seed);

/* "outcomes": [...] (docs/json.md, "An outcome") and "outcomes_left_out". */
void grade_json_outcomes(struct json_writer *w, const struct outcome_table *t, uint64_t left_out);

/* "lincheck": {...}: what mdat lincheck found (docs/json.md). */
void grade_json_lincheck(struct json_writer *w, const struct grade_lincheck *lc);

/* One unit in full (an element of an array, or a JSON Lines record). */
void grade_json_unit(struct json_writer *w, const struct grade_unit *u, uint64_t seed);
/* Reads what grade_json_unit wrote: false if a field is missing or the
 * submission is not below n_submissions. */
struct json_value;
bool grade_read_unit(const struct json_value *v, int n_submissions, struct grade_unit *u);
/* The first member of object a that b lacks or holds otherwise, "the set
 * of fields" when b has more; NULL when they are equal. */
const char *grade_json_first_difference(const struct json_value *a, const struct json_value *b);

#endif
