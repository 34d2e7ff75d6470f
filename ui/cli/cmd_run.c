/* cmd_run: `mdat run [options] [--] PROG [ARGS...]`, batch exploration. */
#include <stdio.h>

#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/render/report.h"
#include "ui/render/trace_formats.h"
#include "ui/text/junit_writer.h"
#include "supervisor/trace/safe_file.h"
#include "help/mdat-run.h"     /* generated from docs/man/mdat-run.1.scd */

#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void print_run_usage(FILE *f)
{
    fputs(mdat_run_help, f);
}

static uint64_t seed_from_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    /* Keep seeds short enough to type. */
    return x % 1000000000u;
}

struct progress_state {
    bool tty;
};

static void show_progress(void *ctx, uint64_t done, uint64_t total, uint64_t failures)
{
    struct progress_state *p = ctx;
    if (!p->tty)
        return;
    fprintf(stderr, "\r  %" PRIu64 "/%" PRIu64 " executions, %" PRIu64 " failing\033[K", done, total, failures);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

/* How far a systematic search got without a failure: all of its space (a
 * proof, for the inputs and settings of the run) or the part -n allowed. */
static void print_search_end(const struct explore_options *opt, const struct explore_summary *sum)
{
    bool dpor = strcmp(opt->strategy, "dpor") == 0;
    const char *what = dpor ? "distinct interleavings (classes)" : "schedules";
    char within[64] = "";
    if (!dpor && opt->max_bound >= 0)
        snprintf(within, sizeof within, " within %s bound %d", opt->dfs_bound == DFS_DELAYS ? "delay" : "preemption",
                 opt->max_bound);
    char gap[400];
    bool gap_found = report_search_gap(sum, gap, sizeof gap);
    if (gap_found)
        printf("mdat: no failure in %" PRIu64 " %s%s: NOT exhaustive, %s (seed %" PRIu64 "; %" PRIu64
               " visible steps, %.1f s)\n",
               sum->classes, what, within, gap, opt->seed, sum->steps_total, sum->elapsed_sec);
    else if (sum->exhaustive)
        printf("mdat: explored all %" PRIu64 " %s%s, no failure (%" PRIu64 " execution%s; %" PRIu64
               " visible steps, %.1f s)\n",
               sum->classes, what, within, sum->schedules_run, sum->schedules_run == 1 ? "" : "s", sum->steps_total,
               sum->elapsed_sec);
    else
        printf("mdat: no failure in %" PRIu64 " %s%s: NOT exhaustive, the search %s %" PRIu64
               " executions (seed %" PRIu64 "; %" PRIu64 " visible steps, %.1f s)\n",
               sum->classes, what, within,
               sum->schedules_run < opt->schedules ? "was stopped after" : "stopped at -n", sum->schedules_run,
               opt->seed, sum->steps_total, sum->elapsed_sec);
    if (!dpor && !gap_found && (sum->exhaustive || sum->bound > 0))
        printf("mdat: every schedule with at most %d %s was run%s\n", sum->exhaustive ? sum->bound : sum->bound - 1,
               opt->dfs_bound == DFS_DELAYS ? "delays" : "preemptions",
               sum->exhaustive ? "" : "; the next bound was under way");
}

/* Where the stop signals are noted: shared with the forked workers, which
 * see the terminal's Ctrl-C too and must finish their execution, not die. */
static volatile int *stop_signal;

static void note_stop_signal(int sig)
{
    if (stop_signal && !*stop_signal)
        *stop_signal = sig;
}

static const volatile int *catch_stop_signals(void)
{
    static int unshared;
    void *page = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    stop_signal = page == MAP_FAILED ? &unshared : page;
    *stop_signal = 0;
    struct sigaction sa = {.sa_handler = note_stop_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return stop_signal;
}

int cmd_run(int argc, char **argv)
{
    enum { OPT_KEEP_GOING = CLI_OPT_NEXT, OPT_JSON, OPT_TRACE, OPT_WATCH, OPT_FULL_TRACE, OPT_JUNIT, OPT_NO_SHRINK,
           OPT_SHRINK_BUDGET, OPT_SHRINK_TIME, OPT_OUTCOMES, OPT_MAX_OUTPUT, OPT_SHARD };
    static const struct option longopts[] = {
        CLI_EXPLORE_OPTIONS,
        CLI_BOUND_OPTIONS,
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"out", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, OPT_JSON},
        {"trace", optional_argument, NULL, OPT_TRACE},
        {"watch", required_argument, NULL, OPT_WATCH},
        {"full-trace", no_argument, NULL, OPT_FULL_TRACE},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"no-shrink", no_argument, NULL, OPT_NO_SHRINK},
        {"outcomes", no_argument, NULL, OPT_OUTCOMES},
        {"shrink-budget", required_argument, NULL, OPT_SHRINK_BUDGET},
        {"shrink-time", required_argument, NULL, OPT_SHRINK_TIME},
        {"max-output", required_argument, NULL, OPT_MAX_OUTPUT},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct cli_explore e = {
        .schedules = 1000,
        .strategy = "portfolio",
        .depth = 3,
        .jobs = cli_available_cpus(),
        .max_steps = CLI_DEFAULT_MAX_STEPS,
        .timeout_sec = CLI_DEFAULT_TIMEOUT_SEC,
    };
    struct explore_options opt = {
        .out_dir = "mdat-out",
        .shrink = true,
        .shrink_runs = CLI_DEFAULT_SHRINK_RUNS,
        .shrink_seconds = CLI_DEFAULT_SHRINK_SECONDS,
    };
    const char *json_path = NULL, *junit_path = NULL;
    int shard_k = 0, shard_n = 0;
    const char *watches[argc];      /* --watch values: fewer than the arguments */
    opt.watches = watches;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+" CLI_EXPLORE_SHORT "o:h", longopts, NULL)) != -1) {
        int taken = cli_explore_option("run", c, optarg, &e);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case OPT_KEEP_GOING:
            opt.keep_going = true;
            break;
        case 'o':
            opt.out_dir = optarg;
            break;
        case OPT_JSON:
            json_path = optarg;
            break;
        case OPT_TRACE: {
            char why[200];
            if (!trace_option_parse(optarg, &opt.trace, &opt.trace_every_step, why, sizeof why))
                return cli_usage_error("run", "%s", why);
            break;
        }
        case OPT_WATCH:
            watches[opt.n_watches++] = optarg;
            break;
        case OPT_FULL_TRACE:
            opt.full_trace = true;
            break;
        case OPT_JUNIT:
            junit_path = optarg;
            break;
        case OPT_OUTCOMES:
            opt.outcomes = true;
            break;
        case OPT_NO_SHRINK:
            opt.shrink = false;
            break;
        case OPT_SHRINK_BUDGET:
            if (!cli_parse_u64(optarg, &opt.shrink_runs) || opt.shrink_runs == 0)
                return cli_usage_error("run", "--shrink-budget wants a number of re-executions > 0, not \"%s\"", optarg);
            break;
        case OPT_SHRINK_TIME:
            if (!cli_parse_seconds(optarg, &opt.shrink_seconds, true))
                return cli_usage_error("run", "--shrink-time wants seconds (0: no limit), not \"%s\"", optarg);
            break;
        case OPT_MAX_OUTPUT:
            if (!cli_parse_size(optarg, &opt.max_output) || opt.max_output == 0)
                return cli_usage_error("run", "--max-output wants a size (64M, 1G), not \"%s\"", optarg);
            break;
        case OPT_SHARD:
            if (!cli_parse_shard(optarg, &shard_k, &shard_n))
                return cli_usage_error("run", "--shard wants K/N with 1 <= K <= N, not \"%s\"", optarg);
            break;
        case 'h':
            print_run_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            return cli_bad_option("run", optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "mdat run: no program given (usage: mdat run [options] [--] PROG [ARGS...])\n");
        return EXIT_USAGE;
    }
    opt.argv = argv + optind;
    opt.argc = argc - optind;
    opt.schedules = e.schedules;
    opt.seed = e.seed_given ? e.seed : seed_from_clock();
    opt.strategy = e.strategy;
    opt.depth = e.depth;
    opt.dfs_bound = e.bound_kind ? e.bound_kind - 1 : DFS_PREEMPTIONS;
    opt.max_bound = e.bound_kind ? e.max_bound : -1;
    opt.jobs = e.jobs;
    opt.max_steps = e.max_steps;
    opt.timeout_sec = e.timeout_sec;
    opt.time_limit_sec = e.time_limit_sec;
    struct program_input input;
    if (!cli_read_program_input("run", &e, &input))
        return EXIT_USAGE;
    opt.input = &input;
    opt.check_cmd = e.check_cmd;
    opt.fail_on_exit = e.fail_on_exit;
    opt.detect = cli_detect_options(&e);
    opt.preempt = (enum preempt_mode)e.preempt;
    opt.tso = e.tso;
    if (!cli_check_preempt("run", &e)) {
        program_input_free(&input);
        return EXIT_USAGE;
    }
    if (shard_n > 0 && strategy_is_systematic(opt.strategy)) {
        program_input_free(&input);
        return cli_usage_error("run", "--shard splits the executions of a randomized strategy; %s searches one tree, "
                               "each execution following from the last: run it unsharded", opt.strategy);
    }
    opt.shard = (uint32_t)shard_k;
    opt.shards = (uint32_t)shard_n;
    opt.outcome_files_unranked = shard_n > 0;   /* a shard's ranks are not the merged table's */
    if (opt.outcomes)
        opt.keep_going = true;  /* every execution counts in the table */
    else if (opt.schedules == 1)
        opt.show_output = true;
    if (opt.trace) {
        opt.trace_out = stdout;
        opt.jobs = 1;   /* traces of parallel executions would interleave */
    }
    opt.saved_trace_formats = trace_formats;
    if ((uint64_t)opt.jobs > explore_executions_owned(&opt))
        opt.jobs = (int)(explore_executions_owned(&opt) ? explore_executions_owned(&opt) : 1);
    bool sequential = strategy_is_systematic(opt.strategy) && opt.jobs > 1;
    if (strategy_is_systematic(opt.strategy))
        opt.jobs = 1;   /* each execution follows from the last */
    opt.jobs = cli_cap_jobs(opt.jobs);
    struct progress_state progress = {isatty(2) && !opt.trace && !opt.show_output};
    opt.progress = show_progress;
    opt.progress_ctx = &progress;

    char err[512];
    struct program prog;
    if (!program_load(&prog, opt.argv[0], err, sizeof err)) {
        fprintf(stderr, "mdat: %s\n", err);
        program_input_free(&input);
        return EXIT_CANNOT_RUN;
    }
    if (!cli_check_invariants("run", prog.debug, &opt.detect) ||
        !cli_check_watches("run", prog.debug, opt.watches, opt.n_watches)) {
        program_free(&prog);
        program_input_free(&input);
        return EXIT_USAGE;
    }
    char shard_json[PATH_MAX];
    if (shard_n > 0 && !json_path) {
        snprintf(shard_json, sizeof shard_json, "%s/shard-%d-of-%d.json", opt.out_dir, shard_k, shard_n);
        json_path = shard_json;
        make_directories(opt.out_dir);  /* (a failure is told below: the report cannot be written) */
    }
    if ((junit_path && !junit_check_path(junit_path, err, sizeof err)) ||
        (json_path && !safe_file_writable(json_path, err, sizeof err)) ||
        !safe_dir_writable(opt.out_dir, err, sizeof err)) {
        fprintf(stderr, "mdat run: %s\n", err);
        program_free(&prog);
        program_input_free(&input);
        return EXIT_USAGE;
    }
    printf("mdat: exploring %s with %s", opt.argv[0], opt.strategy);
    char settings[96];
    strategy_settings_text(opt.strategy, opt.depth, settings, sizeof settings);
    fputs(settings, stdout);
    if (strcmp(opt.strategy, "dfs") == 0 && opt.max_bound >= 0)
        printf(" (%s bound %d)", opt.dfs_bound == DFS_DELAYS ? "delay" : "preemption", opt.max_bound);
    printf(", seed %" PRIu64 ", %" PRIu64 " schedule%s, %d job%s%s\n", opt.seed, opt.schedules,
           opt.schedules == 1 ? "" : "s", opt.jobs, opt.jobs == 1 ? "" : "s",
           sequential ? " (a systematic search runs its executions in order, in one job)" : "");
    if (shard_n > 0)
        printf("mdat: shard %d of %d: executions %d, %d, %d, ... below %" PRIu64 " (%" PRIu64 " of them), reported "
               "in %s for mdat merge\n", shard_k, shard_n, shard_k - 1, shard_k - 1 + shard_n, shard_k - 1 + 2 * shard_n,
               opt.schedules, explore_executions_owned(&opt), json_path);
    if (input.fd >= 0)
        printf("mdat: every execution reads the same %" PRIu64 " bytes of input from %s\n", input.size,
               strcmp(input.origin, "-") ? input.origin : "standard input");
    const char *why;
    if (debuginfo_dwarf_state(prog.debug, &why) == DEBUGINFO_DWARF_NONE)
        printf("mdat: %s has no debug information: locations are shown as symbols or addresses\n", opt.argv[0]);
    else if (!debuginfo_has_dwarf(prog.debug))
        printf("mdat: %s's debug information is corrupt (%s): mdat goes on without it, showing locations as "
               "symbols or addresses\n", opt.argv[0], why);
    else if (debuginfo_split_dwarf(prog.debug))
        printf("mdat: %s: %s (lines are known; variables, types and inlined calls are not)\n", opt.argv[0],
               DWARF_SPLIT_TEXT);
    else if (debuginfo_dwarf_state(prog.debug, &why) == DEBUGINFO_DWARF_CORRUPT)
        printf("mdat: part of %s's debug information is corrupt (%s): mdat goes on with the rest, showing "
               "locations it does not cover as symbols or addresses\n", opt.argv[0], why);
    const elf_image *img = debuginfo_elf(prog.debug);
    if (elf_image_is_static(img) && !elf_image_has_symtab(img))
        printf("mdat: %s is static and stripped: its own code cannot be told from libc's, so only its system "
               "calls (futexes, sleeps, waits) are scheduling points and its memory accesses are not seen\n",
               opt.argv[0]);
    fflush(stdout);

    /* SIGINT, SIGTERM, SIGHUP: no further execution; the summary and the
     * reports are written of those run. */
    const volatile int *stop_flag = catch_stop_signals();
    opt.stop = stop_flag;
    struct explore_summary sum;
    bool ok = explore_run(&prog, &opt, &sum, err, sizeof err);
    int status = EXIT_NO_FAILURE;
    /* Killed from outside: the executions decided until then are still
     * summarized (and written), then the reason, and exit 3. */
    const char *cut_short = !ok && sum.interrupted ? err : NULL;
    if (cut_short)
        ok = true;
    if (ok && sum.incomplete > 0)
        printf("mdat: %" PRIu64 " execution%s did not end: still making progress after %" PRIu64 " steps%s; "
               "%s nothing about what comes later (raise %s)\n",
               sum.incomplete, sum.incomplete == 1 ? "" : "s", sum.incomplete_steps,
               sum.incomplete_reason == INCOMPLETE_TIME ? " at the time limit" : "",
               sum.incomplete == 1 ? "it says" : "they say",
               sum.incomplete_reason == INCOMPLETE_TIME ? "--time-limit" : "--max-steps");
    if (!ok) {
        fprintf(stderr, "mdat: %s\n", err);
        status = EXIT_CANNOT_RUN;
    } else if (sum.n_failures == 0 && sum.systematic) {
        print_search_end(&opt, &sum);
    } else if (sum.n_failures == 0 && !(cut_short && sum.schedules_run == 0)) {
        printf("mdat: no failure in %" PRIu64 " execution%s (seed %" PRIu64 "; %" PRIu64 " visible steps, %.1f s)\n",
               sum.schedules_run, sum.schedules_run == 1 ? "" : "s", opt.seed, sum.steps_total, sum.elapsed_sec);
    } else {
        status = EXIT_FAILURE_FOUND;
        for (size_t i = 0; i < sum.n_failures; i++) {
            const struct explore_failure *f = &sum.failures[i];
            enum failure_kind kind = f->result.kind != FAIL_NONE ? f->result.kind : f->found;
            char by[48] = "";
            if (strcmp(opt.strategy, "portfolio") == 0)
                snprintf(by, sizeof by, ", chosen by %s", strategy_portfolio_member(f->execution));
            const char *how = f->saved_only  ? " -- found, not recorded again (stopped)"
                              : f->reproduced ? ""
                                              : " -- NOT reproduced when re-run: the program is not deterministic under mdat";
            printf("\nmdat: FAILURE %s in execution %" PRIu64 " (seed %" PRIu64 "%s)%s\n", failure_kind_name(kind),
                   f->execution, opt.seed, by, how);
            if (f->saved_only && f->result.location[0])
                printf("  at %s\n", f->result.location);
            else if (!f->saved_only)
                report_failure_text(stdout, &f->result);
            report_failure_files_text(stdout, f);
        }
        printf("\nmdat: %zu failure%s after %" PRIu64 " execution%s (seed %" PRIu64 "; %.1f s)\n", sum.n_failures,
               sum.n_failures == 1 ? "" : "s", sum.schedules_run, sum.schedules_run == 1 ? "" : "s", opt.seed,
               sum.elapsed_sec);
    }
    int sig = *stop_flag;
    if (sig)
        printf("mdat: stopped by SIG%s after %" PRIu64 " execution%s\n", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
               ok ? sum.schedules_run : 0, ok && sum.schedules_run == 1 ? "" : "s");
    if (ok && opt.outcomes)
        report_outcomes_text(stdout, &sum, &opt);
    struct run_description run = {prog.path, opt.argv + 1, opt.argc - 1, opt.strategy, opt.seed, opt.schedules,
                                  sig != 0,  cut_short, shard_k, shard_n, &prog, &opt};
    char werr[512];
    if (ok && json_path && !report_json_write(json_path, &run, &sum, werr, sizeof werr)) {
        fprintf(stderr, "mdat: %s\n", werr);
        status = EXIT_CANNOT_RUN;
    }
    bool judged = ok && !cut_short;
    if (junit_path &&
        !report_junit_write(junit_path, &run, judged ? &sum : NULL, judged ? NULL : err, werr, sizeof werr)) {
        fprintf(stderr, "mdat: %s\n", werr);
        status = EXIT_CANNOT_RUN;
    }
    if (cut_short) {
        fprintf(stderr, "mdat: %s\n", cut_short);
        status = EXIT_CANNOT_RUN;
    }
    explore_summary_free(&sum);     /* explore_run always leaves it initialised */
    program_free(&prog);
    program_input_free(&input);
    if (sig) {
        fflush(NULL);
        return 128 + sig;   /* the shell's convention for a command ended by a signal */
    }
    return status;
}
