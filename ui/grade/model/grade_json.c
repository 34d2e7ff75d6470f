/* grade_json: the JSON of grading's settings, units and failures (see
 * grade_json.h): written into the reports, the shard reports and the
 * journal, and units read back from the last two. */
#include "ui/grade/model/grade_json.h"

#include "ui/render/report.h"
#include "ui/text/json_reader.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void grade_json_settings(struct json_writer *w, const struct grade_settings *s)
{
    json_begin_object(w, "settings");
    json_string_array(w, "submissions", s->submissions, s->n_submissions);
    json_uint(w, "schedules", s->schedules);
    json_uint(w, "seed", s->seed);
    json_string(w, "strategy", s->strategy);
    json_int(w, "depth", s->depth);
    json_uint(w, "max_steps", s->max_steps);
    json_double(w, "timeout_seconds", s->timeout_sec);
    json_string_or_null(w, "check", s->check_cmd);
    json_bool(w, "fail_on_exit", s->fail_on_exit);
    json_begin_object(w, "limits");
    json_uint(w, "cpu_seconds", s->limits.cpu_sec);
    json_uint(w, "memory_bytes", s->limits.address_space);
    json_uint(w, "procs", s->limits.nproc);
    json_uint(w, "file_size_bytes", s->limits.file_size);
    json_end_object(w);
    json_double(w, "submission_timeout_seconds", s->unit_timeout_sec);
    json_string_or_null(w, "build", s->build_cmd);
    json_string_or_null(w, "exe", s->exe_name);
    json_double(w, "build_timeout_seconds", s->build_timeout_sec);
    json_string(w, "out_dir", s->out_dir);
    json_bool(w, "sandbox", s->sandbox);
    json_uint(w, "max_disk_bytes", s->max_disk);
    json_bool(w, "outcomes", s->outcomes);
    json_string_array(w, "watches", s->watches, s->n_watches);
    /* Only with --lincheck: the files of a grading without it stay as they were. */
    if (s->lincheck_spec) {
        json_string(w, "lincheck", s->lincheck_spec);
        json_uint(w, "lincheck_scenarios", s->lincheck_scenarios);
        json_uint(w, "lincheck_init", s->lincheck_init);
    }
    json_end_object(w);
}

void grade_json_lincheck(struct json_writer *w, const struct grade_lincheck *lc)
{
    json_begin_object(w, "lincheck");
    json_uint(w, "proved", lc->proved);
    json_uint(w, "interleavings", lc->interleavings);
    json_string(w, "exploration", lc->dpor ? "dpor" : "sampled");
    json_string(w, "failing_scenario", lc->scenario);
    json_string(w, "table", lc->table);
    json_end_object(w);
}

void grade_json_outcomes(struct json_writer *w, const struct outcome_table *t, uint64_t left_out)
{
    uint64_t total = outcome_table_total(t) + left_out;
    json_begin_array(w, "outcomes");
    for (size_t i = 0; i < t->n; i++)
        report_json_outcome(w, &t->at[i], total);
    json_end_array(w);
    json_uint(w, "outcomes_left_out", left_out);
}

void grade_json_kind_counts(struct json_writer *w, const char *key, const uint64_t counts[FAIL_KIND_COUNT])
{
    json_begin_object(w, key);
    for (int k = FAIL_NONE + 1; k < FAIL_KIND_COUNT; k++)
        json_uint(w, failure_kind_name((enum failure_kind)k), counts[k]);
    json_end_object(w);
}

void grade_json_failure(struct json_writer *w, const char *key, const struct grade_failure *f, uint64_t seed)
{
    char replay[PATH_MAX + 64];
    grade_replay_command(f, replay, sizeof replay);
    json_begin_object(w, key);
    json_uint(w, "execution", f->execution);
    json_uint(w, "seed", seed);
    json_string(w, "kind", failure_kind_name(f->kind));
    json_string(w, "message", f->message);
    json_string(w, "location", f->location);
    json_string(w, "function", f->function);
    json_string(w, "schedule_file", f->schedule_file);
    json_string(w, "replay", replay);
    json_bool(w, "reproduced", f->reproduced);
    json_string(w, "program_stderr", f->program_stderr);
    json_end_object(w);
}

void grade_json_unit(struct json_writer *w, const struct grade_unit *u, uint64_t seed)
{
    json_begin_object(w, NULL);
    json_int(w, "submission", u->submission);
    json_uint(w, "first", u->first);
    json_uint(w, "end", u->end);
    json_string(w, "status", grade_unit_status_name(u->status));
    json_string(w, "message", u->message);
    json_string(w, "build_output", u->build_output);
    json_uint(w, "schedules_run", u->schedules_run);
    json_uint(w, "failing", u->failing);
    grade_json_kind_counts(w, "failing_by_kind", u->failing_by_kind);
    json_uint(w, "raced", u->raced);
    json_uint(w, "output_accepted", u->output_accepted);
    if (u->has_failure)
        grade_json_failure(w, "first_failure", &u->first_failure, seed);
    else
        json_null(w, "first_failure");
    json_double(w, "seconds", u->seconds);
    if (u->outcomes.n > 0 || u->outcomes_left_out > 0)
        grade_json_outcomes(w, &u->outcomes, u->outcomes_left_out);
    if (u->lincheck.ran)
        grade_json_lincheck(w, &u->lincheck);
    json_end_object(w);
}

/* ---------- reading ---------- */

static void copy_string(char *dst, size_t len, const struct json_value *v, const char *key)
{
    snprintf(dst, len, "%s", json_member_string(v, key));
}

static bool read_failure(const struct json_value *v, struct grade_failure *f)
{
    f->kind = failure_kind_from_name(json_member_string(v, "kind"));
    f->reproduced = json_member_true(v, "reproduced");
    copy_string(f->message, sizeof f->message, v, "message");
    copy_string(f->location, sizeof f->location, v, "location");
    copy_string(f->function, sizeof f->function, v, "function");
    copy_string(f->schedule_file, sizeof f->schedule_file, v, "schedule_file");
    copy_string(f->program_stderr, sizeof f->program_stderr, v, "program_stderr");
    return json_member_u64(v, "execution", &f->execution) && f->kind != FAIL_NONE;
}

/* Reads back one outcome of report_json_outcome. */
static bool read_outcome(const struct json_value *v, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    struct outcome_key *k = &o->key;
    k->kind = failure_kind_from_name(json_member_string(v, "failure"));
    copy_string(k->location, sizeof k->location, v, "location");
    k->exited = json_member_true(v, "exited");
    uint64_t n;
    if (k->exited && json_member_u64(v, "exit_status", &n))
        k->exit_status = (int32_t)n;
    if (json_member_u64(v, "term_signal", &n))
        k->term_signal = (int32_t)n;
    const char *incomplete = json_member_string(v, "incomplete");
    k->incomplete = strcmp(incomplete, "time-limit") == 0   ? INCOMPLETE_TIME
                    : strcmp(incomplete, "step-limit") == 0 ? INCOMPLETE_STEPS
                                                            : 0;
    const struct json_value *watches = json_member(v, "watches");
    size_t used = 0;
    for (size_t i = 0; watches && watches->type == JSON_OBJECT && i < watches->n && used < sizeof k->watches; i++) {
        if (watches->items[i].type != JSON_STRING)
            return false;
        int len = snprintf(k->watches + used, sizeof k->watches - used, "%s%s = %s", i ? "\n" : "",
                           watches->keys[i], watches->items[i].text);
        used += len > 0 ? (size_t)len : 0;
    }
    copy_string(k->stdout_sha256, sizeof k->stdout_sha256, v, "stdout_sha256");
    copy_string(o->schedule_file, sizeof o->schedule_file, v, "schedule_file");
    o->reproduced = json_member_true(v, "reproduced");
    return json_member_u64(v, "count", &o->count) && json_member_u64(v, "execution", &o->execution);
}

/* A unit's "outcomes" (absent without --outcomes). */
static bool read_outcomes(const struct json_value *v, struct grade_unit *u)
{
    const struct json_value *list = json_member(v, "outcomes");
    if (!list)
        return true;
    if (list->type != JSON_ARRAY || list->n > GRADE_MAX_OUTCOMES ||
        !json_member_u64(v, "outcomes_left_out", &u->outcomes_left_out))
        return false;
    for (size_t i = 0; i < list->n; i++) {
        struct outcome o;
        if (!read_outcome(&list->items[i], &o))
            return false;
        outcome_table_merge(&u->outcomes, &o);
    }
    return true;
}

bool grade_read_unit(const struct json_value *v, int n_submissions, struct grade_unit *u)
{
    uint64_t submission;
    if (!json_member_u64(v, "submission", &submission) || submission >= (uint64_t)n_submissions ||
        !json_member_u64(v, "first", &u->first) || !json_member_u64(v, "end", &u->end) ||
        !grade_unit_status_from_name(json_member_string(v, "status"), &u->status) ||
        !json_member_u64(v, "schedules_run", &u->schedules_run) || !json_member_u64(v, "failing", &u->failing) ||
        !json_member_double(v, "seconds", &u->seconds))
        return false;
    /* (absent from the files of mdat 0.3: none counted then) */
    if (!json_member_u64(v, "raced", &u->raced))
        u->raced = 0;
    if (!json_member_u64(v, "output_accepted", &u->output_accepted))
        u->output_accepted = 0;
    u->submission = (int)submission;
    copy_string(u->message, sizeof u->message, v, "message");
    copy_string(u->build_output, sizeof u->build_output, v, "build_output");
    const struct json_value *kinds = json_member(v, "failing_by_kind");
    for (int k = FAIL_NONE + 1; k < FAIL_KIND_COUNT; k++)
        if (!json_member_u64(kinds, failure_kind_name((enum failure_kind)k), &u->failing_by_kind[k]))
            return false;
    if (!read_outcomes(v, u))
        return false;
    const struct json_value *lc = json_member(v, "lincheck");
    if (lc && lc->type == JSON_OBJECT) {
        u->lincheck.ran = true;
        u->lincheck.dpor = strcmp(json_member_string(lc, "exploration"), "dpor") == 0;
        copy_string(u->lincheck.scenario, sizeof u->lincheck.scenario, lc, "failing_scenario");
        copy_string(u->lincheck.table, sizeof u->lincheck.table, lc, "table");
        if (!json_member_u64(lc, "proved", &u->lincheck.proved) ||
            !json_member_u64(lc, "interleavings", &u->lincheck.interleavings))
            return false;
    }
    const struct json_value *ff = json_member(v, "first_failure");
    if (ff && ff->type == JSON_OBJECT) {
        u->has_failure = true;
        return read_failure(ff, &u->first_failure);
    }
    return true;
}

/* ---------- comparing ---------- */

/* The first member of a's settings that b does not have the same. */
const char *grade_json_first_difference(const struct json_value *a, const struct json_value *b)
{
    for (size_t i = 0; i < a->n; i++) {
        const struct json_value *other = json_member(b, a->keys[i]);
        if (!other || !json_equal(&a->items[i], other))
            return a->keys[i];
    }
    return b->n != a->n ? "the set of fields" : NULL;
}
