/* grade_result_text: a submission's result as text for people, the one
 * that the JUnit and Gradescope documents both carry (see
 * grade_result_text.h). */
#include "ui/grade/reports/grade_result_text.h"
#include "ui/grade/reports/grade_evidence.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
