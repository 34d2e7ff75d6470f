/* grade_junit: the JUnit XML report of mdat grade --junit: one test case per
 * submission, passed (no failure found), failed (a failure kind, or a hang)
 * with its result, replay command and the last steps of its first failure's
 * trace (grade_result_text), or in error (it did not build, mdat could not grade it). */
#include "ui/grade/reports/grade_junit.h"
#include "ui/grade/reports/grade_result_text.h"

#include "ui/text/junit_writer.h"

#include <inttypes.h>
#include <stdlib.h>

bool grade_write_junit(const char *path, const struct grade_report *r, char *err, size_t errlen)
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
        if (grade_verdict_passed(g->verdict))
            continue;
        bool error = g->verdict == VERDICT_BUILD_FAILED || g->verdict == VERDICT_MDAT_ERROR || g->verdict == VERDICT_NOT_GRADED;
        c->outcome = error ? JUNIT_ERROR : JUNIT_FAILED;
        c->type = grade_verdict_name(g->verdict);
        if (error)
            snprintf(messages[i], sizeof messages[i], "%s: %s", grade_verdict_text(g->verdict), g->details);
        else
            snprintf(messages[i], sizeof messages[i], "%s in %" PRIu64 " of %" PRIu64 " schedules: %s",
                     grade_verdict_text(g->verdict), g->failing, g->schedules_run, g->details);
        c->message = messages[i];
        c->text = texts[i] = grade_result_text(r, i, true);
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
    bool ok = junit_write_file(path, &suite, err, errlen);
    for (int i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(messages);
    free(names);
    free(cases);
    return ok;
}
