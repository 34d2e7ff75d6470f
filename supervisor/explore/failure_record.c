/* failure_record: a found failure saved with its trace, schedule and output
 * (see failure_record.h). */
#include "supervisor/explore/failure_record.h"
#include "supervisor/explore/failure_files.h"
#include "supervisor/explore/sha256.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/explore/shrink.h"
#include "supervisor/detect/cause_steps.h"
#include "supervisor/trace/safe_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "PATH (reason)" of a file that could not be written, after the others. */
static void note_unwritten(struct explore_failure *f, const char *why)
{
    size_t used = strlen(f->unwritten);
    const char *what = strncmp(why, "cannot write ", 13) == 0 ? why + 13 : why;
    if (used + 1 < sizeof f->unwritten)
        snprintf(f->unwritten + used, sizeof f->unwritten - used, "%s%s", used ? ", " : "", what);
}

/* A copy of what fd captured, whole or not at all. */
static void copy_fd_to_file(int fd, const char *path, struct explore_failure *f)
{
    char err[PATH_MAX + 100];
    struct safe_file sf;
    FILE *out = safe_file_open(&sf, path, err, sizeof err);
    if (!out) {
        note_unwritten(f, err);
        return;
    }
    lseek(fd, 0, SEEK_SET);
    char buf[65536];
    ssize_t n;
    bool ok = true;
    while (ok && (n = read(fd, buf, sizeof buf)) > 0)
        ok = fwrite(buf, 1, (size_t)n, out) == (size_t)n;
    if (!ok) {
        snprintf(err, sizeof err, "%s: %s", path, strerror(errno));
        safe_file_abort(&sf);
        note_unwritten(f, err);
    } else if (!safe_file_commit(&sf, err, sizeof err)) {
        note_unwritten(f, err);
    }
}

/* Opens one file per format of opt->saved_trace_formats, named stem + its
 * suffix, each under a temporary name (files[i]), as branches of tee. One
 * that cannot be opened is left out and said in f. */
static void open_saved_traces(const struct explore_options *opt, const char *stem, struct explore_failure *f,
                              struct trace_tee *tee, struct safe_file files[TRACE_TEE_MAX])
{
    for (int i = 0; opt->saved_trace_formats && opt->saved_trace_formats[i] && f->n_traces < TRACE_TEE_MAX; i++) {
        const struct trace_format *format = opt->saved_trace_formats[i];
        struct saved_trace *t = &f->traces[f->n_traces];
        t->format = format->name;
        snprintf(t->path, sizeof t->path, "%s%s", stem, format->suffix);
        char err[PATH_MAX + 100];
        FILE *out = safe_file_open(&files[f->n_traces], t->path, err, sizeof err);
        if (!out) {
            note_unwritten(f, err);
            continue;
        }
        trace_tee_add(tee, format, out, false);
        f->n_traces++;
    }
}

/* Renames the traces of open_saved_traces into place (keep) or drops them;
 * one that could not be written completely is dropped, said in f, and no
 * longer among f's traces. */
static void close_saved_traces(struct trace_tee *tee, struct explore_failure *f, struct safe_file files[TRACE_TEE_MAX],
                               bool keep)
{
    int kept = 0;
    for (int i = 0; i < tee->n; i++) {
        char err[PATH_MAX + 100];
        if (!keep) {
            safe_file_abort(&files[i]);
            continue;
        }
        if (!safe_file_commit(&files[i], err, sizeof err)) {
            note_unwritten(f, err);
            continue;
        }
        f->traces[kept++] = f->traces[i];
    }
    f->n_traces = kept;
}

/* Drops the traces being written (only those that could not be written
 * all: failed_only) to make room for the schedule, saying so in f. */
static void drop_traces(struct trace_tee *tee, struct explore_failure *f, struct safe_file files[TRACE_TEE_MAX],
                        bool failed_only)
{
    int kept = 0;
    for (int i = 0; i < tee->n; i++) {
        bool failed = fflush(files[i].f) != 0 || ferror(files[i].f);
        if (failed || !failed_only) {
            char why[PATH_MAX + 100];
            snprintf(why, sizeof why, "%s: %s", f->traces[i].path,
                     failed ? "could not be written whole" : "dropped to make room for the schedule");
            safe_file_abort(&files[i]);
            note_unwritten(f, why);
            continue;
        }
        files[kept] = files[i];
        tee->branch[kept] = tee->branch[i];
        f->traces[kept++] = f->traces[i];
    }
    tee->n = kept;
    f->n_traces = kept;
}

/* The steps a recording renders at most: the traces' tails (in whole
 * segments) and the events the cause steps are looked for in. */
enum { RECORDED_STEPS = (CAUSE_BOOK_EVENTS > TRACE_TAIL_STEPS + 2 * TRACE_SEGMENT_STEPS
                             ? CAUSE_BOOK_EVENTS
                             : TRACE_TAIL_STEPS + 2 * TRACE_SEGMENT_STEPS) };

/* The options of a run that records or shrinks: output captured, and
 * recording costs more per step than exploring did, so no wall-clock limit
 * the exploring run did not hit may cut it short. A hang keeps its
 * --timeout (it is what reproduces it); anything else gets room. */
static struct explore_options recording_options(const struct explore_options *opt, enum failure_kind found)
{
    struct explore_options quiet = *opt;
    quiet.show_output = false;
    quiet.trace = NULL;
    quiet.time_limit_sec = 0;
    if (found != FAIL_HANG && quiet.timeout_sec > 0)
        quiet.timeout_sec = quiet.timeout_sec * 10 > 60 ? quiet.timeout_sec * 10 : 60;
    return quiet;
}

/* The strategy that makes execution index's choices again: its own
 * (taught by profile, as in the batch), or a replay of choices when it
 * cannot make them from (seed, index) alone. */
static struct strategy *strategy_again(const struct explore_options *opt, uint64_t index,
                                       const struct strategy_profile *profile, const struct choice_list *choices)
{
    struct strategy *strat = choices ? strategy_replay_new(choices) : strategy_for_options(opt);
    strategy_teach(strat, index, profile);
    return strat;
}

/* Shrinks the failing execution w, which strat (taken) makes again (not a
 * hang: each re-execution would wait out its timeout). The original's
 * schedule goes to stem.original.sched when shrinking changed it. */
static bool shrink_found(struct program *prog, const struct explore_options *opt,
                         const struct explore_options *quiet, const struct wire_result *w,
                         uint64_t estimate, struct strategy *strat, const char *stem, const char *stdin_file,
                         struct explore_failure *f, struct shrink_outcome *sh, char *err, size_t errlen)
{
    struct run_io io = run_io_single(prog, quiet, strat, false);
    struct exec_result orig;
    bool ok = run_one(prog, quiet, strat, w->index, estimate, &io, NULL, &orig);
    strategy_free(strat);
    run_io_end(&io);
    if (!ok) {
        snprintf(err, errlen, "%s", orig.error_message);
        exec_result_free(&orig);
        return false;
    }
    /* On disk before the shrinking, which may take long: whatever stops
     * mdat meanwhile, the failure stays replayable. (With --keep-going it
     * was saved when it was found.) */
    if (!opt->keep_going && orig.kind == f->found &&
        !failure_write_schedule(prog, opt, w->index, &orig.choices, orig.steps, orig.kind, stdin_file, NULL,
                                f->schedule_file, err, errlen)) {
        exec_result_free(&orig);
        return false;
    }
    if (orig.kind == f->found && strcmp(orig.location, w->location) == 0)
        ok = shrink_failure(prog, quiet, w->index, &orig.choices, orig.kind, orig.location, sh, err, errlen);
    if (ok && sh->shrunk) {
        f->shrunk = true;
        f->steps = sh->steps;
        f->preemptions = sh->preemptions;
        f->original_steps = sh->original_steps;
        f->original_preemptions = sh->original_preemptions;
        f->shrink_runs = sh->runs;
        f->shrink_seconds = sh->seconds;
        f->shrink_out_of_time = sh->out_of_time;
        if (sh->steps != sh->original_steps || sh->preemptions != sh->original_preemptions) {
            snprintf(f->original_file, sizeof f->original_file, "%s.original.sched", stem);
            ok = failure_write_schedule(prog, opt, w->index, &orig.choices, orig.steps, orig.kind, stdin_file,
                                        NULL, f->original_file, err, errlen);
        }
    }
    exec_result_free(&orig);
    return ok;
}

/* Re-runs a failing execution (shrunk first with opt->shrink) once with its
 * trace recorded in every saved format, and saves schedule, traces and
 * output into the output directory: the schedule first, each file whole
 * or not at all, and what could not be written is said in f. */
bool record_failure(struct program *prog, const struct explore_options *opt, const struct wire_result *w,
                    uint64_t estimate, const struct strategy_profile *profile, const struct choice_list *choices,
                    struct explore_failure *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->execution = w->index;
    f->found = (enum failure_kind)w->kind;
    char stem[PATH_MAX];
    failure_stem(prog, opt, f->found, w->index, stem, sizeof stem);
    snprintf(f->schedule_file, sizeof f->schedule_file, "%s.sched", stem);
    snprintf(f->stdout_file, sizeof f->stdout_file, "%s.stdout", stem);
    snprintf(f->stderr_file, sizeof f->stderr_file, "%s.stderr", stem);
    const char *stdin_file = NULL;
    char input_file[PATH_MAX];
    if (!failure_save_input(opt, stem, input_file, &stdin_file, err, errlen))
        return false;
    struct explore_options quiet = recording_options(opt, f->found);
    struct shrink_outcome sh = {0};
    if (opt->shrink && f->found != FAIL_HANG &&
        !shrink_found(prog, opt, &quiet, w, estimate, strategy_again(opt, w->index, profile, choices), stem, stdin_file, f,
                      &sh, err, errlen)) {
        shrink_outcome_free(&sh);
        return false;
    }

    /* Only the last steps are kept (the traces' tails, the cause steps):
     * the steps before them are neither rendered nor shown a state, which
     * is most of what a recording costs. Which steps those are comes from
     * the execution as found; a re-run that ends elsewhere (a program mdat
     * does not run deterministically) is recorded again whole. */
    uint64_t expected = f->shrunk ? sh.steps : w->steps;
    uint64_t skip_to = opt->full_trace || expected <= RECORDED_STEPS ? 0 : expected - RECORDED_STEPS + 1;
    struct trace_tee tee;
    struct safe_file files[TRACE_TEE_MAX];
    struct run_io io;
    bool ok;
    for (;;) {
        tee = (struct trace_tee){0};
        trace_tee_bound(&tee, opt->full_trace ? 0 : TRACE_TAIL_STEPS);
        trace_tee_skip_to(&tee, skip_to);
        open_saved_traces(opt, stem, f, &tee, files);
        struct strategy *strat =
            f->shrunk ? strategy_replay_new(&sh.choices) : strategy_again(opt, w->index, profile, choices);
        io = run_io_single(prog, &quiet, strat, false);
        ok = run_one(prog, &quiet, strat, w->index, estimate, &io, &tee, &f->result);
        strategy_free(strat);
        if (!ok || skip_to == 0 || f->result.steps == expected || (opt->stop && *opt->stop))
            break;
        close_saved_traces(&tee, f, files, false);
        run_io_end(&io);
        exec_result_free(&f->result);
        skip_to = 0;
    }
    if (!ok)
        snprintf(err, errlen, "%s", f->result.error_message);
    bool keep_traces = ok;
    if (ok) {
        f->reproduced = f->result.kind == f->found;
        /* The schedule first: traces that could not be written all (a
         * full disk) make room for it, and if it still does not fit, all
         * of them. */
        drop_traces(&tee, f, files, true);
        ok = keep_traces = failure_write_schedule(prog, opt, w->index, &f->result.choices, f->result.steps,
                                                  f->result.kind, stdin_file, f->shrunk ? &sh : NULL,
                                                  f->schedule_file, err, errlen);
        if (!ok && tee.n > 0) {
            drop_traces(&tee, f, files, false);
            ok = keep_traces = failure_write_schedule(prog, opt, w->index, &f->result.choices, f->result.steps,
                                                      f->result.kind, stdin_file, f->shrunk ? &sh : NULL,
                                                      f->schedule_file, err, errlen);
        }
        if (!ok && access(f->schedule_file, F_OK) == 0) {
            /* The schedule saved when the failure was found (or before it
             * was shrunk) is still there, whole, and replays: it stands.
             * The recording's traces go with it only if it is the same
             * execution. */
            note_unwritten(f, err);
            keep_traces = !f->shrunk;
            if (f->shrunk) {
                f->shrunk = false;
                if (f->original_file[0])
                    unlink(f->original_file);   /* the same as the schedule now */
                f->original_file[0] = '\0';
                if (tee.n > 0)
                    note_unwritten(f, "the traces of the shrunk execution (its schedule was not written)");
            }
            ok = true;
        }
    }
    if (ok && !sha256_file(f->schedule_file, f->schedule_sha256))
        f->schedule_sha256[0] = '\0';
    close_saved_traces(&tee, f, files, keep_traces);
    if (ok) {
        copy_fd_to_file(io.out_fd, f->stdout_file, f);
        copy_fd_to_file(io.err_fd, f->stderr_file, f);
    }
    run_io_end(&io);
    shrink_outcome_free(&sh);
    return ok;
}

bool record_outcome(struct program *prog, const struct explore_options *opt, struct outcome *o, size_t rank,
                    uint64_t estimate, const struct strategy_profile *profile, const struct choice_list *choices,
                    char *err, size_t errlen)
{
    char stem[PATH_MAX], ranked[32] = "";
    if (rank)
        snprintf(ranked, sizeof ranked, "%zu", rank);
    snprintf(stem, sizeof stem, "%s/%s-outcome%s-s%" PRIu64 "-e%" PRIu64, opt->out_dir, base_name(prog->path), ranked,
             opt->seed, o->execution);
    snprintf(o->schedule_file, sizeof o->schedule_file, "%s.sched", stem);
    const char *stdin_file;
    char input_file[PATH_MAX];
    if (!failure_save_input(opt, stem, input_file, &stdin_file, err, errlen))
        return false;
    struct explore_options quiet = recording_options(opt, (enum failure_kind)o->key.kind);
    struct strategy *strat = strategy_again(opt, o->execution, profile, choices);
    struct run_io io = run_io_single(prog, &quiet, strat, false);
    struct exec_result res;
    bool ok = run_one(prog, &quiet, strat, o->execution, estimate, &io, NULL, &res);
    strategy_free(strat);
    if (ok) {
        struct outcome_key again;
        outcome_key_of(&res, io.out_fd, &again);
        o->reproduced = outcome_key_equal(&again, &o->key);
    }
    run_io_end(&io);

    if (!ok)
        snprintf(err, errlen, "%s", res.error_message);
    else
        ok = failure_write_schedule(prog, opt, o->execution, &res.choices, res.steps, res.kind, stdin_file, NULL,
                                    o->schedule_file, err, errlen);
    exec_result_free(&res);
    return ok;
}
