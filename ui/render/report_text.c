/* report_text: a failure as a person reads it on a terminal. */
#include "ui/render/report.h"
#include "ui/render/trace_log.h"
#include "supervisor/explore/schedule.h"

#include <limits.h>
#include <stdint.h>

#include <inttypes.h>
#include <string.h>

void report_failure_text(FILE *f, const struct exec_result *res)
{
    fprintf(f, "  %s\n", res->message);
    if (res->output_cut_at)
        fprintf(f, "  (the program's output was cut at %" PRIu64 " bytes: --max-output)\n", res->output_cut_at);
    report_checker_evidence_text(f, res);
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
    report_cause_text(f, res, n > 0 ? recent[0]->step : UINT64_MAX);
}

void report_cause_text(FILE *f, const struct exec_result *res, uint64_t shown_from)
{
    if (res->n_cause <= 0)
        return;
    if (res->cause[0].step >= shown_from) {
        /* All among the last steps: their numbers say enough. */
        fprintf(f, "  relevant steps:");
        for (int i = 0; i < res->n_cause; i++)
            fprintf(f, "%s %" PRIu64, i ? "," : "", res->cause[i].step);
        fprintf(f, " (among the last steps)\n");
        return;
    }
    fprintf(f, "  relevant steps (what led to it):\n");
    for (int i = 0; i < res->n_cause; i++) {
        if (i > 0 && res->cause[i].step > res->cause[i - 1].step + 1)
            fprintf(f, "  ...\n");
        char line[TRACE_LOG_LINE_MAX];
        trace_log_format(&res->cause[i], line, sizeof line);
        fprintf(f, "  %s\n", line);
    }
}

void report_failure_files_text(FILE *out, const struct explore_failure *f)
{
    char replay[PATH_MAX + 64];
    if (f->saved_only) {
        /* Stopped before it was recorded again: its schedule, saved when
         * it was found, is all there is. */
        if (f->schedule_file[0]) {
            schedule_replay_command(f->schedule_file, f->found == FAIL_CHECKER, replay, sizeof replay);
            fprintf(out, "  schedule: %s (saved when it was found; not shrunk, no trace: mdat was stopped)\n"
                         "  replay:   %s\n", f->schedule_file, replay);
        } else {
            fprintf(out, "  schedule: not saved (mdat was stopped before it was recorded; --keep-going saves each "
                         "failure's schedule when it is found)\n");
        }
        return;
    }
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
    if (f->unwritten[0])
        fprintf(out, "  NOT WRITTEN: %s\n", f->unwritten);
    /* A schedule's checker runs only when the user trusts it: one's own run. */
    schedule_replay_command(f->schedule_file, f->result.kind == FAIL_CHECKER, replay, sizeof replay);
    fprintf(out, "  replay:   %s\n", replay);
}

bool report_search_gap(const struct explore_summary *sum, char *buf, size_t len)
{
    if (sum->too_long)
        snprintf(buf, len, "an execution ran past the %d steps dpor analyses", STRATEGY_DPOR_MAX_STEPS);
    else if (sum->grounds_executions > 0) {
        char more[96] = "";
        if (sum->grounds_executions > 1)
            snprintf(more, sizeof more, "; %" PRIu64 " executions lost their grounds", sum->grounds_executions);
        snprintf(buf, len, "grounds lost: %s, at step %" PRIu64 " of execution %" PRIu64 "%s", sum->grounds.what,
                 sum->grounds.step, sum->grounds_execution, more);
    } else if (sum->incomplete > 0)
        snprintf(buf, len, "%" PRIu64 " execution%s did not end (raise %s)", sum->incomplete,
                 sum->incomplete == 1 ? "" : "s", sum->incomplete_reason == INCOMPLETE_TIME ? "--time-limit" : "--max-steps");
    else
        return false;
    return true;
}

/* What a systematic search's table is: every reachable outcome (within
 * dfs's bound), or a part of them and why. */
static void systematic_table_extent(FILE *out, const struct explore_summary *sum, const struct explore_options *opt)
{
    bool dpor = strcmp(opt->strategy, "dpor") == 0;
    const char *what = dpor ? "distinct interleavings (classes)" : "schedules";
    const char *bound = opt->dfs_bound == DFS_DELAYS ? "delay" : "preemption";
    char gap[400];
    if (report_search_gap(sum, gap, sizeof gap))
        fprintf(out, "  may be incomplete: %s, so the search proves nothing: other outcomes may be reachable\n", gap);
    else if (!sum->exhaustive)
        fprintf(out, "  may be incomplete: the search %s %" PRIu64 " executions before it had explored "
                "every one: other outcomes may be reachable\n",
                sum->schedules_run < opt->schedules ? "was stopped after" : "stopped at -n", sum->schedules_run);
    else if (!dpor && opt->max_bound >= 0)
        fprintf(out, "  exact within %s bound %d: all %" PRIu64 " schedules with at most %d %s%s explored; more "
                "%ss may reach other outcomes\n", bound, opt->max_bound, sum->classes, sum->bound, bound,
                sum->bound == 1 ? "" : "s", bound);
    else
        fprintf(out, "  exact: all %" PRIu64 " %s explored\n", sum->classes, what);
}

void report_outcomes_text(FILE *out, const struct explore_summary *sum, const struct explore_options *opt)
{
    const struct outcome_table *t = &sum->outcomes;
    uint64_t total = outcome_table_total(t);
    if (sum->systematic) {
        bool dpor = strcmp(opt->strategy, "dpor") == 0;
        fprintf(out, "\nmdat: %zu outcome%s of %" PRIu64 " %s, each counted once (seed %" PRIu64 "; %" PRIu64
                " execution%s)\n", t->n, t->n == 1 ? "" : "s", total,
                dpor ? "distinct interleavings (classes)" : "schedules", opt->seed, sum->schedules_run,
                sum->schedules_run == 1 ? "" : "s");
        systematic_table_extent(out, sum, opt);
    } else {
        fprintf(out, "\nmdat: %zu outcome%s of %" PRIu64 " execution%s (seed %" PRIu64 "; sampled: other outcomes "
                "may be reachable)\n", t->n, t->n == 1 ? "" : "s", sum->schedules_run,
                sum->schedules_run == 1 ? "" : "s", opt->seed);
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct outcome *o = &t->at[i];
        char text[1024];
        outcome_describe(&o->key, text, sizeof text);
        double share = total ? 100.0 * (double)o->count / (double)total : 0;
        fprintf(out, "  %8" PRIu64 " %6.1f%%  %s\n  %16s schedule %s%s\n", o->count, share, text, "",
                o->schedule_file,
                o->reproduced ? "" : " -- NOT reproduced when re-run: the program is not deterministic under mdat");
    }
}
