/* failure_record: a found failure saved with its trace, schedule and output
 * (see failure_record.h). */
#include "supervisor/explore/failure_record.h"
#include "supervisor/explore/one_execution.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool copy_fd_to_file(int fd, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    lseek(fd, 0, SEEK_SET);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, f);
    return fclose(f) == 0;
}

/* Opens one file per format of opt->saved_trace_formats, named stem + its
 * suffix, as branches of tee. */
static bool open_saved_traces(const struct explore_options *opt, const char *stem, struct explore_failure *f,
                              struct trace_tee *tee, char *err, size_t errlen)
{
    for (int i = 0; opt->saved_trace_formats && opt->saved_trace_formats[i]; i++) {
        const struct trace_format *format = opt->saved_trace_formats[i];
        if (f->n_traces == TRACE_TEE_MAX) {
            snprintf(err, errlen, "more than %d trace formats to save", TRACE_TEE_MAX);
            return false;
        }
        struct saved_trace *t = &f->traces[f->n_traces];
        t->format = format->name;
        snprintf(t->path, sizeof t->path, "%s%s", stem, format->suffix);
        FILE *out = fopen(t->path, "w");
        if (!out) {
            snprintf(err, errlen, "cannot write %s: %s", t->path, strerror(errno));
            return false;
        }
        trace_tee_add(tee, format, out, false);
        f->n_traces++;
    }
    return true;
}

/* Closes the files of open_saved_traces; false with a reason if one could
 * not be written completely. */
static bool close_saved_traces(struct trace_tee *tee, const struct explore_failure *f, bool ok, char *err,
                               size_t errlen)
{
    for (int i = 0; i < tee->n; i++) {
        if (fclose(tee->branch[i].out) != 0 && ok) {
            snprintf(err, errlen, "cannot write %s: %s", f->traces[i].path, strerror(errno));
            ok = false;
        }
    }
    return ok;
}

/* Re-runs a failing execution once with its trace recorded in every saved
 * format, and saves schedule, traces and output into the output directory. */
bool record_failure(struct program *prog, const struct explore_options *opt, const struct wire_result *w,
                    uint64_t estimate, const struct strategy_profile *profile, const struct choice_list *choices,
                    struct explore_failure *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->execution = w->index;
    f->found = (enum failure_kind)w->kind;
    char stem[PATH_MAX];
    snprintf(stem, sizeof stem, "%s/%s-%s-s%" PRIu64 "-e%" PRIu64, opt->out_dir, base_name(prog->path),
             failure_kind_name(f->found), opt->seed, w->index);
    snprintf(f->schedule_file, sizeof f->schedule_file, "%s.sched", stem);
    snprintf(f->stdout_file, sizeof f->stdout_file, "%s.stdout", stem);
    snprintf(f->stderr_file, sizeof f->stderr_file, "%s.stderr", stem);

    struct trace_tee tee = {0};
    trace_tee_bound(&tee, opt->full_trace ? 0 : TRACE_TAIL_STEPS);
    if (!open_saved_traces(opt, stem, f, &tee, err, errlen))
        return close_saved_traces(&tee, f, false, err, errlen);
    struct explore_options quiet = *opt;
    quiet.show_output = false;
    /* Recording costs more per step than exploring did: no wall-clock
     * limit the exploring run did not hit may cut it short. A hang keeps
     * its --timeout (it is what reproduces it); anything else gets room. */
    quiet.time_limit_sec = 0;
    if (f->found != FAIL_HANG && quiet.timeout_sec > 0)
        quiet.timeout_sec = quiet.timeout_sec * 10 > 60 ? quiet.timeout_sec * 10 : 60;
    struct run_io io = run_io_open(false, false);
    struct strategy *strat = choices ? strategy_replay_new(choices) : strategy_for_options(opt);
    if (profile && w->index > 0 && strat->ops->use_profile && profile->filled)
        strat->ops->use_profile(strat, profile);
    bool ok = run_one(prog, &quiet, strat, w->index, estimate, &io, &tee, &f->result);
    strategy_free(strat);
    copy_fd_to_file(io.out_fd, f->stdout_file);
    copy_fd_to_file(io.err_fd, f->stderr_file);
    run_io_close(&io);
    if (!ok) {
        snprintf(err, errlen, "%s", f->result.error_message);
        return close_saved_traces(&tee, f, false, err, errlen);
    }
    if (!close_saved_traces(&tee, f, true, err, errlen))
        return false;
    f->reproduced = f->result.kind == f->found;

    struct schedule s;
    schedule_init(&s);
    schedule_set_program(&s, prog->path, opt->argv + 1, opt->argc - 1);
    snprintf(s.sha256, sizeof s.sha256, "%s", prog->sha256);
    if (strcmp(opt->strategy, "portfolio") == 0)
        snprintf(s.strategy, sizeof s.strategy, "portfolio/%s", strategy_portfolio_member(w->index));
    else
        snprintf(s.strategy, sizeof s.strategy, "%s", opt->strategy);
    s.depth = opt->depth;
    s.seed = opt->seed;
    s.execution = w->index;
    s.steps = f->result.steps;
    s.max_steps = opt->max_steps;
    s.timeout_sec = opt->timeout_sec;
    if (opt->input && opt->input->fd >= 0) {
        char input_file[PATH_MAX];
        snprintf(input_file, sizeof input_file, "%s.stdin", stem);
        if (!program_input_save(opt->input, input_file, err, errlen)) {
            schedule_free(&s);
            return false;
        }
        s.stdin_file = strdup(base_name(input_file));  /* beside the schedule */
        snprintf(s.stdin_sha256, sizeof s.stdin_sha256, "%s", opt->input->sha256);
    }
    s.fail_on_exit = opt->fail_on_exit;
    s.preempt = opt->preempt;
    s.tso = opt->tso;
    s.races = opt->detect.races;
    schedule_set_invariants(&s, opt->detect.invariants, opt->detect.n_invariants);
    if (opt->limits)
        s.limits = *opt->limits;
    s.check_cmd = opt->check_cmd ? strdup(opt->check_cmd) : NULL;
    snprintf(s.failure, sizeof s.failure, "%s", failure_kind_name(f->result.kind));
    for (size_t i = 0; i < f->result.choices.n; i++) {
        const struct choice *c = &f->result.choices.at[i];
        choice_list_add(&s.choices, c->step, c->kind, c->thread);
    }
    bool written = schedule_write(&s, f->schedule_file, err, errlen);
    schedule_free(&s);
    return written;
}
