/* gradescope: results.json of Gradescope-style autograders, one per
 * submission: the score from the rubric (an item's points when no schedule
 * failed with its kinds, rubric.h), one test per item named for students,
 * and the result as text.
 * docs/json.md describes the fields. */
#include "ui/grade/reports/gradescope.h"
#include "ui/grade/reports/grade_result_text.h"

#include "supervisor/explore/explore.h"
#include "ui/grade/model/grade_json.h"
#include "supervisor/trace/safe_file.h"
#include "ui/text/json_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Executions that failed with any of kinds: races counted wherever found
 * (with --races fail-at-end an execution may race and fail otherwise). */
static uint64_t failing_with(const struct grade_result *g, uint32_t kinds)
{
    uint64_t n = 0;
    for (int k = FAIL_NONE + 1; k < FAIL_KIND_COUNT; k++)
        if (kinds & (1u << k))
            n += k == FAIL_RACE && g->raced > g->failing_by_kind[k] ? g->raced : g->failing_by_kind[k];
    return n;
}

/* Whether the submission failed the item, and why, in one paragraph. */
static bool item_failed(const struct grade_report *r, int i, const struct rubric_item *item, char *why, size_t len)
{
    const struct grade_result *g = &r->results[i];
    const char *name = rubric_item_name(item);
    if (g->verdict == VERDICT_BUILD_FAILED || g->verdict == VERDICT_MDAT_ERROR || g->verdict == VERDICT_NOT_GRADED) {
        snprintf(why, len, "not graded: %s: %s", grade_verdict_text(g->verdict), g->details);
        return true;
    }
    if ((item->kinds & RUBRIC_LINEARIZABLE) && !r->settings->lincheck_spec) {
        snprintf(why, len, "not graded: the linearizable item is mdat grade --lincheck's");
        return true;
    }
    uint64_t failing = failing_with(g, item->kinds);
    /* With --lincheck a scenario counts as a schedule. */
    const char *runs = g->lincheck.ran ? "scenarios" : "schedules", *run = g->lincheck.ran ? "scenario" : "execution";
    /* Stopped at its wall clock: a hang, though no one schedule said so. */
    if ((item->kinds & (1u << FAIL_HANG)) && g->verdict == VERDICT_HANG && failing == 0) {
        snprintf(why, len, "hang: %s", g->details);
        return true;
    }
    /* The output's point is for output the checker saw and accepted: a
     * program that never got to print (it never ended, it crashed first)
     * has not shown it can. */
    if ((item->kinds & (1u << FAIL_CHECKER)) && failing == 0 && g->output_accepted == 0) {
        if (g->lincheck.ran)
            snprintf(why, len, "%s: no scenario passed (in %" PRIu64 " scenarios: %s)", name, g->schedules_run,
                     g->details[0] ? g->details : grade_verdict_text(g->verdict));
        else
            snprintf(why, len, "%s: no schedule's output reached the checker and was accepted (in %" PRIu64
                     " schedules: %s)", name, g->schedules_run,
                     g->details[0] ? g->details : grade_verdict_text(g->verdict));
        return true;
    }
    if (failing == 0) {
        snprintf(why, len, "%s: passed in %" PRIu64 " %s", name, g->schedules_run, runs);
        return false;
    }
    int k = snprintf(why, len, "%s: failed in %" PRIu64 " of %" PRIu64 " %s", name, failing, g->schedules_run, runs);
    const struct grade_failure *ff = &g->first_failure;
    if (g->has_failure && (item->kinds & (1u << ff->kind)) && k > 0 && (size_t)k < len) {
        char replay[PATH_MAX + 64];
        grade_replay_command(ff, replay, sizeof replay);
        snprintf(why + k, len - (size_t)k, "; first in %s %" PRIu64 "%s%s: %s\nreplay: %s", run, ff->execution,
                 ff->location[0] ? " at " : "", ff->location, ff->message, replay);
    }
    return true;
}

static void write_tests(struct json_writer *w, const struct grade_report *r, int i, const struct rubric *rubric)
{
    json_begin_array(w, "tests");
    for (int k = 0; k < rubric->n; k++) {
        const struct rubric_item *item = &rubric->items[k];
        char why[PATH_MAX + 2800];
        bool failed = item_failed(r, i, item, why, sizeof why);
        json_begin_object(w, NULL);
        json_string(w, "name", rubric_item_name(item));
        json_double(w, "score", failed ? 0 : item->points);
        json_double(w, "max_score", item->points);
        json_string(w, "status", failed ? "failed" : "passed");
        json_string(w, "output", why);
        json_end_object(w);
    }
    json_end_array(w);
}

static bool write_results(const char *path, const struct grade_report *r, int i, const struct rubric *rubric,
                          char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    const struct grade_result *g = &r->results[i];
    char *text = grade_result_text(r, i, false);
    double score = 0;
    for (int k = 0; k < rubric->n; k++) {
        char why[PATH_MAX + 2800];
        if (!item_failed(r, i, &rubric->items[k], why, sizeof why))
            score += rubric->items[k].points;
    }
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_double(&w, "score", score);
    json_string(&w, "output", text);
    json_string(&w, "output_format", "text");
    if (!r->no_times)
        json_uint(&w, "execution_time", (uint64_t)(g->seconds + 0.5));
    write_tests(&w, r, i, rubric);
    json_begin_object(&w, "extra_data");
    json_string(&w, "verdict", grade_verdict_name(g->verdict));
    json_uint(&w, "schedules", g->schedules_run);
    json_uint(&w, "failing", g->failing);
    grade_json_kind_counts(&w, "failing_by_kind", g->failing_by_kind);
    json_uint(&w, "raced", g->raced);
    json_uint(&w, "output_accepted", g->output_accepted);
    json_end_object(&w);
    json_end_object(&w);
    fputc('\n', f);
    free(text);
    return safe_file_commit(&sf, err, errlen);
}

bool grade_write_gradescope(const char *dir, const struct grade_report *r, const struct rubric *rubric, char *err,
                            size_t errlen)
{
    const struct grade_settings *s = r->settings;
    for (int i = 0; i < s->n_submissions; i++) {
        char sub_dir[PATH_MAX], path[PATH_MAX + 32], name[256];
        if (s->n_submissions == 1) {
            snprintf(sub_dir, sizeof sub_dir, "%s", dir);
        } else {
            grade_submission_name(s->submissions[i], i, s->n_submissions, name, sizeof name);
            snprintf(sub_dir, sizeof sub_dir, "%s/%s", dir, name);
            if (!make_directories(sub_dir)) {
                snprintf(err, errlen, "cannot create %s: %s", sub_dir, strerror(errno));
                return false;
            }
        }
        snprintf(path, sizeof path, "%s/results.json", sub_dir);
        if (!write_results(path, r, i, rubric, err, errlen))
            return false;
    }
    return true;
}
