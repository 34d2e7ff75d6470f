/* merge_runs: one run's report from the shard reports of `mdat run --shard
 * K/N` (see merge_runs.h).
 *
 * Every execution is a function of the seed and its index, whichever shard
 * runs it, so the shards' results put together are the unsharded run's:
 * the totals add up, the failure reported is the one with the lowest index
 * (with --keep-going, the lowest of each kind and place), and an outcome
 * table counts each outcome over all shards and names its lowest
 * execution. What differs from one unsharded run is only how far each
 * shard went before it stopped at its own first failure: schedules_run
 * counts every execution any shard ran. The shards are refused unless they
 * are all N of one run: the same settings and program (by its SHA-256),
 * each K once. */
#include "ui/cli/merge_runs.h"
#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/render/report.h"
#include "ui/text/json_copy.h"
#include "ui/text/json_reader.h"
#include "ui/text/json_writer.h"
#include "supervisor/trace/safe_file.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run_shard {
    const char *file;
    struct json_value *doc;
    uint64_t k, n;
};

static bool is_run_shard(const struct json_value *doc)
{
    return strcmp(json_member_string(doc, "format"), RUN_SHARD_FORMAT) == 0;
}

bool merge_runs_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        char err[PATH_MAX + 100];
        struct json_value *doc = json_parse_file(argv[i], err, sizeof err);
        bool run = doc && is_run_shard(doc);
        json_value_free(doc);
        if (run)
            return true;
    }
    return false;
}

static bool read_shard(const char *file, struct run_shard *s, char *err, size_t errlen)
{
    s->file = file;
    s->doc = json_parse_file(file, err, errlen);
    if (!s->doc)
        return false;
    uint64_t version;
    if (!is_run_shard(s->doc)) {
        snprintf(err, errlen, "%s is not a shard report of mdat run --shard (run and grading shards cannot be merged "
                 "together)", file);
        return false;
    }
    if (!json_member_u64(s->doc, "format_version", &version) || version != 1 ||
        !json_member_u64(s->doc, "shard", &s->k) || !json_member_u64(s->doc, "shards", &s->n) || s->k < 1 ||
        s->k > s->n || !json_member(s->doc, "settings") || !json_member(s->doc, "failures")) {
        snprintf(err, errlen, "%s: not a shard report this mdat can read (format_version 1)", file);
        return false;
    }
    return true;
}

/* The first setting of b that a does not have as it is; NULL: the same. */
static const char *setting_that_differs(const struct json_value *a, const struct json_value *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct json_value *mine = json_member(a, b->keys[i]);
        if (!mine || !json_equal(mine, &b->items[i]))
            return strcmp(b->keys[i], "program_sha256") == 0 ? "the program" : b->keys[i];
    }
    return a->n == b->n ? NULL : "the settings recorded";
}

/* All N shards of one run, each once. */
static bool one_run(const struct run_shard *s, size_t n, char *err, size_t errlen)
{
    const struct json_value *settings = json_member(s[0].doc, "settings");
    const char *version = json_member_string(s[0].doc, "mdat_version");
    for (size_t i = 0; i < n; i++) {
        if (s[i].n != s[0].n) {
            snprintf(err, errlen, "%s is shard %" PRIu64 " of %" PRIu64 ", %s of %" PRIu64 ": not one run", s[i].file,
                     s[i].k, s[i].n, s[0].file, s[0].n);
            return false;
        }
        if (strcmp(json_member_string(s[i].doc, "mdat_version"), version) != 0) {
            snprintf(err, errlen, "%s was written by mdat %s, %s by mdat %s: not one run", s[i].file,
                     json_member_string(s[i].doc, "mdat_version"), s[0].file, version);
            return false;
        }
        const char *differs = setting_that_differs(json_member(s[i].doc, "settings"), settings);
        if (differs) {
            snprintf(err, errlen, "%s and %s were run with different settings (%s differs)", s[0].file, s[i].file,
                     differs);
            return false;
        }
        for (size_t j = 0; j < i; j++)
            if (s[j].k == s[i].k) {
                snprintf(err, errlen, "shard %" PRIu64 " is given twice (%s and %s)", s[i].k, s[j].file, s[i].file);
                return false;
            }
    }
    if (n != s[0].n) {
        for (uint64_t k = 1; k <= s[0].n; k++) {
            size_t i = 0;
            while (i < n && s[i].k != k)
                i++;
            if (i == n) {
                snprintf(err, errlen, "shard %" PRIu64 " of %" PRIu64 " is missing", k, s[0].n);
                return false;
            }
        }
    }
    return true;
}

static uint64_t u64_of(const struct json_value *v, const char *key)
{
    uint64_t x = 0;
    json_member_u64(v, key, &x);
    return x;
}

static double seconds_of(const struct json_value *v, const char *key)
{
    double x = 0;
    json_member_double(v, key, &x);
    return x;
}

/* A failure or an outcome: its execution index. */
static uint64_t execution_of(const struct json_value *v)
{
    return u64_of(v, "execution");
}

static bool same_member(const struct json_value *a, const struct json_value *b, const char *key)
{
    const struct json_value *x = json_member(a, key), *y = json_member(b, key);
    return x && y ? json_equal(x, y) : x == y;
}

/* Which failures the merged run reports: the lowest execution's, or with
 * --keep-going the lowest of each kind and place (as one run tallies
 * them), in execution order. */
static size_t merged_failures(const struct run_shard *s, size_t n, bool keep_going, const struct json_value **out,
                              size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct json_value *list = json_member(s[i].doc, "failures");
        for (size_t f = 0; list && f < list->n; f++) {
            const struct json_value *v = &list->items[f];
            size_t j = 0;
            while (j < m && keep_going && !(same_member(out[j], v, "kind") && same_member(out[j], v, "location")))
                j++;
            if (j < m || (!keep_going && m == 1)) {
                if (execution_of(v) < execution_of(out[keep_going ? j : 0]))
                    out[keep_going ? j : 0] = v;
            } else if (m < cap) {
                out[m++] = v;
            }
        }
    }
    for (size_t i = 1; i < m; i++)     /* few: insertion sort by execution */
        for (size_t j = i; j > 0 && execution_of(out[j]) < execution_of(out[j - 1]); j--) {
            const struct json_value *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return m;
}

/* An outcome of the merged table: the first (lowest execution) of its
 * kind, and how many executions of every shard ended so. */
struct merged_outcome {
    const struct json_value *first;
    uint64_t count;
};

static const char *const OUTCOME_KEY[] = {"failure",     "location", "exited",  "exit_status",
                                          "term_signal", "incomplete", "watches", "stdout_sha256"};

static bool same_outcome(const struct json_value *a, const struct json_value *b)
{
    for (size_t i = 0; i < sizeof OUTCOME_KEY / sizeof *OUTCOME_KEY; i++)
        if (!same_member(a, b, OUTCOME_KEY[i]))
            return false;
    return true;
}

static int by_count_then_execution(const void *pa, const void *pb)
{
    const struct merged_outcome *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    uint64_t x = execution_of(a->first), y = execution_of(b->first);
    return x < y ? -1 : x > y;
}

static size_t merged_outcomes(const struct run_shard *s, size_t n, struct merged_outcome **out)
{
    size_t m = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct json_value *list = json_member(s[i].doc, "outcomes");
        for (size_t o = 0; list && o < list->n; o++) {
            const struct json_value *v = &list->items[o];
            size_t j = 0;
            while (j < m && !same_outcome((*out)[j].first, v))
                j++;
            if (j == m) {
                if (m == cap) {
                    cap = cap ? 2 * cap : 16;
                    *out = realloc(*out, cap * sizeof **out);
                }
                (*out)[m++] = (struct merged_outcome){v, 0};
            } else if (execution_of(v) < execution_of((*out)[j].first)) {
                (*out)[j].first = v;
            }
            (*out)[j].count += u64_of(v, "count");
        }
    }
    if (m)
        qsort(*out, m, sizeof **out, by_count_then_execution);
    return m;
}

/* The merged totals, in the order of one run's report. */
struct totals {
    uint64_t schedules_run, steps, stops, incomplete, incomplete_steps_max, executions_total;
    double elapsed;
    bool complete;
    const char *cut_short;
    const struct json_value *stops_by_reason[32];
    const char *reason_names[32];
    uint64_t reason_counts[32];
    size_t n_reasons;
};

static void add_totals(struct totals *t, const struct json_value *doc)
{
    t->schedules_run += u64_of(doc, "schedules_run");
    t->steps += u64_of(doc, "visible_steps_total");
    t->stops += u64_of(doc, "ptrace_stops_total");
    t->incomplete += u64_of(doc, "incomplete");
    uint64_t most = u64_of(doc, "incomplete_steps_max");
    if (most > t->incomplete_steps_max)
        t->incomplete_steps_max = most;
    double e = seconds_of(doc, "elapsed_seconds");
    if (e > t->elapsed)
        t->elapsed = e;     /* the shards ran side by side */
    if (!json_member_true(doc, "complete"))
        t->complete = false;
    if (!t->cut_short && json_member(doc, "cut_short"))
        t->cut_short = json_member_string(doc, "cut_short");
    const struct json_value *reasons = json_member(doc, "ptrace_stops_by_reason");
    for (size_t r = 0; reasons && reasons->type == JSON_OBJECT && r < reasons->n; r++) {
        size_t j = 0;
        while (j < t->n_reasons && strcmp(t->reason_names[j], reasons->keys[r]) != 0)
            j++;
        if (j == t->n_reasons) {
            if (j == sizeof t->reason_names / sizeof *t->reason_names)
                continue;
            t->reason_names[t->n_reasons++] = reasons->keys[r];
            t->reason_counts[j] = 0;
        }
        uint64_t c = 0;
        if (reasons->items[r].type == JSON_NUMBER)
            c = strtoull(reasons->items[r].text, NULL, 10);
        t->reason_counts[j] += c;
    }
}

static bool write_merged(const char *path, const struct run_shard *s, size_t n, const struct totals *t,
                         const struct json_value *const *failures, size_t n_failures,
                         const struct merged_outcome *outcomes, size_t n_outcomes, char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    const struct json_value *first = s[0].doc;
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_copy(&w, "mdat_version", json_member(first, "mdat_version"));
    json_uint(&w, "merged_shards", n);
    json_copy(&w, "program", json_member(first, "program"));
    json_copy(&w, "args", json_member(first, "args"));
    json_copy(&w, "strategy", json_member(first, "strategy"));
    json_copy(&w, "seed", json_member(first, "seed"));
    json_copy(&w, "schedules_requested", json_member(first, "schedules_requested"));
    json_uint(&w, "schedules_run", t->schedules_run);
    json_bool(&w, "complete", t->complete && !t->cut_short);
    if (t->cut_short)
        json_string(&w, "cut_short", t->cut_short);
    json_double(&w, "elapsed_seconds", t->elapsed);
    json_uint(&w, "visible_steps_total", t->steps);
    json_uint(&w, "ptrace_stops_total", t->stops);
    json_begin_object(&w, "ptrace_stops_by_reason");
    for (size_t r = 0; r < t->n_reasons; r++)
        json_uint(&w, t->reason_names[r], t->reason_counts[r]);
    json_end_object(&w);
    json_uint(&w, "incomplete", t->incomplete);
    json_uint(&w, "incomplete_steps_max", t->incomplete_steps_max);
    json_begin_array(&w, "failures");
    for (size_t i = 0; i < n_failures; i++)
        json_copy(&w, NULL, failures[i]);
    json_end_array(&w);
    if (n_outcomes > 0) {
        uint64_t total = 0;
        for (size_t i = 0; i < n_outcomes; i++)
            total += outcomes[i].count;
        json_bool(&w, "exhaustive", false);
        json_begin_array(&w, "outcomes");
        for (size_t i = 0; i < n_outcomes; i++) {
            const struct json_value *o = outcomes[i].first;
            json_begin_object(&w, NULL);
            json_uint(&w, "count", outcomes[i].count);
            json_double(&w, "share", total ? (double)outcomes[i].count / (double)total : 0);
            for (size_t k = 0; k < o->n; k++)
                if (strcmp(o->keys[k], "count") != 0 && strcmp(o->keys[k], "share") != 0)
                    json_copy(&w, o->keys[k], &o->items[k]);
            json_end_object(&w);
        }
        json_end_array(&w);
    }
    json_end_object(&w);
    return safe_file_commit(&sf, err, errlen);
}

static void print_merged(const struct run_shard *s, size_t n, const struct totals *t,
                         const struct json_value *const *failures, size_t n_failures,
                         const struct merged_outcome *outcomes, size_t n_outcomes)
{
    const struct json_value *first = s[0].doc;
    uint64_t seed = u64_of(first, "seed");
    printf("mdat: merged %zu shard%s of the run of %s (%s, seed %" PRIu64 ", %" PRIu64 " schedules)\n", n,
           n == 1 ? "" : "s", json_member_string(first, "program"), json_member_string(first, "strategy"), seed,
           u64_of(first, "schedules_requested"));
    if (t->incomplete > 0)
        printf("mdat: %" PRIu64 " execution%s did not end: still making progress after %" PRIu64 " steps\n",
               t->incomplete, t->incomplete == 1 ? "" : "s", t->incomplete_steps_max);
    for (size_t i = 0; i < n_failures; i++) {
        const struct json_value *f = failures[i];
        const char *by = json_member_string(f, "chosen_by"), *schedule = json_member_string(f, "schedule_file");
        printf("\nmdat: FAILURE %s in execution %" PRIu64 " (seed %" PRIu64 "%s%s)\n  %s\n",
               json_member_string(f, "kind"), execution_of(f), seed, by[0] ? ", chosen by " : "", by,
               json_member_string(f, "message"));
        if (json_member_string(f, "location")[0])
            printf("  at %s %s\n", json_member_string(f, "location"), json_member_string(f, "function"));
        if (schedule[0])
            printf("  schedule: %s (mdat replay %s)\n", schedule, schedule);
    }
    for (size_t i = 0; i < n_outcomes; i++) {
        if (i == 0)
            printf("\nmdat: outcomes (count, share, the lowest execution that ended so)\n");
        uint64_t total = t->schedules_run ? t->schedules_run : 1;
        printf("  %8" PRIu64 "  %5.1f%%  %s  (execution %" PRIu64 ")\n", outcomes[i].count,
               100.0 * (double)outcomes[i].count / (double)total, json_member_string(outcomes[i].first, "text"),
               execution_of(outcomes[i].first));
    }
    if (n_failures == 0)
        printf("mdat: no failure in %" PRIu64 " execution%s (seed %" PRIu64 "; %" PRIu64 " visible steps, %.1f s)\n",
               t->schedules_run, t->schedules_run == 1 ? "" : "s", seed, t->steps, t->elapsed);
    else
        printf("\nmdat: %zu failure%s after %" PRIu64 " execution%s (seed %" PRIu64 ")\n", n_failures,
               n_failures == 1 ? "" : "s", t->schedules_run, t->schedules_run == 1 ? "" : "s", seed);
    if (!t->complete)
        printf("mdat: a shard was stopped before its end: the merged run is of the executions decided\n");
}

enum { MAX_MERGED_FAILURES = 64 };

static int merge(const struct run_shard *s, size_t n, const char *json_path)
{
    char err[PATH_MAX + 300];
    if (!one_run(s, n, err, sizeof err)) {
        fprintf(stderr, "mdat merge: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    struct totals t = {.complete = true};
    for (size_t i = 0; i < n; i++)
        add_totals(&t, s[i].doc);
    const struct json_value *settings = json_member(s[0].doc, "settings");
    const struct json_value *failures[MAX_MERGED_FAILURES];
    size_t n_failures = merged_failures(s, n, json_member_true(settings, "keep_going"), failures, MAX_MERGED_FAILURES);
    struct merged_outcome *outcomes;
    size_t n_outcomes = merged_outcomes(s, n, &outcomes);
    print_merged(s, n, &t, failures, n_failures, outcomes, n_outcomes);
    int status = n_failures ? EXIT_FAILURE_FOUND : EXIT_NO_FAILURE;
    if (json_path && !write_merged(json_path, s, n, &t, failures, n_failures, outcomes, n_outcomes, err, sizeof err)) {
        fprintf(stderr, "mdat merge: %s\n", err);
        status = EXIT_CANNOT_RUN;
    }
    free(outcomes);
    return status;
}

int cmd_merge_runs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    const char *json_path = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json_path = optarg;
            break;
        case 'h':
            print_merge_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            if (optopt == 0 && argv[optind - 1][0] == '-' && argv[optind - 1][1] == '-')
                return cli_usage_error("merge", "%s is an option of merging grading shards, not run shards",
                                       argv[optind - 1]);
            return cli_bad_option("merge", optopt, argv[optind - 1]);
        }
    }
    char err[PATH_MAX + 300];
    if (json_path && !safe_file_writable(json_path, err, sizeof err)) {
        fprintf(stderr, "mdat merge: %s\n", err);
        return EXIT_USAGE;
    }
    size_t n = (size_t)(argc - optind);
    struct run_shard *shards = calloc(n + 1, sizeof *shards);
    int status = EXIT_NO_FAILURE;
    size_t n_read = 0;
    for (; n_read < n && status == EXIT_NO_FAILURE; n_read++)
        if (!read_shard(argv[optind + (int)n_read], &shards[n_read], err, sizeof err)) {
            fprintf(stderr, "mdat merge: %s\n", err);
            status = EXIT_CANNOT_RUN;
        }
    if (status == EXIT_NO_FAILURE)
        status = merge(shards, n, json_path);
    for (size_t i = 0; i < n_read; i++)
        json_value_free(shards[i].doc);
    free(shards);
    return status;
}
