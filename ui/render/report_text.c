/* report_text: a failure as a person reads it on a terminal. */
#include "ui/render/report.h"
#include "ui/render/trace_log.h"

#include <inttypes.h>
#include <string.h>

void report_failure_text(FILE *f, const struct exec_result *res)
{
    fprintf(f, "  %s\n", res->message);
    if (res->output_cut_at)
        fprintf(f, "  (the program's output was cut at %" PRIu64 " bytes: --max-output)\n", res->output_cut_at);
    if (res->n_threads > 0) {
        fprintf(f, "  threads:\n");
        for (int i = 0; i < res->n_threads; i++) {
            const struct failure_thread *t = &res->threads[i];
            fprintf(f, "    T%-3d %-13s %-14s %s%s%s\n", t->id, t->state, t->start, t->location,
                    t->waiting_on[0] ? "  waiting on " : "", t->waiting_on);
        }
    }
    const struct trace_event *recent[EXEC_RECENT_EVENTS];
    int n = exec_result_recent(res, recent, 8);
    if (n > 0) {
        fprintf(f, "  last steps:\n");
        for (int i = 0; i < n; i++) {
            char line[TRACE_LOG_LINE_MAX];
            trace_log_format(recent[i], line, sizeof line);
            fprintf(f, "  %s\n", line);
        }
    }
}

void report_failure_files_text(FILE *out, const struct explore_failure *f)
{
    fprintf(out, "  schedule: %s\n", f->schedule_file);
    for (int i = 0; i < f->n_traces; i++)
        fprintf(out, "  %-10s%s\n", i == 0 ? "traces:" : "", f->traces[i].path);
    fprintf(out, "  output:   %s, %s\n", f->stdout_file, f->stderr_file);
    /* A schedule's checker runs only when the user trusts it: one's own run. */
    fprintf(out, "  replay:   mdat replay %s%s\n", f->result.kind == FAIL_CHECKER ? "--trust-check " : "",
            f->schedule_file);
}
