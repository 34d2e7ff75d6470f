/* grade_journal: the append-only journal of a grading, so that no decided
 * verdict is ever lost. OUT/journal.jsonl (journal-shard-K-of-N.jsonl for
 * a shard) is JSON Lines: a header with the settings, then one line per
 * unit, appended and synced to disk as soon as the unit is decided. The
 * reports are made from it at the end or on a signal, and `mdat grade
 * --resume` reads it back to grade only what is missing. A last line cut
 * by a kill is not a unit: it is dropped and that unit graded again. */
#include "ui/grade/grade_journal.h"
#include "ui/grade/model/grade_json.h"

#include "supervisor/trace/safe_file.h"
#include "ui/text/json_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char JOURNAL_FORMAT[] = "mdat-grade-journal";

void grade_journal_path(const char *out_dir, int shard_k, int shard_n, char *out, size_t len)
{
    if (shard_n)
        snprintf(out, len, "%s/journal-shard-%d-of-%d.jsonl", out_dir, shard_k, shard_n);
    else
        snprintf(out, len, "%s/journal.jsonl", out_dir);
}

static void write_header(FILE *f, const struct grade_settings *s, int shard_k, int shard_n)
{
    struct json_writer w = {.f = f, .compact = true};
    json_begin_object(&w, NULL);
    json_string(&w, "format", JOURNAL_FORMAT);
    json_int(&w, "format_version", 1);
    json_string(&w, "mdat_version", MDAT_VERSION);
    grade_json_settings(&w, s);
    json_int(&w, "shard", shard_k);
    json_int(&w, "shards", shard_n);
    json_end_object(&w);
}

/* The header this grading would write, parsed (to compare with a journal's). */
static struct json_value *expected_header(const struct grade_settings *s, int shard_k, int shard_n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    write_header(f, s, shard_k, shard_n);
    fclose(f);
    char err[200];
    struct json_value *v = json_parse(text, len, err, sizeof err);
    free(text);
    return v;
}

static char *read_whole(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "nothing to resume: cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 65536 > cap) {
            cap = cap * 2 + 65536;
            text = realloc(text, cap + 1);
        }
        size_t n = fread(text + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "cannot read %s", path);
        free(text);
        return NULL;
    }
    text[*len] = '\0';
    return text;
}

/* Checks a journal's header against this grading's: the same settings,
 * the same shard. */
static bool header_matches(const char *path, const char *line, size_t len, const struct grade_settings *s,
                           int shard_k, int shard_n, char *err, size_t errlen)
{
    char why[300];
    struct json_value *have = json_parse(line, len, why, sizeof why);
    struct json_value *want = expected_header(s, shard_k, shard_n);
    bool ok = false;
    if (!have || strcmp(json_member_string(have, "format"), JOURNAL_FORMAT) != 0) {
        snprintf(err, errlen, "%s is not the journal of an mdat grading", path);
    } else {
        const struct json_value *hs = json_member(have, "settings"), *ws = json_member(want, "settings");
        const char *diff = hs ? grade_json_first_difference(ws, hs) : "settings";
        if (!diff && !json_equal(json_member(have, "shard"), json_member(want, "shard")))
            diff = "--shard";
        if (!diff && !json_equal(json_member(have, "shards"), json_member(want, "shards")))
            diff = "--shard";
        if (!diff && strcmp(json_member_string(have, "mdat_version"), MDAT_VERSION) != 0)
            diff = "mdat_version";
        if (diff)
            snprintf(err, errlen, "cannot resume: %s was begun with other settings (%s differs); run it with the "
                     "same options and submissions", path, diff);
        ok = diff == NULL;
    }
    json_value_free(have);
    json_value_free(want);
    return ok;
}

/* Reads the units of the journal at path (already checked to exist) into
 * units; returns the length of its complete lines (what is kept). */
static bool read_journal(const char *path, const struct grade_settings *s, int shard_k, int shard_n,
                         struct grade_unit *units, size_t max_units, size_t *n_units, size_t *kept, char *err,
                         size_t errlen)
{
    size_t len;
    char *text = read_whole(path, &len, err, errlen);
    if (!text)
        return false;
    char *nl = memchr(text, '\n', len);
    if (!nl || !header_matches(path, text, (size_t)(nl - text), s, shard_k, shard_n, err, errlen)) {
        if (!nl)
            snprintf(err, errlen, "%s is not the journal of an mdat grading", path);
        free(text);
        return false;
    }
    *n_units = 0;
    size_t pos = (size_t)(nl - text) + 1;
    int line = 2;
    bool ok = true;
    while (ok && pos < len) {
        char *end = memchr(text + pos, '\n', len - pos);
        if (!end)
            break;      /* cut by a kill while it was written: not decided */
        char why[300];
        struct json_value *v = json_parse(text + pos, (size_t)(end - text - pos), why, sizeof why);
        struct grade_unit u = {0};
        if (!v || !grade_read_unit(v, s->n_submissions, &u)) {
            grade_unit_free(&u);
            snprintf(err, errlen, "%s: line %d is not a graded unit", path, line);
            ok = false;
        } else {
            /* A unit decided twice (never written so, but harmless): the last counts. */
            size_t i = 0;
            while (i < *n_units && (units[i].submission != u.submission || units[i].first != u.first))
                i++;
            if (i < max_units) {
                if (i < *n_units)
                    grade_unit_free(&units[i]);
                units[i] = u;
                if (i == *n_units)
                    (*n_units)++;
            } else {
                grade_unit_free(&u);
            }
        }
        json_value_free(v);
        pos = (size_t)(end - text) + 1;
        line++;
    }
    *kept = pos;
    free(text);
    return ok;
}

bool grade_journal_start(struct grade_journal *j, const struct grade_settings *s, int shard_k, int shard_n,
                         bool resume, struct grade_unit *units, size_t max_units, size_t *n_units, char *err,
                         size_t errlen)
{
    memset(j, 0, sizeof *j);
    j->seed = s->seed;
    grade_journal_path(s->out_dir, shard_k, shard_n, j->path, sizeof j->path);
    *n_units = 0;
    if (resume) {
        size_t kept = 0;
        if (!read_journal(j->path, s, shard_k, shard_n, units, max_units, n_units, &kept, err, errlen))
            return false;
        if (truncate(j->path, (off_t)kept) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", j->path, strerror(errno));
            return false;
        }
    } else {
        struct safe_file sf;
        FILE *f = safe_file_open(&sf, j->path, err, errlen);
        if (!f)
            return false;
        write_header(f, s, shard_k, shard_n);
        if (!safe_file_commit(&sf, err, errlen))
            return false;
    }
    j->f = fopen(j->path, "a");
    if (!j->f) {
        snprintf(err, errlen, "cannot write %s: %s", j->path, strerror(errno));
        return false;
    }
    return true;
}

bool grade_journal_append(struct grade_journal *j, const struct grade_unit *u, char *err, size_t errlen)
{
    struct json_writer w = {.f = j->f, .compact = true};
    grade_json_unit(&w, u, j->seed);
    if (fflush(j->f) != 0 || ferror(j->f) || fdatasync(fileno(j->f)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", j->path, strerror(errno));
        return false;
    }
    return true;
}

void grade_journal_close(struct grade_journal *j)
{
    if (j->f)
        fclose(j->f);
    j->f = NULL;
}
