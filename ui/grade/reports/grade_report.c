/* grade_report: the grading reports: CSV, JSON, a self-contained HTML
 * table, and the summary on the terminal. Everything here is a function
 * of the settings and the results, in submission order, so that a merged
 * run writes the same bytes as an unsharded one (times apart). */
#include "ui/grade/reports/grade_report.h"
#include "ui/grade/model/grade_json.h"
#include "ui/grade/reports/grade_evidence.h"
#include "ui/grade/reports/grade_links.h"
#include "supervisor/explore/explore.h"

#include "ui/text/escape.h"
#include "supervisor/trace/safe_file.h"
#include "ui/text/xml_text.h"
#include "ui/text/json_writer.h"
#include "ui/text/text_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void submission_name(const struct grade_report *r, int i, char *out, size_t len)
{
    grade_submission_name(r->settings->submissions[i], i, r->settings->n_submissions, out, len);
}

static void output_dir(const struct grade_report *r, int i, char *out, size_t len)
{
    char name[256];
    submission_name(r, i, name, sizeof name);
    snprintf(out, len, "%s/%s", r->settings->out_dir, name);
}

/* ---------- CSV ---------- */

static void csv_u64(FILE *f, uint64_t v)
{
    fprintf(f, "%" PRIu64, v);
}

bool grade_write_csv(const char *path, const struct grade_report *r, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    fputs("index,submission,name,verdict,failing,schedules,first_execution,seed,failure_kind,location,details,"
          "replay,output_dir,build_output,seconds",
          f);
    /* --lincheck: schedules and failing count scenarios; these say more. */
    fputs(r->settings->lincheck_spec ? ",scenarios_proved,interleavings,failing_scenario\n" : "\n", f);
    for (int i = 0; i < r->settings->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        const struct grade_failure *ff = &g->first_failure;
        char name[256], dir[PATH_MAX + 300], replay[PATH_MAX + 64];
        submission_name(r, i, name, sizeof name);
        output_dir(r, i, dir, sizeof dir);
        fprintf(f, "%d,", i + 1);
        csv_write_field(f, r->settings->submissions[i]);
        fputc(',', f);
        csv_write_field(f, name);
        fprintf(f, ",%s,", grade_verdict_name(g->verdict));
        csv_u64(f, g->failing);
        fputc(',', f);
        csv_u64(f, g->schedules_run);
        fputc(',', f);
        if (g->has_failure) {
            grade_replay_command(ff, replay, sizeof replay);
            csv_u64(f, ff->execution);
            fputc(',', f);
            csv_u64(f, r->settings->seed);
            fprintf(f, ",%s,", failure_kind_name(ff->kind));
            csv_write_field(f, ff->location);
        } else {
            replay[0] = '\0';
            fputs(",,,", f);
        }
        fputc(',', f);
        csv_write_field(f, g->details);
        fputc(',', f);
        csv_write_field(f, replay);
        fputc(',', f);
        csv_write_field(f, dir);
        fputc(',', f);
        csv_write_field(f, g->build_output);
        fputc(',', f);
        if (!r->no_times)
            fprintf(f, "%.3f", g->seconds);
        if (r->settings->lincheck_spec) {
            fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", g->lincheck.proved, g->lincheck.interleavings);
            csv_write_field(f, g->lincheck.scenario);
        }
        fputc('\n', f);
    }
    return safe_file_commit(&sf, err, errlen);
}

/* ---------- JSON ---------- */

static void json_time(struct json_writer *w, const char *key, double seconds, bool no_times)
{
    if (no_times)
        json_null(w, key);
    else
        json_double(w, key, seconds);
}

bool grade_write_json(const char *path, const struct grade_report *r, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    struct json_writer w = {.f = f};
    const struct grade_settings *s = r->settings;
    json_begin_object(&w, NULL);
    json_string(&w, "format", "mdat-grade-report");
    json_int(&w, "format_version", 1);
    json_string(&w, "mdat_version", MDAT_VERSION);
    json_bool(&w, "complete", !r->incomplete);
    grade_json_settings(&w, s);
    uint64_t counts[VERDICT_COUNT] = {0};
    double total = 0;
    json_begin_array(&w, "submissions");
    for (int i = 0; i < s->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        char name[256], dir[PATH_MAX + 300];
        submission_name(r, i, name, sizeof name);
        output_dir(r, i, dir, sizeof dir);
        counts[g->verdict]++;
        total += g->seconds;
        json_begin_object(&w, NULL);
        json_int(&w, "index", i + 1);
        json_string(&w, "submission", s->submissions[i]);
        json_string(&w, "name", name);
        json_string(&w, "output_dir", dir);
        json_string(&w, "verdict", grade_verdict_name(g->verdict));
        json_string(&w, "verdict_text", grade_verdict_text(g->verdict));
        json_string(&w, "details", g->details);
        json_uint(&w, "schedules", g->schedules_run);
        json_uint(&w, "failing", g->failing);
        grade_json_kind_counts(&w, "failing_by_kind", g->failing_by_kind);
        json_uint(&w, "raced", g->raced);
        json_uint(&w, "output_accepted", g->output_accepted);
        if (g->has_failure)
            grade_json_failure(&w, "first_failure", &g->first_failure, s->seed);
        else
            json_null(&w, "first_failure");
        json_string(&w, "build_output", g->build_output);
        json_time(&w, "seconds", g->seconds, r->no_times);
        if (s->outcomes)
            grade_json_outcomes(&w, &g->outcomes, g->outcomes_left_out);
        if (s->lincheck_spec)
            grade_json_lincheck(&w, &g->lincheck);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_begin_object(&w, "verdicts");
    for (int v = 0; v < VERDICT_COUNT; v++)
        json_uint(&w, grade_verdict_name((enum grade_verdict)v), counts[v]);
    json_end_object(&w);
    json_time(&w, "seconds_total", total, r->no_times);
    json_end_object(&w);
    return safe_file_commit(&sf, err, errlen);
}

/* ---------- HTML ---------- */

static const char HTML_STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
    "h1{font-size:1.4em}\n"
    "p.settings{color:#555}\n"
    "table{border-collapse:collapse;width:100%}\n"
    "th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0}\n"
    "td.num{text-align:right;white-space:nowrap}\n"
    "td.verdict{font-weight:bold;white-space:nowrap}\n"
    "tr.v-ok td.verdict,tr.v-linearizable td.verdict{color:#1a7f37}\n"
    "tr.v-build-failed td.verdict,tr.v-mdat-error td.verdict,tr.v-not-graded td.verdict{color:#8250df}\n"
    "tr.v-hang td.verdict{color:#9a6700}\n"
    "tr.fail td.verdict{color:#cf222e}\n"
    "code,pre{font-family:ui-monospace,monospace;font-size:.9em}\n"
    "pre{white-space:pre-wrap;margin:.3em 0}\n"
    "table.outcomes{width:auto;margin:.2em 0 .2em 2em}\n"
    "table.outcomes td{border:none;padding:.1em .6em}\n"
    "p.files{margin:.3em 0 0}\n"
    /* On paper a link shows where it leads: each row stands alone. */
    "@media print{body{margin:0}details{display:block}p.files a::after{content:\" (\" attr(href) \")\"}}\n";

static void html_cell(FILE *f, const char *cls, const char *text)
{
    fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    xml_escaped(f, text);
    fputs("</td>", f);
}

/* The first failure's files, linked relative to the report: its timeline
 * page, trace, schedule and output. */
static void html_failure_files(FILE *f, const char *report_path, const struct grade_failure *ff)
{
    struct grade_link links[GRADE_MAX_LINKS];
    int n = grade_failure_links(report_path, ff, links);
    if (n == 0)
        return;
    fputs("<p class=\"files\">", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? " \xc2\xb7 " : "", f);
        fputs("<a href=\"", f);
        xml_escaped(f, links[i].href);
        fprintf(f, "\">%s</a>", links[i].what);
    }
    fputs("</p>", f);
}

/* A checker failure's evidence, as the text report has it: the first
 * lines of the output it rejected. */
static void html_evidence(FILE *f, const struct grade_failure *ff)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    grade_evidence_output(mem, "", ff);
    fclose(mem);
    if (text && text[0]) {
        fputs("<pre class=\"evidence\">", f);
        xml_escaped(f, text);
        fputs("</pre>", f);
    }
    free(text);
}

/* A submission's outcome table, in a row of its own below it. */
static void html_outcomes(FILE *f, const struct grade_result *g)
{
    uint64_t total = outcome_table_total(&g->outcomes) + g->outcomes_left_out;
    fputs("<tr class=\"outcomes\"><td></td><td colspan=\"7\"><table class=\"outcomes\">\n"
          "<tr><th>count</th><th>share</th><th>outcome</th><th>schedule</th></tr>\n", f);
    for (size_t i = 0; i < g->outcomes.n; i++) {
        const struct outcome *o = &g->outcomes.at[i];
        char text[1024];
        outcome_describe(&o->key, text, sizeof text);
        fprintf(f, "<tr><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%.1f%%</td>", o->count,
                total ? 100.0 * (double)o->count / (double)total : 0);
        html_cell(f, NULL, text);
        fputs("<td><code>", f);
        xml_escaped(f, o->schedule_file);
        fputs("</code></td></tr>\n", f);
    }
    if (g->outcomes_left_out)
        fprintf(f, "<tr><td class=\"num\">%" PRIu64 "</td><td></td><td>other outcomes (more than %d)</td><td></td></tr>\n",
                g->outcomes_left_out, GRADE_MAX_OUTCOMES);
    fputs("</table></td></tr>\n", f);
}

bool grade_write_html(const char *path, const struct grade_report *r, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    const struct grade_settings *s = r->settings;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>mdat grade report</title>\n<style>\n",
          f);
    fputs(HTML_STYLE, f);
    fputs("</style>\n</head>\n<body>\n<h1>mdat grade report</h1>\n", f);
    if (r->incomplete)
        fputs("<p class=\"incomplete\"><strong>Incomplete:</strong> the grading was stopped before every "
              "submission was graded (mdat grade --resume completes it).</p>\n", f);
    fputs("<p class=\"settings\">", f);
    char line[1024];
    snprintf(line, sizeof line, "%d submission%s; strategy %s", s->n_submissions, s->n_submissions == 1 ? "" : "s",
             s->strategy);
    xml_escaped(f, line);
    char settings[96];
    strategy_settings_text(s->strategy, s->depth, settings, sizeof settings);
    xml_escaped(f, settings);
    fprintf(f, ", seed %" PRIu64 ", %" PRIu64 " schedules each, timeout %g s per execution", s->seed, s->schedules,
            s->timeout_sec);
    if (s->check_cmd) {
        fputs(", checker <code>", f);
        xml_escaped(f, s->check_cmd);
        fputs("</code>", f);
    }
    if (s->build_cmd) {
        fputs(", build <code>", f);
        xml_escaped(f, s->build_cmd);
        fputs("</code>", f);
    }
    fputs("</p>\n<table>\n<thead><tr><th>#</th><th>submission</th><th>verdict</th><th>failing</th>"
          "<th>first failure</th><th>details</th><th>replay</th><th>seconds</th></tr></thead>\n<tbody>\n",
          f);
    for (int i = 0; i < s->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        const struct grade_failure *ff = &g->first_failure;
        bool failed = !grade_verdict_passed(g->verdict) && g->verdict != VERDICT_HANG && g->verdict != VERDICT_BUILD_FAILED &&
                      g->verdict != VERDICT_MDAT_ERROR && g->verdict != VERDICT_NOT_GRADED;
        fprintf(f, "<tr class=\"submission v-%s%s\"><td class=\"num\">%d</td>", grade_verdict_name(g->verdict),
                failed ? " fail" : "", i + 1);
        html_cell(f, NULL, s->submissions[i]);
        html_cell(f, "verdict", grade_verdict_text(g->verdict));
        fprintf(f, "<td class=\"num\">%" PRIu64 " / %" PRIu64 "</td>", g->failing, g->schedules_run);
        if (g->has_failure) {
            snprintf(line, sizeof line, "%s %" PRIu64 " (seed %" PRIu64 ")%s%s",
                     g->lincheck.ran ? "scenario" : "execution", ff->execution, s->seed,
                     ff->location[0] ? " at " : "", ff->location);
            html_cell(f, NULL, line);
        } else {
            html_cell(f, NULL, "");
        }
        fputs("<td>", f);
        xml_escaped(f, g->details);
        if (g->lincheck.table[0]) {
            fputs("<pre class=\"evidence\">", f);
            xml_escaped(f, g->lincheck.table);
            fputs("</pre>", f);
        } else if (g->has_failure) {
            html_evidence(f, ff);
        }
        if (g->build_output[0]) {
            fputs("<details><summary>build output</summary><pre>", f);
            xml_escaped(f, g->build_output);
            fputs("</pre></details>", f);
        }
        fputs("</td><td>", f);
        if (g->has_failure) {
            char replay[PATH_MAX + 64];
            grade_replay_command(ff, replay, sizeof replay);
            fputs("<code>", f);
            xml_escaped(f, replay);
            fputs("</code>", f);
            html_failure_files(f, path, ff);
        }
        fputs("</td>", f);
        if (r->no_times)
            fputs("<td class=\"num\"></td>", f);
        else
            fprintf(f, "<td class=\"num\">%.1f</td>", g->seconds);
        fputs("</tr>\n", f);
        if (s->outcomes && (g->outcomes.n > 0 || g->outcomes_left_out > 0))
            html_outcomes(f, g);
    }
    fputs("</tbody>\n</table>\n</body>\n</html>\n", f);
    return safe_file_commit(&sf, err, errlen);
}

/* ---------- terminal ---------- */

enum { SUMMARY_OUTCOMES = 3 };

/* --outcomes: each submission's most frequent outcomes, a few lines each. */
static void print_outcomes(FILE *out, const struct grade_report *r)
{
    const struct grade_settings *s = r->settings;
    fputs("\n  outcomes (most frequent first; every one in the JSON and HTML reports):\n", out);
    for (int i = 0; i < s->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        char name[256];
        submission_name(r, i, name, sizeof name);
        uint64_t total = outcome_table_total(&g->outcomes) + g->outcomes_left_out;
        size_t n = g->outcomes.n;
        fprintf(out, "  %s: %zu outcome%s%s\n", name, n, n == 1 ? "" : "s", g->outcomes_left_out ? " and more" : "");
        for (size_t k = 0; k < n && k < SUMMARY_OUTCOMES; k++) {
            const struct outcome *o = &g->outcomes.at[k];
            char text[1024];
            outcome_describe(&o->key, text, sizeof text);
            fprintf(out, "    %8" PRIu64 " %6.1f%%  %s\n", o->count, total ? 100.0 * (double)o->count / (double)total : 0,
                    text);
        }
        if (n > SUMMARY_OUTCOMES)
            fprintf(out, "    ... and %zu more\n", n - SUMMARY_OUTCOMES);
    }
}

/* Lines of text, each after indent. */
static void print_indented(FILE *out, const char *indent, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "%s%.*s\n", len ? indent : "", len, p);
        p = nl ? nl + 1 : p + len;
    }
}

void grade_print_summary(FILE *out, const struct grade_report *r)
{
    const struct grade_settings *s = r->settings;
    struct text_table *t = text_table_new(6);
    text_table_set_width(t, 1, 0, 32);
    text_table_set_width(t, 4, 0, 48);
    const char *head[] = {"#", "submission", "verdict", "failing", "first failure", r->no_times ? NULL : "seconds"};
    text_table_add_row(t, head);
    for (int i = 0; i < s->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        char idx[16], failing[64], first[256] = "", secs[32] = "";
        snprintf(idx, sizeof idx, "%d", i + 1);
        snprintf(failing, sizeof failing, "%" PRIu64 "/%" PRIu64, g->failing, g->schedules_run);
        if (g->has_failure)
            snprintf(first, sizeof first, "%s %" PRIu64 "%s%s", g->lincheck.ran ? "scenario" : "execution",
                     g->first_failure.execution,
                     g->first_failure.location[0] ? " at " : "", g->first_failure.location);
        if (!r->no_times)
            snprintf(secs, sizeof secs, "%.1f", g->seconds);
        char name[256];
        submission_name(r, i, name, sizeof name);
        const char *row[] = {idx, name, grade_verdict_text(g->verdict), failing, first, secs};
        text_table_add_row(t, row);
    }
    text_table_print(t, out, "  ");
    text_table_free(t);
    if (s->outcomes)
        print_outcomes(out, r);
    for (int i = 0; i < s->n_submissions; i++) {
        const struct grade_result *g = &r->results[i];
        if (grade_verdict_passed(g->verdict))
            continue;
        char name[256];
        submission_name(r, i, name, sizeof name);
        fprintf(out, "\n  %s (%s): %s\n", name, s->submissions[i], grade_verdict_text(g->verdict));
        if (g->details[0])
            fprintf(out, "    %s\n", g->details);
        if (g->has_failure) {
            char replay[PATH_MAX + 64];
            grade_replay_command(&g->first_failure, replay, sizeof replay);
            fprintf(out, "    replay: %s\n", replay);
            if (g->lincheck.table[0])
                print_indented(out, "    ", g->lincheck.table);
            else
                grade_evidence_output(out, "    ", &g->first_failure);
        }
        if (g->build_output[0]) {
            fputs("    build output:\n", out);
            const char *p = g->build_output;
            for (int n = 0; *p && n < 5; n++) {
                const char *nl = strchr(p, '\n');
                int len = nl ? (int)(nl - p) : (int)strlen(p);
                fprintf(out, "      %.*s\n", len, p);
                p = nl ? nl + 1 : p + len;
            }
        }
    }
}
