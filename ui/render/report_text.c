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
    if (f->shrunk) {
        fprintf(out, "  shrunk:   ");
        if (f->steps == f->original_steps && f->preemptions == f->original_preemptions)
            fprintf(out, "none shorter found than %" PRIu64 " steps / %" PRIu64 " preemption%s", f->steps,
                    f->preemptions, f->preemptions == 1 ? "" : "s");
        else
            fprintf(out, "shrunk from %" PRIu64 " steps / %" PRIu64 " preemption%s to %" PRIu64 " steps / %" PRIu64
                    " preemption%s", f->original_steps, f->original_preemptions,
                    f->original_preemptions == 1 ? "" : "s", f->steps, f->preemptions, f->preemptions == 1 ? "" : "s");
        fprintf(out, " (%" PRIu64 " re-execution%s, %.1f s%s)\n", f->shrink_runs, f->shrink_runs == 1 ? "" : "s",
                f->shrink_seconds, f->shrink_out_of_time ? ", stopped by --shrink-time" : "");
    }
    fprintf(out, "  schedule: %s\n", f->schedule_file);
    if (f->original_file[0])
        fprintf(out, "  original: %s\n", f->original_file);
    for (int i = 0; i < f->n_traces; i++)
        fprintf(out, "  %-10s%s\n", i == 0 ? "traces:" : "", f->traces[i].path);
    fprintf(out, "  output:   %s, %s\n", f->stdout_file, f->stderr_file);
    /* A schedule's checker runs only when the user trusts it: one's own run. */
    fprintf(out, "  replay:   mdat replay %s%s\n", f->result.kind == FAIL_CHECKER ? "--trust-check " : "",
            f->schedule_file);
}

void report_outcomes_text(FILE *out, const struct explore_summary *sum, uint64_t seed)
{
    const struct outcome_table *t = &sum->outcomes;
    fprintf(out, "\nmdat: %zu outcome%s of %" PRIu64 " execution%s (seed %" PRIu64 "; %s)\n", t->n,
            t->n == 1 ? "" : "s", sum->schedules_run, sum->schedules_run == 1 ? "" : "s", seed,
            sum->exhaustive ? "all reachable outcomes: the search was exhaustive"
                            : "sampled: other outcomes may be reachable");
    for (size_t i = 0; i < t->n; i++) {
        const struct outcome *o = &t->at[i];
        char text[1024];
        outcome_describe(&o->key, text, sizeof text);
        double share = sum->schedules_run ? 100.0 * (double)o->count / (double)sum->schedules_run : 0;
        fprintf(out, "  %8" PRIu64 " %6.1f%%  %s\n  %16s schedule %s\n", o->count, share, text, "",
                o->schedule_file);
    }
}
