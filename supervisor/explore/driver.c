/* driver: the two entry points of explore.h. explore_run is the batch behind
 * `mdat run` (execution 0 first for PCT's estimate, the rest in workers,
 * then each reported failure recorded); explore_replay re-executes one
 * schedule with the settings it records. */
#include "supervisor/explore/explore.h"
#include "supervisor/explore/failure_files.h"
#include "supervisor/explore/failure_record.h"
#include "supervisor/explore/observe_choice.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/explore/shrink.h"
#include "supervisor/explore/systematic.h"
#include "supervisor/explore/workers.h"
#include "supervisor/launch/pages_setup.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct strategy *strategy_by_name(const char *name, int depth, uint64_t budget)
{
    if (strcmp(name, "random") == 0)
        return strategy_random_new();
    if (strcmp(name, "pct") == 0)
        return strategy_pct_new(depth, budget);
    if (strcmp(name, "pos") == 0)
        return strategy_pos_new();
    if (strcmp(name, "surw") == 0)
        return strategy_surw_new();
    if (strcmp(name, "portfolio") == 0)
        return strategy_portfolio_new(depth, budget);
    if (strcmp(name, "dfs") == 0)
        return strategy_dfs_new(DFS_PREEMPTIONS, -1);
    if (strcmp(name, "dpor") == 0)
        return strategy_dpor_new();
    return NULL;
}

struct strategy *strategy_for_options(const struct explore_options *opt)
{
    if (strcmp(opt->strategy, "dfs") == 0)
        return strategy_dfs_new(opt->dfs_bound == DFS_DELAYS ? DFS_DELAYS : DFS_PREEMPTIONS, opt->max_bound);
    return strategy_by_name(opt->strategy, opt->depth, opt->schedules);
}

void strategy_recorded_name(const char *name, uint64_t index, char *buf, size_t len)
{
    if (strcmp(name, "portfolio") == 0)
        snprintf(buf, len, "portfolio/%s", strategy_portfolio_member(index));
    else
        snprintf(buf, len, "%s", name);
}

void strategy_teach(struct strategy *s, uint64_t index, const struct strategy_profile *profile)
{
    if (profile && index > 0 && s->ops->use_profile && profile->filled)
        s->ops->use_profile(s, profile);
}

bool strategy_name_known(const char *name)
{
    static const char *const names[] = {"random", "pct", "pos", "surw", "portfolio", "dfs", "dpor"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

void strategy_settings_text(const char *name, int depth, char *buf, size_t len)
{
    if (strcmp(name, "pct") == 0)
        snprintf(buf, len, depth ? " (depth %d)" : " (depth chosen per execution)", depth);
    else if (strcmp(name, "portfolio") == 0 && depth)
        snprintf(buf, len, " (pct, pos, surw, random and bounded in turn; pct depth %d)", depth);
    else if (strcmp(name, "portfolio") == 0)
        snprintf(buf, len, " (pct, pos, surw, random and bounded in turn; pct depth chosen per execution)");
    else if (len)
        buf[0] = '\0';
}

bool strategy_is_systematic(const char *name)
{
    return name && (strcmp(name, "dfs") == 0 || strcmp(name, "dpor") == 0);
}

static int cmp_wire_index(const void *a, const void *b)
{
    uint64_t x = ((const struct wire_result *)a)->index, y = ((const struct wire_result *)b)->index;
    return x < y ? -1 : x > y;
}

bool make_directories(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    if (stat(buf, &st) != 0)
        return false;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return false;
    }
    return true;
}

/* Makes opt's resource limits those of every program spawned from now on
 * (NULL: none), turning the nproc allowance into the user-wide count that
 * RLIMIT_NPROC wants: what the user runs now, plus for each worker itself
 * and its allowance. */
static void install_limits(const struct explore_options *opt)
{
    if (!opt->limits) {
        spawn_set_limits(NULL);
        return;
    }
    struct spawn_limits l = *opt->limits;
    if (l.nproc)
        l.nproc = spawn_user_tasks() + (uint64_t)(opt->jobs > 1 ? opt->jobs : 1) * (l.nproc + 1);
    spawn_set_limits(&l);
}

static void probe_emit(void *ctx, const struct wire_result *w)
{
    *(struct wire_result *)ctx = *w;
}

/* Runs execution 0 alone, uncounted, for its length (a range that starts
 * later still needs PCT's estimate). */
static bool probe_estimate(struct program *prog, const struct explore_options *opt, struct shared_state *shared,
                           uint64_t *estimate, char *err, size_t errlen)
{
    struct explore_options quiet = *opt;
    quiet.schedules = 1;
    quiet.show_output = false;
    quiet.trace = NULL;
    quiet.check_cmd = NULL;     /* its verdict does not count */
    struct wire_result w = {.error = 1};
    snprintf(w.error_message, sizeof w.error_message, "execution 0 did not run");
    worker_loop(prog, &quiet, 0, 1, FIRST_ESTIMATE, shared, probe_emit, &w);
    shared->lowest_failure = UINT64_MAX;
    if (w.error) {
        snprintf(err, errlen, "%s", w.error_message);
        return false;
    }
    *estimate = w.steps > 0 ? w.steps : FIRST_ESTIMATE;
    return true;
}

/* Page ownership wherever it keeps every verdict as it is: not for a
 * systematic search (its classes are made of every access), x86-TSO
 * (stores wait in buffers only at steps), invariants and watched values
 * (judged and shown after every access), or a static program (libc's
 * own data is the program's there). MDAT_NO_PAGE_OWNERSHIP=1 turns it
 * off (launch/pages_setup.c), as does a machine without protection keys. */
static bool explore_owns_pages(const struct program *prog, const struct explore_options *opt)
{
    return !strategy_is_systematic(opt->strategy) && !opt->tso && opt->detect.n_invariants == 0 &&
           opt->n_watches == 0 && !elf_image_is_static(debuginfo_elf(prog->debug));
}

/* A failure found but not recorded again (a signal stopped mdat): what the
 * worker said of it, and its schedule when --keep-going saved it at once. */
static void saved_only(const struct program *prog, const struct explore_options *opt, const struct wire_result *w,
                       struct explore_failure *f)
{
    memset(f, 0, sizeof *f);
    f->saved_only = true;
    f->execution = w->index;
    f->found = f->result.kind = (enum failure_kind)w->kind;
    snprintf(f->result.location, sizeof f->result.location, "%s", w->location);
    failure_schedule_path(prog, opt, f->found, w->index, f->schedule_file, sizeof f->schedule_file);
    if (!opt->keep_going || access(f->schedule_file, F_OK) != 0)
        f->schedule_file[0] = '\0';
}

uint64_t explore_spacing(const struct explore_options *opt)
{
    return opt->shards > 1 ? opt->shards : 1;
}

static bool owns_first_execution(const struct explore_options *opt)
{
    return opt->shards <= 1 || opt->shard == 1;
}

/* The lowest execution after 0 that is this run's. */
static uint64_t first_after_zero(const struct explore_options *opt)
{
    return owns_first_execution(opt) ? explore_spacing(opt) : opt->shard - 1;
}

uint64_t explore_executions_owned(const struct explore_options *opt)
{
    uint64_t n = owns_first_execution(opt) && opt->schedules > 0 ? 1 : 0, start = first_after_zero(opt);
    if (opt->schedules > start)
        n += (opt->schedules - start + explore_spacing(opt) - 1) / explore_spacing(opt);
    return n;
}

bool explore_run(struct program *prog, const struct explore_options *opt, struct explore_summary *sum, char *err,
                 size_t errlen)

{
    memset(sum, 0, sizeof *sum);
    uint64_t t0 = monotonic_ns();
    if (!make_directories(opt->out_dir)) {
        snprintf(err, errlen, "cannot create %s: %s", opt->out_dir, strerror(errno));
        return false;
    }
    struct explore_options judged = *opt;
    /* RLIMIT_NPROC counts every process of the user: parallel workers
     * would take from each other's allowance, and -j would change the
     * answer. Under --max-procs the executions run one at a time. */
    if (opt->limits && opt->limits->nproc)
        judged.jobs = 1;
    judged.detectors = detectors_new(&opt->detect, prog->debug, err, errlen);
    if (!judged.detectors)
        return false;
    judged.own_pages = explore_owns_pages(prog, opt);
    opt = &judged;
    struct shared_state *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        snprintf(err, errlen, "mmap: %s", strerror(errno));
        return false;
    }
    shared->lowest_failure = UINT64_MAX;
    /* A signal that stops mdat ends the execution under way within a
     * fraction of a second (the engine looks at the flag as it waits and
     * between steps), then the shrinking and recording: what was decided
     * stays. */
    tracee_set_stop_flags(opt->stop, &shared->abandon);
    struct tally tally = {.opt = opt, .sum = sum, .prog = prog};
    tally.found = calloc(MAX_REPORTED, sizeof *tally.found);

    /* Execution 0 runs first, alone: its length is PCT's estimate for all
     * others, which keeps every execution a function of (seed, index). */
    struct cpu_choice cpus;
    bool have_cpus = cpu_choice_make(&cpus);
    if (have_cpus)
        cpu_choice_pin(&cpus, 0);
    install_limits(opt);
    uint64_t estimate = FIRST_ESTIMATE;
    bool ok = true;
    bool systematic = strategy_is_systematic(opt->strategy);
    struct systematic_found *kept = systematic ? calloc(1, sizeof *kept) : NULL;
    if (systematic) {
        systematic_run(prog, opt, &tally, kept, sum);
    } else if (opt->first == 0 && owns_first_execution(opt)) {
        worker_loop(prog, opt, 0, opt->schedules, FIRST_ESTIMATE, shared, tally_add, &tally);
        estimate = sum->steps_total > 0 ? sum->steps_total : FIRST_ESTIMATE;
    } else {
        ok = probe_estimate(prog, opt, shared, &estimate, err, errlen);
    }
    /* Page ownership for every later execution, or every access observed
     * (as execution 0 did: its trial without ownership ended, or ownership
     * gave up on it; or ownership costs more than it spares). */
    const bool first_owns_pages = judged.own_pages;
    if (ok && !systematic && judged.own_pages && opt->schedules > 1) {
        struct wire_result cut;
        enum observe_choice c = shared->learned_all ? OBSERVE_ALL
                                : pages_always()    ? OBSERVE_OWNED
                                                    : observe_choice_probe(prog, &judged, estimate, shared, &cut);
        if (c == OBSERVE_ALL)
            judged.own_pages = false;
        else if (c == OBSERVE_CUT_SHORT && (!tally.have_error || tally.first_error.index > 0)) {
            tally.first_error = cut;
            tally.have_error = true;
        }
    }
    /* What execution 0 found shared, every other one observes from its start. */
    struct page_list learned = {0}, learned_read = {0};
    for (uint32_t i = 0; i < shared->n_learned; i++)
        page_list_add(&learned, shared->learned[i]);
    for (uint32_t i = 0; i < shared->n_learned_read; i++)
        page_list_add(&learned_read, shared->learned_read[i]);
    judged.observed = &learned;
    judged.read_shared = &learned_read;
    uint64_t start = opt->first > 1 ? opt->first : first_after_zero(opt);
    if (ok && !systematic && opt->schedules > start && !tally.have_error && (keeps_going(opt) || tally.n_found == 0)) {
        if (opt->jobs <= 1)
            worker_loop(prog, opt, start, explore_spacing(opt), estimate, shared, tally_add, &tally);
        else if (have_cpus)
            ok = run_workers(prog, opt, start, estimate, &cpus, shared, &tally, err, errlen);
        else {
            snprintf(err, errlen, "cannot read the CPU affinity: %s", strerror(errno));
            ok = false;
        }
    }
    bool stopped = opt->stop && *opt->stop;
    if (stopped && tally.have_error && tally.first_error.interrupted)
        tally.have_error = false;   /* the execution the stop cut short: not decided, no error */
    if (ok && tally.have_error &&
        (opt->count_all || tally.n_found == 0 || tally.first_error.index < tally.found[0].index)) {
        snprintf(err, errlen, "%s", tally.first_error.error_message);
        ok = false;
        /* Killed from outside: what was decided before still stands. */
        sum->interrupted = tally.first_error.interrupted;
    }
    bool interrupted = sum->interrupted;
    if (interrupted)
        ok = true;
    if (ok && opt->count_all && tally.failures_seen > 0) {
        tally.found[0] = tally.lowest;
        tally.n_found = 1;
        if (kept)
            choice_list_copy(&kept->choices[0], &kept->lowest);
    }
    if (ok) {
        /* (A systematic search books its failures in index order already:
         * the choices kept beside them stay in step.) */
        if (!systematic)
            qsort(tally.found, tally.n_found, sizeof *tally.found, cmp_wire_index);
        size_t report = opt->keep_going ? tally.n_found : (tally.n_found > 0 ? 1 : 0);
        sum->failures = calloc(report ? report : 1, sizeof *sum->failures);
        /* Execution 0 ran before the choice of how the others observe
         * memory: it runs again as it ran. */
        struct explore_options as_first = judged;
        as_first.own_pages = first_owns_pages;
        for (size_t i = 0; i < report && ok; i++) {
            bool first = tally.found[i].index == 0;
            uint64_t est = first ? FIRST_ESTIMATE : estimate;
            bool recorded = false;
            if (!(opt->stop && *opt->stop))
                recorded = ok = record_failure(prog, first ? &as_first : opt, &tally.found[i], est, &shared->profile,
                                               kept ? &kept->choices[i] : NULL, &sum->failures[i], err, errlen);
            if (!recorded && opt->stop && *opt->stop) {
                /* Stopped before (or while) it was recorded again. */
                exec_result_free(&sum->failures[i].result);
                saved_only(prog, opt, &tally.found[i], &sum->failures[i]);
                ok = true;
            }
            sum->n_failures = i + 1;
        }
    }
    if (ok && opt->outcomes && !interrupted && !(opt->stop && *opt->stop)) {
        outcome_table_sort(&tally.outcomes);
        for (size_t i = 0; i < tally.outcomes.n && ok; i++) {
            struct outcome *o = &tally.outcomes.at[i];
            const struct choice_list *choices = kept ? systematic_outcome_choices(kept, o->execution) : NULL;
            ok = record_outcome(prog, opt, o, opt->outcome_files_unranked ? 0 : i + 1,
                                o->execution == 0 ? FIRST_ESTIMATE : estimate, &shared->profile, choices, err, errlen);
        }
    }
    sum->outcomes = tally.outcomes;
    free(tally.found);
    if (kept) {
        systematic_found_free(kept);
        free(kept);
    }
    detectors_free(judged.detectors);
    page_list_free(&learned);
    page_list_free(&learned_read);

    tracee_set_stop_flags(NULL, NULL);
    munmap(shared, sizeof *shared);
    spawn_set_limits(NULL);
    if (have_cpus)
        cpu_choice_unpin(&cpus);
    sum->elapsed_sec = (double)(monotonic_ns() - t0) / 1e9;
    if (interrupted && ok)
        return false;   /* err says why; the summary stands */
    sum->interrupted = false;
    return ok;
}

const char *explore_failure_trace(const struct explore_failure *f, const char *format)
{
    for (int i = 0; i < f->n_traces; i++)
        if (strcmp(f->traces[i].format, format) == 0)
            return f->traces[i].path;
    return NULL;
}

void explore_summary_free(struct explore_summary *sum)
{
    for (size_t i = 0; i < sum->n_failures; i++)
        exec_result_free(&sum->failures[i].result);
    free(sum->failures);
    outcome_table_free(&sum->outcomes);
    memset(sum, 0, sizeof *sum);
}

bool explore_schedule_input(const struct schedule *sched, struct program_input *in, char *err, size_t errlen)
{
    program_input_none(in);
    if (!sched->stdin_file)
        return true;
    if (!program_input_from_file(in, sched->stdin_file, err, errlen))
        return false;
    if (strcmp(in->sha256, sched->stdin_sha256) != 0) {
        snprintf(err, errlen, "%s is not the input the schedule was made with (its SHA-256 differs)",
                 sched->stdin_file);
        program_input_free(in);
        return false;
    }
    return true;
}

/* The options that judge an execution the way sched records; argv and
 * input are the caller's to free. */
static struct explore_options schedule_options(const struct schedule *sched, char **argv,
                                               const struct program_input *input)
{
    argv[0] = sched->program;
    for (int i = 0; i < sched->n_args; i++)
        argv[i + 1] = sched->args[i];
    struct explore_options opt = {
        .argv = argv,
        .argc = sched->n_args + 1,
        .schedules = 1,
        .seed = sched->seed,
        .strategy = sched->strategy,   /* as recorded: names the schedule in trace summaries (strat replays it) */
        .depth = sched->depth,
        .max_steps = sched->max_steps,
        .max_output = sched->max_output,
        .timeout_sec = sched->timeout_sec > 0 ? sched->timeout_sec : 10,
        .time_limit_sec = sched->time_limit_sec,
        .check_cmd = sched->check_cmd,
        .fail_on_exit = sched->fail_on_exit,
        .preempt = sched->preempt,
        .tso = sched->tso,
        .limits = &sched->limits,
        .input = input,
        .detect = {.races = sched->races, .invariants = (const char *const *)sched->invariants,
                   .n_invariants = sched->n_invariants},
    };
    /* The recorded run's verdict, not the wall clock, decides: only a hang
     * keeps the step timeout it was found with. */
    if (failure_kind_from_name(sched->failure) != FAIL_HANG && opt.timeout_sec < 60)
        opt.timeout_sec = 60;
    return opt;
}

bool explore_replay(struct program *prog, const struct schedule *sched, struct trace_tee *trace, bool show_output,
                    const char *const *watches, int n_watches, struct exec_result *res, char *err, size_t errlen)
{
    struct program_input input;
    if (!explore_schedule_input(sched, &input, err, errlen))
        return false;
    char **argv = calloc((size_t)sched->n_args + 2, sizeof *argv);
    struct explore_options opt = schedule_options(sched, argv, &input);
    opt.show_output = show_output;
    opt.describe_steps = true;      /* its report shows the last steps */
    opt.watches = watches;
    opt.n_watches = n_watches;
    opt.detectors = detectors_new(&opt.detect, prog->debug, err, errlen);
    if (!opt.detectors) {
        free(argv);
        program_input_free(&input);
        return false;
    }
    install_limits(&opt);
    struct strategy *strat = strategy_replay_new(&sched->choices);
    struct cpu_choice cpus;
    bool have_cpus = cpu_choice_make(&cpus);
    if (have_cpus)
        cpu_choice_pin(&cpus, 0);
    struct run_io io = run_io_single(prog, &opt, strat, show_output);
    bool ok = run_one(prog, &opt, strat, sched->execution, 0, &io, trace, res);
    run_io_end(&io);
    strategy_free(strat);
    detectors_free(opt.detectors);
    free(argv);
    spawn_set_limits(NULL);
    if (have_cpus)
        cpu_choice_unpin(&cpus);
    program_input_free(&input);
    if (!ok)
        snprintf(err, errlen, "%s", res->error_message);
    return ok;
}

bool explore_shrink(struct program *prog, const struct schedule *sched, uint64_t max_runs, double max_seconds,
                    struct schedule *shrunk, struct shrink_outcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct program_input input;
    if (!explore_schedule_input(sched, &input, err, errlen))
        return false;
    char **argv = calloc((size_t)sched->n_args + 2, sizeof *argv);
    struct explore_options opt = schedule_options(sched, argv, &input);
    opt.shrink_runs = max_runs;
    opt.shrink_seconds = max_seconds;
    opt.detectors = detectors_new(&opt.detect, prog->debug, err, errlen);
    bool ok = opt.detectors != NULL;
    struct exec_result res = {0};
    struct cpu_choice cpus;
    bool have_cpus = cpu_choice_make(&cpus);
    if (have_cpus)
        cpu_choice_pin(&cpus, 0);
    install_limits(&opt);
    if (ok) {
        /* The schedule's own run first: what failure to keep. */
        struct strategy *strat = strategy_replay_new(&sched->choices);
        struct run_io io = run_io_single(prog, &opt, strat, false);
        ok = run_one(prog, &opt, strat, sched->execution, 0, &io, NULL, &res);
        run_io_end(&io);

        strategy_free(strat);
        if (!ok)
            snprintf(err, errlen, "%s", res.error_message);
        else if (res.kind == FAIL_NONE) {
            snprintf(err, errlen, "the schedule does not fail: nothing to shrink");
            ok = false;
        } else if (res.kind == FAIL_HANG) {
            snprintf(err, errlen, "a hang is not shrunk: each try would wait out its timeout");
            ok = false;
        }
    }
    if (ok)
        ok = shrink_failure(prog, &opt, sched->execution, &res.choices, res.kind, res.location, out, err, errlen);
    if (ok && !out->shrunk) {
        snprintf(err, errlen, "the failure (%s) does not come back when re-executed", failure_kind_name(res.kind));
        ok = false;
    }
    if (ok) {
        schedule_copy(shrunk, sched);
        choice_list_copy(&shrunk->choices, &out->choices);
        shrunk->steps = out->steps;
        snprintf(shrunk->failure, sizeof shrunk->failure, "%s", failure_kind_name(res.kind));
        shrunk->preemptions = out->preemptions;
        shrunk->shrunk_from_steps = out->original_steps;
        shrunk->shrunk_from_preemptions = out->original_preemptions;
    }
    exec_result_free(&res);
    detectors_free(opt.detectors);
    spawn_set_limits(NULL);
    if (have_cpus)
        cpu_choice_unpin(&cpus);
    free(argv);
    program_input_free(&input);
    return ok;
}
