/* report_json: the machine-readable summary written by `mdat run --json`. */
#include "ui/text/json_writer.h"
#include "ui/render/report.h"
#include "supervisor/trace/safe_file.h"

#include <errno.h>
#include <string.h>

static void write_failure(struct json_writer *w, const struct run_description *run, const struct explore_failure *f)
{
    const struct exec_result *r = &f->result;
    json_begin_object(w, NULL);
    json_string(w, "kind", failure_kind_name(r->kind != FAIL_NONE ? r->kind : f->found));
    json_uint(w, "seed", run->seed);
    json_uint(w, "execution", f->execution);
    if (strcmp(run->strategy, "portfolio") == 0)
        json_string(w, "chosen_by", strategy_portfolio_member(f->execution));
    json_string_or_null(w, "schedule_file", f->schedule_file[0] ? f->schedule_file : NULL);
    /* trace_file (the log) predates the other formats: kept as it was. */
    json_string_or_null(w, "trace_file", explore_failure_trace(f, "log"));
    json_begin_object(w, "trace_files");
    for (int i = 0; i < f->n_traces; i++)
        json_string(w, f->traces[i].format, f->traces[i].path);
    json_end_object(w);
    json_string(w, "stdout_file", f->stdout_file);
    json_string(w, "stderr_file", f->stderr_file);
    json_string(w, "message", r->message);
    report_json_checker_evidence(w, r);
    json_string(w, "location", r->location);
    json_string(w, "function", r->function);
    json_int(w, "thread", r->thread);
    json_uint(w, "steps", r->steps);
    json_bool(w, "reproduced", f->reproduced);
    /* Found, saved at once (--keep-going), not recorded again: stopped. */
    json_bool(w, "recorded", !f->saved_only);
    json_string_or_null(w, "not_written", f->unwritten[0] ? f->unwritten : NULL);
    json_bool(w, "shrunk", f->shrunk);
    if (f->shrunk) {
        json_uint(w, "preemptions", f->preemptions);
        json_uint(w, "original_steps", f->original_steps);
        json_uint(w, "original_preemptions", f->original_preemptions);
        json_string_or_null(w, "original_schedule_file", f->original_file[0] ? f->original_file : NULL);
        json_uint(w, "shrink_runs", f->shrink_runs);
        json_double(w, "shrink_seconds", f->shrink_seconds);
        json_bool(w, "shrink_stopped_by_time", f->shrink_out_of_time);
    }
    json_begin_array(w, "threads");
    for (int i = 0; i < r->n_threads; i++) {
        const struct failure_thread *t = &r->threads[i];
        json_begin_object(w, NULL);
        json_int(w, "id", t->id);
        json_string(w, "state", t->state);
        json_string(w, "start", t->start);
        json_string(w, "location", t->location);
        json_string(w, "waiting_on", t->waiting_on);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

void report_json_outcome(struct json_writer *w, const struct outcome *o, uint64_t total)
{
    const struct outcome_key *k = &o->key;
    json_begin_object(w, NULL);
    json_uint(w, "count", o->count);
    json_double(w, "share", total ? (double)o->count / (double)total : 0);
    json_string(w, "failure", failure_kind_name((enum failure_kind)k->kind));
    json_string_or_null(w, "location", k->location[0] ? k->location : NULL);
    json_bool(w, "exited", k->exited);
    if (k->exited)
        json_int(w, "exit_status", k->exit_status);
    else
        json_string_or_null(w, "exit_status", NULL);
    if (k->term_signal)
        json_int(w, "term_signal", k->term_signal);
    else
        json_string_or_null(w, "term_signal", NULL);
    json_string_or_null(w, "incomplete",
                        !k->incomplete ? NULL : k->incomplete == INCOMPLETE_TIME ? "time-limit" : "step-limit");
    json_begin_object(w, "watches");
    for (const char *p = k->watches; *p;) {
        size_t n = strcspn(p, "\n");
        const char *eq = strstr(p, " = ");
        if (eq && (size_t)(eq - p) < n) {
            char name[128], value[512];
            snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
            snprintf(value, sizeof value, "%.*s", (int)(n - (size_t)(eq - p) - 3), eq + 3);
            json_string(w, name, value);
        }
        p += n + (p[n] == '\n');
    }
    json_end_object(w);
    json_string_or_null(w, "stdout_sha256", k->stdout_sha256[0] ? k->stdout_sha256 : NULL);
    char text[1024];
    outcome_describe(k, text, sizeof text);
    json_string(w, "text", text);
    json_uint(w, "execution", o->execution);
    json_string(w, "schedule_file", o->schedule_file);
    json_bool(w, "reproduced", o->reproduced);
    json_end_object(w);
}

/* --outcomes: each outcome's parts, count, share and schedule. */
static void write_outcomes(struct json_writer *w, const struct explore_summary *sum)
{
    uint64_t total = outcome_table_total(&sum->outcomes);
    json_begin_array(w, "outcomes");
    for (size_t i = 0; i < sum->outcomes.n; i++)
        report_json_outcome(w, &sum->outcomes.at[i], total);
    json_end_array(w);
}

/* What makes the shards of one run one exploration: every setting that
 * decides what an execution does or how it is judged. Not -j, -o or where
 * the program lies (shards may run on other machines). */
static void write_shard_settings(struct json_writer *w, const struct run_description *run)
{
    const struct explore_options *o = run->opt;
    json_begin_object(w, "settings");
    json_string(w, "program_sha256", run->prog->sha256);
    json_string_array(w, "args", (const char *const *)o->argv + 1, o->argc - 1);
    json_uint(w, "schedules", o->schedules);
    json_uint(w, "seed", o->seed);
    json_string(w, "strategy", o->strategy);
    json_int(w, "depth", o->depth);
    json_uint(w, "max_steps", o->max_steps);
    json_double(w, "timeout_seconds", o->timeout_sec);
    json_double(w, "time_limit_seconds", o->time_limit_sec);
    json_uint(w, "max_output", o->max_output);
    json_string_or_null(w, "input_sha256", o->input && o->input->fd >= 0 ? o->input->sha256 : NULL);
    json_string_or_null(w, "check", o->check_cmd);
    json_bool(w, "fail_on_exit", o->fail_on_exit);
    json_int(w, "races", (int)o->detect.races);
    json_string_array(w, "invariants", o->detect.invariants, o->detect.n_invariants);
    json_string_array(w, "watches", o->watches, o->n_watches);
    json_int(w, "preempt", (int)o->preempt);
    json_bool(w, "tso", o->tso);
    json_bool(w, "keep_going", o->keep_going);
    json_bool(w, "outcomes", o->outcomes);
    json_bool(w, "shrink", o->shrink);
    json_uint(w, "shrink_runs", o->shrink_runs);
    json_double(w, "shrink_seconds", o->shrink_seconds);
    json_end_object(w);
}

bool report_json_write(const char *path, const struct run_description *run, const struct explore_summary *sum,
                       char *err, size_t errlen)
{
    struct safe_file sf;
    FILE *f = safe_file_open(&sf, path, err, errlen);
    if (!f)
        return false;
    struct json_writer w = {.f = f};
    json_begin_object(&w, NULL);
    json_string(&w, "mdat_version", MDAT_VERSION);
    if (run->shards > 0) {
        json_string(&w, "format", RUN_SHARD_FORMAT);
        json_uint(&w, "format_version", 1);
        json_int(&w, "shard", run->shard);
        json_int(&w, "shards", run->shards);
        write_shard_settings(&w, run);
    }
    json_string(&w, "program", run->program);
    json_begin_array(&w, "args");
    for (int i = 0; i < run->n_args; i++)
        json_string(&w, NULL, run->args[i]);
    json_end_array(&w);
    json_string(&w, "strategy", run->strategy);
    json_uint(&w, "seed", run->seed);
    json_uint(&w, "schedules_requested", run->schedules_requested);
    json_uint(&w, "schedules_run", sum->schedules_run);
    json_bool(&w, "complete", !run->stopped && !run->cut_short);
    if (run->cut_short)
        json_string(&w, "cut_short", run->cut_short);
    json_double(&w, "elapsed_seconds", sum->elapsed_sec);
    json_uint(&w, "visible_steps_total", sum->steps_total);
    json_uint(&w, "ptrace_stops_total", sum->ptrace_stops_total);
    json_begin_object(&w, "ptrace_stops_by_reason");
    for (int k = 0; k < STOP_REASON_COUNT; k++)
        json_uint(&w, stop_reason_name((enum stop_reason)k), sum->ptrace_stops_by_reason[k]);
    json_end_object(&w);
    json_uint(&w, "incomplete", sum->incomplete);
    json_uint(&w, "incomplete_steps_max", sum->incomplete_steps);
    if (sum->systematic) {
        json_bool(&w, "exhaustive", sum->exhaustive);
        json_uint(&w, "classes", sum->classes);
        if (sum->grounds_executions > 0) {
            json_begin_object(&w, "grounds_lost");
            json_string(&w, "kind", grounds_kind_name(sum->grounds.kind));
            json_string(&w, "what", sum->grounds.what);
            json_uint(&w, "execution", sum->grounds_execution);
            json_uint(&w, "step", sum->grounds.step);
            json_int(&w, "thread", sum->grounds.thread);
            json_uint(&w, "executions", sum->grounds_executions);
            json_end_object(&w);
        }
        if (sum->bound >= 0)
            json_int(&w, "bound", sum->bound);
    }
    json_begin_array(&w, "failures");
    for (size_t i = 0; i < sum->n_failures; i++)
        write_failure(&w, run, &sum->failures[i]);
    json_end_array(&w);
    if (sum->outcomes.n > 0) {
        if (!sum->systematic)   /* (a systematic search said it above) */
            json_bool(&w, "exhaustive", sum->exhaustive);
        write_outcomes(&w, sum);
    }
    json_end_object(&w);
    return safe_file_commit(&sf, err, errlen);
}
