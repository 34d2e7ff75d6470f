/* grade_formats: the options of --junit and --gradescope, checked before
 * grading (a wrong path is told at once, not after an hour of grading), and
 * the text of a submission's result that both documents carry. */
#include "ui/grade/reports/grade_formats.h"
#include "ui/grade/reports/grade_evidence.h"

#include "supervisor/explore/explore.h"
#include "ui/cli/cli.h"
#include "ui/text/junit_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int grade_formats_option(const char *cmd, int c, const char *arg, struct grade_formats *f)
{
    char why[PATH_MAX + 200];
    switch (c) {
    case GRADE_OPT_JUNIT:
        f->junit = arg;
        return 1;
    case GRADE_OPT_GRADESCOPE:
        f->gradescope = arg;
        return 1;
    case GRADE_OPT_RUBRIC:
    case GRADE_OPT_POINTS:
        f->rubric_given = true;
        if (!(c == GRADE_OPT_RUBRIC ? rubric_read_file(&f->rubric, arg, why, sizeof why)
                                    : rubric_add_points(&f->rubric, arg, why, sizeof why))) {
            cli_usage_error(cmd, "%s", why);
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

bool grade_formats_ready(const char *cmd, struct grade_formats *f, bool sharded)
{
    char why[PATH_MAX + 200];
    if (sharded && (f->junit || f->gradescope)) {
        cli_usage_error(cmd, "with --shard only the shard report is written: give --junit and --gradescope to "
                             "mdat merge%s", "");
        return false;
    }
    if (f->rubric_given && !f->gradescope) {
        cli_usage_error(cmd, "a rubric (--rubric, --points) scores --gradescope DIR, which is not given%s", "");
        return false;
    }
    if (f->gradescope && (!make_directories(f->gradescope) || access(f->gradescope, W_OK) != 0)) {
        fprintf(stderr, "mdat %s: cannot write into %s: %s\n", cmd, f->gradescope, strerror(errno));
        return false;
    }
    if (f->junit && !junit_check_path(f->junit, why, sizeof why)) {
        fprintf(stderr, "mdat %s: %s\n", cmd, why);
        return false;
    }
    return true;
}

bool grade_formats_write(struct grade_formats *f, const struct grade_report *r, char *err, size_t errlen)
{
    bool ok = true;
    if (f->junit)
        ok = grade_write_junit(f->junit, r, err, errlen);
    if (ok && f->gradescope) {
        struct rubric rubric = f->rubric;
        if (!f->rubric_given)
            rubric_default(&rubric, r->settings);
        ok = grade_write_gradescope(f->gradescope, r, &rubric, err, errlen);
    }
    return ok;
}

/* Prints text indented, line by line. */
static void indented(FILE *out, const char *indent, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "%s%.*s\n", indent, len, p);
        p += len + (nl != NULL);
    }
}

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

char *grade_result_text(const struct grade_report *r, int i, bool with_trace)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    const struct grade_result *g = &r->results[i];
    fprintf(out, "%s", grade_verdict_text(g->verdict));
    if (g->verdict != VERDICT_BUILD_FAILED && g->verdict != VERDICT_MDAT_ERROR && g->verdict != VERDICT_NOT_GRADED)
        fprintf(out, ": %" PRIu64 " of %" PRIu64 " %s failed", g->failing, g->schedules_run,
                g->lincheck.ran ? "scenarios" : "schedules");
    fputc('\n', out);
    if (g->details[0])
        fprintf(out, "%s\n", g->details);
    if (g->has_failure) {
        const struct grade_failure *ff = &g->first_failure;
        char replay[PATH_MAX + 64];
        grade_replay_command(ff, replay, sizeof replay);
        fprintf(out, "first failure: %s in %s %" PRIu64 " (seed %" PRIu64 ")%s%s%s%s\n",
                failure_kind_name(ff->kind), g->lincheck.ran ? "scenario" : "execution", ff->execution,
                r->settings->seed, ff->location[0] ? " at " : "", ff->location, ff->function[0] ? " in " : "",
                ff->function);
        if (ff->program_stderr[0])
            fprintf(out, "the program's stderr: %s\n", ff->program_stderr);
        fprintf(out, "replay: %s\n", replay);
        if (g->lincheck.table[0]) {
            fputs(g->lincheck.table, out);
        } else {
            grade_evidence_output(out, "", ff);
            grade_evidence_steps(out, "", ff);
        }
    }
    if (g->build_output[0]) {
        fputs("build output:\n", out);
        indented(out, "  ", g->build_output);
    }
    if (with_trace && g->has_failure)
        trace_tail(out, &g->first_failure);
    fclose(out);
    return text;
}
