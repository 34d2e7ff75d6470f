/* grade_shard: shard reports (the units a shard ran, in full, with the
 * settings they were run with), reading them back, and checking that a set
 * of them makes one whole grading. The JSON of the settings and units is
 * ui/grade/model/grade_json.c's. */
#include "ui/grade/grade_shard.h"
#include "ui/grade/model/grade_json.h"
#include "supervisor/trace/safe_file.h"

#include "ui/text/json_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char SHARD_FORMAT[] = "mdat-grade-shard";

bool grade_write_shard(const char *path, const struct grade_settings *s, int k, int n, const struct grade_unit *units,
                       size_t n_units, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_string(&w, "format", SHARD_FORMAT);
    json_int(&w, "format_version", 1);
    json_string(&w, "mdat_version", MDAT_VERSION);
    grade_json_settings(&w, s);
    json_int(&w, "shard", k);
    json_int(&w, "shards", n);
    json_begin_array(&w, "units");
    for (size_t i = 0; i < n_units; i++)
        grade_json_unit(&w, &units[i], s->seed);
    json_end_array(&w);
    json_end_object(&w);
    return safe_file_commit(&sf, err, errlen);
}

/* ---------- reading ---------- */

static const char *string_member_or_null(const struct json_value *v, const char *key)
{
    const struct json_value *m = json_member(v, key);
    return m && m->type == JSON_STRING ? m->text : NULL;
}

/* Reads what grade_json_settings wrote. false if a field is missing. */
static bool read_settings(const struct json_value *v, struct grade_shard *sh)
{
    struct grade_settings *s = &sh->settings;
    const struct json_value *subs = json_member(v, "submissions");
    const struct json_value *limits = json_member(v, "limits");
    uint64_t depth;
    if (!subs || subs->type != JSON_ARRAY || !limits)
        return false;
    sh->submissions = calloc(subs->n + 1, sizeof *sh->submissions);
    for (size_t i = 0; i < subs->n; i++) {
        if (subs->items[i].type != JSON_STRING)
            return false;
        sh->submissions[i] = subs->items[i].text;
    }
    s->submissions = sh->submissions;
    s->n_submissions = (int)subs->n;
    s->strategy = json_member_string(v, "strategy");
    s->check_cmd = string_member_or_null(v, "check");
    s->fail_on_exit = json_member_true(v, "fail_on_exit");
    s->build_cmd = string_member_or_null(v, "build");
    s->exe_name = string_member_or_null(v, "exe");
    s->out_dir = json_member_string(v, "out_dir");
    s->sandbox = json_member_true(v, "sandbox");
    bool ok = json_member_u64(v, "schedules", &s->schedules) && json_member_u64(v, "seed", &s->seed) &&
              json_member_u64(v, "depth", &depth) && json_member_u64(v, "max_steps", &s->max_steps) &&
              json_member_double(v, "timeout_seconds", &s->timeout_sec) &&
              json_member_double(v, "submission_timeout_seconds", &s->unit_timeout_sec) &&
              json_member_double(v, "build_timeout_seconds", &s->build_timeout_sec) &&
              json_member_u64(limits, "cpu_seconds", &s->limits.cpu_sec) &&
              json_member_u64(limits, "memory_bytes", &s->limits.address_space) &&
              json_member_u64(limits, "procs", &s->limits.nproc) &&
              json_member_u64(limits, "file_size_bytes", &s->limits.file_size) &&
              json_member_u64(v, "max_disk_bytes", &s->max_disk);
    s->depth = (int)depth;
    s->outcomes = json_member_true(v, "outcomes");
    const struct json_value *watches = json_member(v, "watches");
    if (!watches || watches->type != JSON_ARRAY)
        return false;
    sh->watches = calloc(watches->n + 1, sizeof *sh->watches);
    for (size_t i = 0; i < watches->n; i++) {
        if (watches->items[i].type != JSON_STRING)
            return false;
        sh->watches[i] = watches->items[i].text;
    }
    s->watches = sh->watches;
    s->n_watches = (int)watches->n;
    s->lincheck_spec = string_member_or_null(v, "lincheck");
    if (s->lincheck_spec)
        ok = ok && json_member_u64(v, "lincheck_scenarios", &s->lincheck_scenarios) &&
             json_member_u64(v, "lincheck_init", &s->lincheck_init);
    return ok;
}

bool grade_read_shard(const char *path, struct grade_shard *sh, char *err, size_t errlen)
{
    memset(sh, 0, sizeof *sh);
    sh->doc = json_parse_file(path, err, errlen);
    if (!sh->doc)
        return false;
    const struct json_value *d = sh->doc;
    if (strcmp(json_member_string(d, "format"), SHARD_FORMAT) != 0) {
        snprintf(err, errlen, "%s is not an mdat grade shard report (written by mdat grade --shard K/N)", path);
        return false;
    }
    uint64_t k, n;
    const struct json_value *units = json_member(d, "units");
    if (!read_settings(json_member(d, "settings"), sh) || !json_member_u64(d, "shard", &k) ||
        !json_member_u64(d, "shards", &n) || k < 1 || k > n || n > 100000 || !units || units->type != JSON_ARRAY) {
        snprintf(err, errlen, "%s: incomplete shard report (settings, shard or units missing)", path);
        return false;
    }
    sh->k = (int)k;
    sh->n = (int)n;
    sh->units = calloc(units->n ? units->n : 1, sizeof *sh->units);
    for (size_t i = 0; i < units->n; i++) {
        if (!grade_read_unit(&units->items[i], sh->settings.n_submissions, &sh->units[i])) {
            snprintf(err, errlen, "%s: unit %zu is incomplete", path, i + 1);
            return false;
        }
        sh->n_units++;
    }
    return true;
}

void grade_shard_free(struct grade_shard *sh)
{
    json_value_free(sh->doc);
    free(sh->submissions);
    free(sh->watches);
    for (size_t i = 0; i < sh->n_units; i++)
        grade_unit_free(&sh->units[i]);
    free(sh->units);
    memset(sh, 0, sizeof *sh);
}

/* ---------- checking a set ---------- */

/* Does the shard hold exactly the units its number calls for? */
static bool check_units(const struct grade_shard *sh, const char *path, char *err, size_t errlen)
{
    const struct grade_settings *s = &sh->settings;
    size_t expected = 0;
    for (int i = 0; i < s->n_submissions; i++) {
        uint64_t first, end;
        grade_shard_range(grade_units_total(s), sh->k, sh->n, &first, &end);
        if (first == end)
            continue;
        expected++;
        size_t found = 0;
        for (size_t u = 0; u < sh->n_units; u++)
            if (sh->units[u].submission == i)
                found += sh->units[u].first == first && sh->units[u].end == end ? 1 : 2;
        if (found != 1) {
            snprintf(err, errlen, "%s: shard %d of %d should hold executions %" PRIu64 "-%" PRIu64 " of %s once",
                     path, sh->k, sh->n, first, end - 1, s->submissions[i]);
            return false;
        }
    }
    if (expected != sh->n_units) {
        snprintf(err, errlen, "%s: shard %d of %d holds units it should not", path, sh->k, sh->n);
        return false;
    }
    return true;
}

bool grade_check_shards(const struct grade_shard *shards, const char *const *paths, size_t n, char *err,
                        size_t errlen)
{
    if (n == 0) {
        snprintf(err, errlen, "no shard reports given");
        return false;
    }
    int total = shards[0].n;
    const struct json_value *settings0 = json_member(shards[0].doc, "settings");
    const char *version0 = json_member_string(shards[0].doc, "mdat_version");
    char *seen = calloc((size_t)total + 1, 1);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const struct grade_shard *sh = &shards[i];
        const char *diff = grade_json_first_difference(settings0, json_member(sh->doc, "settings"));
        if (strcmp(json_member_string(sh->doc, "mdat_version"), version0) != 0)
            diff = "mdat_version";
        if (diff) {
            snprintf(err, errlen, "%s and %s were graded with different settings (%s differs)", paths[0], paths[i],
                     diff);
            ok = false;
        } else if (sh->n != total) {
            snprintf(err, errlen, "%s is shard %d of %d, but %s is of %d", paths[i], sh->k, sh->n, paths[0], total);
            ok = false;
        } else if (seen[sh->k]) {
            snprintf(err, errlen, "shard %d of %d is given twice (%s)", sh->k, total, paths[i]);
            ok = false;
        } else {
            seen[sh->k] = 1;
            ok = check_units(sh, paths[i], err, errlen);
        }
    }
    if (ok) {
        char missing[256] = "";
        int n_missing = 0;
        for (int k = 1; k <= total; k++) {
            if (seen[k])
                continue;
            size_t used = strlen(missing);
            if (used + 16 < sizeof missing)
                snprintf(missing + used, sizeof missing - used, "%s%d", n_missing ? ", " : "", k);
            n_missing++;
        }
        if (n_missing) {
            snprintf(err, errlen, "missing shard%s %s of %d", n_missing == 1 ? "" : "s", missing, total);
            ok = false;
        }
    }
    free(seen);
    return ok;
}
