/* grade_junit: the JUnit XML report of mdat grade --junit: one test case per
 * submission, passed (no failure found), failed (a failure kind, or a hang)
 * with its result, replay command and the last steps of its first failure's
 * trace, or in error (it did not build, mdat could not grade it). */
#include "ui/grade/grade_formats.h"

#include "ui/text/junit_writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { TRACE_TAIL_LINES = 25 };

/* The last lines of the first failure's saved trace (NAME.trace beside NAME.sched). */
static void trace_tail(FILE *out, const struct grade_failure *ff)
{
    char path[PATH_MAX + 8];
    size_t n = strlen(ff->schedule_file);
    if (n < 6 || strcmp(ff->schedule_file + n - 6, ".sched") != 0)
        return;
    snprintf(path, sizeof path, "%.*s.trace", (int)(n - 6), ff->schedule_file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *lines[TRACE_TAIL_LINES] = {0};
    char *line = NULL;
    size_t cap = 0;
    long count = 0;
    while (getline(&line, &cap, f) >= 0) {
        free(lines[count % TRACE_TAIL_LINES]);
        lines[count % TRACE_TAIL_LINES] = strdup(line);
        count++;
    }
    free(line);
    fclose(f);
    long first = count > TRACE_TAIL_LINES ? count - TRACE_TAIL_LINES : 0;
    fprintf(out, "last steps (%s):\n", path);
    for (long i = first; i < count; i++)
        fputs(lines[i % TRACE_TAIL_LINES] ? lines[i % TRACE_TAIL_LINES] : "", out);
    for (int i = 0; i < TRACE_TAIL_LINES; i++)
        free(lines[i]);
}

static char *case_text(const struct grade_report *r, int i)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    grade_result_text(f, r, i);
    if (r->results[i].has_failure)
        trace_tail(f, &r->results[i].first_failure);
    fclose(f);
    return text;
}

bool grade_write_junit(FILE *out, const char *path, const struct grade_report *r, char *err, size_t errlen)
{
    const struct grade_settings *s = r->settings;
    int n = s->n_submissions;
    struct junit_case *cases = calloc((size_t)n + 1, sizeof *cases);
    char (*names)[256] = calloc((size_t)n + 1, sizeof *names);
    char (*messages)[1400] = calloc((size_t)n + 1, sizeof *messages);
    char **texts = calloc((size_t)n + 1, sizeof *texts);
    if (!cases || !names || !messages || !texts)
        abort();
    for (int i = 0; i < n; i++) {
        const struct grade_result *g = &r->results[i];
        grade_submission_name(s->submissions[i], i, n, names[i], sizeof names[i]);
        struct junit_case *c = &cases[i];
        *c = (struct junit_case){.name = names[i], .classname = "mdat.grade",
                                 .seconds = r->no_times ? -1 : g->seconds};
        if (g->verdict == VERDICT_OK)
            continue;
        bool error = g->verdict == VERDICT_BUILD_FAILED || g->verdict == VERDICT_MDAT_ERROR;
        c->outcome = error ? JUNIT_ERROR : JUNIT_FAILED;
        c->type = grade_verdict_name(g->verdict);
        if (error)
            snprintf(messages[i], sizeof messages[i], "%s: %s", grade_verdict_text(g->verdict), g->details);
        else
            snprintf(messages[i], sizeof messages[i], "%s in %" PRIu64 " of %" PRIu64 " schedules: %s",
                     grade_verdict_text(g->verdict), g->failing, g->schedules_run, g->details);
        c->message = messages[i];
        c->text = texts[i] = case_text(r, i);
    }
    char seed[32], schedules[32];
    snprintf(seed, sizeof seed, "%" PRIu64, s->seed);
    snprintf(schedules, sizeof schedules, "%" PRIu64, s->schedules);
    const struct junit_property props[] = {
        {"mdat_version", MDAT_VERSION}, {"strategy", s->strategy}, {"seed", seed}, {"schedules", schedules},
    };
    double total = 0;
    for (int i = 0; i < n; i++)
        total += r->results[i].seconds;
    struct junit_suite suite = {"mdat grade", props, 4, cases, n, r->no_times ? -1 : total};
    bool ok = junit_write_close(out, path, &suite, err, errlen);
    for (int i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(messages);
    free(names);
    free(cases);
    return ok;
}
