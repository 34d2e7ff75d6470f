/* lc_report: lincheck's text and JSON reports (see lc_report.h). */
#include "ui/lincheck/lc_report.h"

#include <stdlib.h>
#include <string.h>

#include "ui/lincheck/lc_realtime.h"
#include "ui/text/json_writer.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, n;
    char buf[4096];
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        char *grown = realloc(text, len + n + 1);
        if (!grown)
            break;
        text = grown;
        memcpy(text + len, buf, n);
        len += n;
        text[len] = '\0';
    }
    fclose(f);
    return text ? text : strdup("");
}

/* One observed line "T2 pop() -> 3": its row label and cell. */
struct cell {
    int thread;                 /* 0 init, -1 post */
    char text[96];
    bool impossible;
};

static int parse_cells(const char *observed, const struct lc_outcomes *allowed, struct cell *cells, int max)
{
    int n = 0;
    const char *p = observed;
    for (int line = 0; *p && n < max; line++) {
        size_t len = strcspn(p, "\n");
        if (*p == '@')
            break;      /* the stamps, after the results */
        char buf[160];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), p);
        struct cell *c = &cells[n++];
        int used = 0;
        if (strncmp(buf, "init ", 5) == 0) {
            c->thread = 0;
            used = 5;
        } else if (strncmp(buf, "post ", 5) == 0) {
            c->thread = -1;
            used = 5;
        } else if (sscanf(buf, "T%d %n", &c->thread, &used) < 1) {
            c->thread = 0;
        } else {
            c->thread--;        /* T2 is the scenario's first thread */
        }
        snprintf(c->text, sizeof c->text, "%s", buf + used);
        c->impossible = !lc_line_possible(allowed, observed, line);
        p += len;
        if (*p)
            p++;
    }
    return n;
}

static void print_table(FILE *f, const struct cell *cells, int n, int nthreads)
{
    enum { W = 22 };
    int rows[LC_MAX_THREADS + 1] = {0};
    int nrows = 0;
    fprintf(f, "  %-6s", "");
    for (int t = 1; t <= nthreads; t++)
        fprintf(f, "| %-*s", W, (char[8]){'T', (char)('1' + t), 0});
    fputc('\n', f);
    for (int i = 0; i < n; i++)
        if (cells[i].thread == 0)
            fprintf(f, "  %-6s| %s%s\n", "init", cells[i].text, cells[i].impossible ? "  \u2717" : "");
    for (int t = 1; t <= nthreads; t++)
        for (int i = 0; i < n; i++)
            if (cells[i].thread == t && cells[i].thread <= LC_MAX_THREADS && ++rows[t] > nrows)
                nrows = rows[t];
    for (int r = 0; r < nrows; r++) {
        fprintf(f, "  %-6d", r + 1);
        for (int t = 1; t <= nthreads; t++) {
            int seen = 0;
            const struct cell *c = NULL;
            for (int i = 0; i < n && !c; i++)
                if (cells[i].thread == t && seen++ == r)
                    c = &cells[i];
            char text[128];
            snprintf(text, sizeof text, "%s%s", c ? c->text : "", c && c->impossible ? "  \u2717" : "");
            /* ✗ is three bytes but one column wide. */
            fprintf(f, "| %-*s", W + (c && c->impossible ? 2 : 0), text);
        }
        fputc('\n', f);
    }
    for (int i = 0; i < n; i++)
        if (cells[i].thread == -1)
            fprintf(f, "  %-6s| %s%s\n", "post", cells[i].text, cells[i].impossible ? "  \u2717" : "");
}

static void print_outcome_line(FILE *f, const char *text)
{
    fputs("    ", f);
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            if (p[1])
                fputs(", ", f);
        } else {
            fputc(*p, f);
        }
    }
    fputc('\n', f);
}

/* The saved trace from the first thread's creation on, without the
 * harness's own steps: the interleaving of the calls in the code under
 * test's terms. */
static void print_interleaving(FILE *f, const struct lc_result *r)
{
    char trace[4200];
    snprintf(trace, sizeof trace, "%s", r->schedule_file);
    size_t n = strlen(trace);
    if (n < 6 || strcmp(trace + n - 6, ".sched") != 0)
        return;
    strcpy(trace + n - 6, ".trace");
    FILE *in = fopen(trace, "r");
    if (!in)
        return;
    fprintf(f, "\nThe interleaving (steps in the code under test; the whole trace: %s):\n", trace);
    char line[1024];
    bool started = false;
    while (fgets(line, sizeof line, in)) {
        if (!started && strstr(line, " create "))
            started = true;
        if (started && !strstr(line, "harness.c:"))
            fputs(line, f);
    }
    fclose(in);
}

void lc_report_table(FILE *f, const struct lc_spec *spec, const struct lc_scenario *s, const struct lc_result *r,
                     int scenario_index, bool quiescent, bool real_time)
{
    char text[1024];
    lc_scenario_text(spec, s, text, sizeof text);
    bool checker = strcmp(r->kind, "checker") == 0;
    char *observed = r->stdout_file[0] ? slurp(r->stdout_file) : NULL;
    char why[1024] = "";
    enum lc_judgement verdict =
        checker && observed ? lc_judge(&r->allowed, observed, real_time, why, sizeof why) : LC_JUDGED_NO_ORDER;
    const char *headline =
        !checker                          ? "FAILED in a concurrent run"
        : quiescent                       ? "NOT QUIESCENTLY CONSISTENT: no order of the calls gives these results"
        : verdict == LC_JUDGED_REAL_TIME  ? "NOT LINEARIZABLE: the serial orders that give these results go against "
                                            "real time"
        : real_time                       ? "NOT LINEARIZABLE: no serial order of the calls (each thread's in its "
                                            "order) gives these results"
                                          : "NOT SEQUENTIALLY CONSISTENT: no serial order of the calls (each "
                                            "thread's in its order) gives these results";
    fprintf(f, "\nScenario %d: %s\n  %s\n", scenario_index, text, headline);
    if (verdict == LC_JUDGED_REAL_TIME)
        fprintf(f, "  %s\n", why);
    fputc('\n', f);
    if (observed && *observed) {
        struct cell cells[64];
        int n = parse_cells(observed, &r->allowed, cells, 64);
        print_table(f, cells, n, s->nthreads);
        if (checker) {
            bool any = false;
            for (int i = 0; i < n; i++)
                any |= cells[i].impossible;
            fprintf(f, "\n  %s\n", verdict == LC_JUDGED_REAL_TIME ? "every result is one serial orders give; real time rules those orders out"
                                     : any ? "\u2717: a result no serial order gives"
                                       : "every result alone is possible; their combination is not");
        }
    } else if (!checker) {
        fprintf(f, "  %s: %s\n", r->kind, r->message);
    }
    if (checker) {
        fprintf(f, "  The %zu serial orders%s give %s:\n", r->serial_orders,
                spec->has_seq ? " run on the sequential implementation (the spec's seq lines)" : "",
                r->allowed.n == 1 ? "this outcome only" : "these outcomes");
        for (size_t i = 0; i < r->allowed.n && i < 12; i++)
            print_outcome_line(f, r->allowed.text[i]);
        if (r->allowed.n > 12)
            fprintf(f, "    ... %zu more in %s/allowed.txt\n", r->allowed.n - 12, r->dir);
    }
    free(observed);
}

void lc_report_failure(FILE *f, const struct lc_spec *spec, const struct lc_scenario *s, const struct lc_result *r,
                       int scenario_index, bool quiescent, bool real_time)
{
    lc_report_table(f, spec, s, r, scenario_index, quiescent, real_time);
    bool checker = strcmp(r->kind, "checker") == 0;
    print_interleaving(f, r);
    fprintf(f, "\nmdat run's report: %s\nReplay it: mdat replay %s%s\n", r->log_file, checker ? "--trust-check " : "",
            r->schedule_file);
}

static void write_calls(struct json_writer *w, const char *key, const struct lc_spec *spec, const struct lc_call *calls,
                        int n)
{
    json_begin_array(w, key);
    for (int i = 0; i < n; i++) {
        char call[96];
        lc_call_text(spec, &calls[i], call, sizeof call);
        json_string(w, NULL, call);
    }
    json_end_array(w);
}

static void write_scenario(struct json_writer *w, const struct lc_spec *spec, const struct lc_scenario *s)
{
    write_calls(w, "init", spec, s->init, s->ninit);
    json_begin_array(w, "threads");
    for (int t = 0; t < s->nthreads; t++)
        write_calls(w, NULL, spec, s->calls[t], s->nops[t]);
    json_end_array(w);
    write_calls(w, "post", spec, s->post, s->npost);
}

bool lc_report_json(const char *path, const struct lc_spec *spec, const struct lc_summary *sum)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_string(&w, "spec", sum->spec_path);
    json_uint(&w, "seed", sum->seed);
    json_string(&w, "check", sum->quiescent ? "quiescent" : sum->real_time ? "linearizable" : "sequential");
    json_string(&w, "strategy", sum->strategy);
    json_string(&w, "memory_model", sum->memory_model);
    json_uint(&w, "scenarios_requested", (uint64_t)sum->scenarios_requested);
    json_uint(&w, "scenarios_run", (uint64_t)sum->scenarios_run);
    json_uint(&w, "scenarios_proved", (uint64_t)sum->proved);
    json_uint(&w, "scenarios_all_classes", (uint64_t)sum->all_classes);
    json_uint(&w, "executions", sum->executions);
    if (sum->failure) {
        const struct lc_result *r = sum->failure;
        json_begin_object(&w, "failure");
        json_uint(&w, "scenario", (uint64_t)sum->failing_index);
        json_string(&w, "kind", r->kind);
        json_string(&w, "message", r->message);
        write_scenario(&w, spec, sum->failing);
        json_uint(&w, "original_calls", (uint64_t)sum->original_calls);
        json_string(&w, "schedule_file", r->schedule_file);
        json_string(&w, "stdout_file", r->stdout_file);
        json_begin_array(&w, "allowed_outcomes");
        for (size_t i = 0; i < r->allowed.n; i++)
            json_string(&w, NULL, r->allowed.text[i]);
        json_end_array(&w);
        json_end_object(&w);
    } else {
        json_null(&w, "failure");
    }
    json_end_object(&w);
    fputc('\n', f);
    return fclose(f) == 0;
}
