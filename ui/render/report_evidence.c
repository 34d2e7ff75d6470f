/* report_evidence: what a checker failure rests on, for the reports of
 * `mdat run` and `mdat replay`: the first lines of the output the checker
 * rejected and of what the checker said (exec_result.output_head and
 * checker_said, kept by the explore layer with the verdict). Which steps
 * led there is the trace's and the other sections' to say. */
#include "ui/render/report.h"
#include "ui/text/json_writer.h"

#include <inttypes.h>
#include <string.h>

/* Each line of text, indented; "(nothing)" when there is none. */
static void indented_lines(FILE *f, const char *indent, const char *text)
{
    if (!text[0]) {
        fprintf(f, "%s(nothing)\n", indent);
        return;
    }
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%s%.*s\n", indent, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

void report_checker_evidence_text(FILE *f, const struct exec_result *res)
{
    if (res->kind != FAIL_CHECKER)
        return;
    int shown = count_lines(res->output_head);
    if (res->output_lines > (uint64_t)shown)
        fprintf(f, "  the output the checker rejected (its first %d of %" PRIu64 " lines):\n", shown,
                res->output_lines);
    else
        fprintf(f, "  the output the checker rejected:\n");
    indented_lines(f, "    | ", res->output_head);
    if (res->checker_said[0]) {
        fprintf(f, "  the checker said:\n");
        indented_lines(f, "    | ", res->checker_said);
    }
}

static void json_lines(struct json_writer *w, const char *key, const char *text)
{
    json_begin_array(w, key);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char line[EXEC_EVIDENCE_MAX];
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        json_string(w, NULL, line);
        p += n + (p[n] == '\n');
    }
    json_end_array(w);
}

void report_json_checker_evidence(struct json_writer *w, const struct exec_result *res)
{
    if (res->kind != FAIL_CHECKER) {
        json_null(w, "checker_evidence");
        return;
    }
    json_begin_object(w, "checker_evidence");
    json_lines(w, "output_first_lines", res->output_head);
    json_uint(w, "output_lines", res->output_lines);
    json_lines(w, "checker_said", res->checker_said);
    json_end_object(w);
}
