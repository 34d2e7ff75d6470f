/* failure_files: where the files of a failing execution go
 * (OUT/PROG-KIND-sSEED-eINDEX.*), and its schedule and input saved (each
 * whole or not at all): by the worker that finds a failure with
 * --keep-going, and by failure_record.c. Knows nothing of workers or of
 * recording. */
#include "supervisor/explore/failure_files.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/strategies/strategies.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What every file of execution index, found failing as kind, is named
 * from: OUT/PROG-KIND-sSEED-eINDEX. */
void failure_stem(const struct program *prog, const struct explore_options *opt, enum failure_kind kind,
                         uint64_t index, char *stem, size_t len)
{
    snprintf(stem, len, "%s/%s-%s-s%" PRIu64 "-e%" PRIu64, opt->out_dir, base_name(prog->path),
             failure_kind_name(kind), opt->seed, index);
}

/* The schedule file of an execution of opt's batch that made choices and
 * ended as kind after steps; sh (NULL: none) says what it was shrunk from. */
bool failure_write_schedule(const struct program *prog, const struct explore_options *opt, uint64_t index,
                            const struct choice_list *choices, uint64_t steps, enum failure_kind kind,
                            const char *stdin_file, const struct shrink_outcome *sh, const char *path, char *err,
                            size_t errlen)
{
    struct schedule s;
    schedule_init(&s);
    schedule_set_program(&s, prog->path, opt->argv + 1, opt->argc - 1);
    snprintf(s.sha256, sizeof s.sha256, "%s", prog->sha256);
    strategy_recorded_name(opt->strategy, index, s.strategy, sizeof s.strategy);
    s.depth = opt->depth;
    s.seed = opt->seed;
    s.execution = index;
    s.steps = steps;
    s.max_steps = opt->max_steps;
    s.max_output = opt->max_output;
    s.timeout_sec = opt->timeout_sec;
    if (stdin_file) {
        s.stdin_file = strdup(stdin_file);
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
    snprintf(s.failure, sizeof s.failure, "%s", failure_kind_name(kind));
    if (sh) {
        s.preemptions = sh->preemptions;
        s.shrunk_from_steps = sh->original_steps;
        s.shrunk_from_preemptions = sh->original_preemptions;
    }
    choice_list_copy(&s.choices, choices);

    bool written = schedule_write(&s, path, err, errlen);
    schedule_free(&s);
    return written;
}

/* The program's input saved as stem.stdin, beside the schedule that names
 * it (*name, NULL when the program reads nothing). */
bool failure_save_input(const struct explore_options *opt, const char *stem, char file[PATH_MAX], const char **name,
                        char *err, size_t errlen)
{
    *name = NULL;
    if (!opt->input || opt->input->fd < 0)
        return true;
    snprintf(file, PATH_MAX, "%s.stdin", stem);
    if (!program_input_save(opt->input, file, err, errlen))
        return false;
    *name = base_name(file);
    return true;
}

void failure_schedule_path(const struct program *prog, const struct explore_options *opt, enum failure_kind kind,
                           uint64_t index, char *path, size_t len)
{
    char stem[PATH_MAX];
    failure_stem(prog, opt, kind, index, stem, sizeof stem);
    snprintf(path, len, "%s.sched", stem);
}

bool failure_save_found(const struct program *prog, const struct explore_options *opt, uint64_t index,
                        const struct exec_result *res, char *path, size_t pathlen, char *err, size_t errlen)
{
    char stem[PATH_MAX], input_file[PATH_MAX];
    failure_stem(prog, opt, res->kind, index, stem, sizeof stem);
    snprintf(path, pathlen, "%s.sched", stem);
    const char *stdin_file;
    return failure_save_input(opt, stem, input_file, &stdin_file, err, errlen) &&
           failure_write_schedule(prog, opt, index, &res->choices, res->steps, res->kind, stdin_file, NULL, path, err, errlen);
}

void failure_forget_found(const struct program *prog, const struct explore_options *opt, uint64_t index,
                          enum failure_kind kind)
{
    char stem[PATH_MAX], path[PATH_MAX + 16];
    failure_stem(prog, opt, kind, index, stem, sizeof stem);
    snprintf(path, sizeof path, "%s.sched", stem);
    unlink(path);
    snprintf(path, sizeof path, "%s.stdin", stem);
    unlink(path);
}

