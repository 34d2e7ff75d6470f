/* grade_shard: the shard report of `mdat grade --shard K/N` (the settings,
 * the shard, and its units in full), read back by mdat merge, which checks
 * that a set of them makes one whole grading (see grade_shard.c). Its units'
 * JSON is ui/grade/model/grade_json.h's, shared with the journal. */
#ifndef MDAT_UI_GRADE_SHARD_H
#define MDAT_UI_GRADE_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/grade/model/grade_model.h"

struct json_value;

/* A shard report: the settings, the shard, and its units in full. */
bool grade_write_shard(const char *path, const struct grade_settings *s, int k, int n, const struct grade_unit *units,
                       size_t n_units, char *err, size_t errlen);

/* One shard report read back. Its settings borrow strings from doc. */
struct grade_shard {
    struct json_value *doc;
    struct grade_settings settings;
    const char **submissions;
    const char **watches;
    int k, n;
    struct grade_unit *units;
    size_t n_units;
};
bool grade_read_shard(const char *path, struct grade_shard *sh, char *err, size_t errlen);
void grade_shard_free(struct grade_shard *sh);

/* Checks that shards belong together: same settings, same N, each shard
 * once, none missing, and each holds the units its number calls for. On a
 * mismatch: false and a one-line reason naming the files (paths[i] is
 * shards[i]'s). */
bool grade_check_shards(const struct grade_shard *shards, const char *const *paths, size_t n, char *err,
                        size_t errlen);

#endif
