/* cmd_replay: `mdat replay [--trace[=FORMAT[,every]]] [--timeline OUT] [--check CMD | --trust-check] FILE`,
 * exact re-execution of a schedule. A schedule is data: the command its
 * `check` line names is shown, and run only when the user says so. */
#include <stdio.h>

#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/render/report.h"
#include "ui/render/trace_formats.h"
#include "ui/render/trace_timeline.h"
#include "help/mdat-replay.h"  /* generated from docs/man/mdat-replay.1.scd */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void print_replay_usage(FILE *f)
{
    fputs(mdat_replay_help, f);
}

/* Adds a branch to trace for each --timeline file, by its extension. */
static bool open_timelines(const char *const *paths, int n, struct trace_tee *trace, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        FILE *out = fopen(paths[i], "w");
        if (!out) {
            snprintf(err, errlen, "cannot write %s: %s", paths[i], strerror(errno));
            return false;
        }
        trace_tee_add(trace, timeline_format_for_path(paths[i]), out, false);
    }
    return true;
}

/* Closes the files open_timelines opened (the branches after the --trace
 * one, if any); false with a reason when one could not be written. */
static bool close_timelines(const char *const *paths, struct trace_tee *trace, bool has_trace, bool ok, char *err,
                            size_t errlen)
{
    int first = has_trace ? 1 : 0;
    for (int i = first; i < trace->n; i++) {
        if (fclose(trace->branch[i].out) != 0 && ok) {
            snprintf(err, errlen, "cannot write %s: %s", paths[i - first], strerror(errno));
            ok = false;
        }
    }
    return ok;
}

/* The command, printable whatever bytes it holds (a schedule from someone
 * else may hide terminal escapes in it). */
static void print_command(FILE *f, const char *cmd)
{
    for (const unsigned char *p = (const unsigned char *)cmd; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

/* Which checker judges the replay: the user's --check, the file's with
 * --trust-check, else none (what the file asks is shown). false when the
 * recorded verdict is the checker's and no checker may run. */
static bool decide_check(const char *file, struct schedule *sched, const char *own_check, bool trust_check)
{
    if (own_check) {
        free(sched->check_cmd);
        sched->check_cmd = strdup(own_check);
        if (!sched->check_cmd)
            abort();
        return true;
    }
    if (!sched->check_cmd)
        return true;
    if (trust_check) {
        fprintf(stderr, "mdat: checking the output with the command %s names: ", file);
        print_command(stderr, sched->check_cmd);
        fputc('\n', stderr);
        return true;
    }
    fprintf(stderr, "mdat: %s asks to check the program's output with: ", file);
    print_command(stderr, sched->check_cmd);
    fputc('\n', stderr);
    free(sched->check_cmd);
    sched->check_cmd = NULL;
    if (strcmp(sched->failure, "checker") == 0) {
        fprintf(stderr, "mdat replay: its failure is that checker's verdict, and a schedule's command is not run "
                "unless you say so: pass --trust-check to run it, or --check CMD for a checker of your own\n");
        return false;
    }
    fprintf(stderr, "mdat: not run (its verdict is not the checker's; --trust-check runs it)\n");
    return true;
}

/* The --watch values as the program ended or failed: with the exit status
 * or failure, the outcome of --outcomes' table the schedule stands for. */
static void print_final_watches(const struct exec_result *res)
{
    printf("mdat: watched, %s:", res->kind == FAIL_NONE ? "at the end" : "where it failed");
    for (int i = 0; i < res->n_final_watches; i++)
        printf("%s %s = %s", i ? "," : "", res->final_watches[i].expr, res->final_watches[i].value);
    printf("\n");
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"trace", optional_argument, NULL, 't'},
        {"watch", required_argument, NULL, 'w'},
        {"timeline", required_argument, NULL, 'l'},
        {"check", required_argument, NULL, 'c'},
        {"trust-check", no_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    const struct trace_format *format = NULL;
    bool every_step = false;
    const char *watches[argc];      /* --watch values: fewer than the arguments */
    int n_watches = 0;
    const char *timelines[argc];    /* --timeline files */
    int n_timelines = 0;
    const char *own_check = NULL;
    bool trust_check = false;
    int c;
    opterr = 0;
    optind = 1;
    /* Options may follow the file (no program command line follows it). */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 't') {
            char why[200];
            if (!trace_option_parse(optarg, &format, &every_step, why, sizeof why)) {
                fprintf(stderr, "mdat replay: %s (see mdat replay --help)\n", why);
                return EXIT_USAGE;
            }
        } else if (c == 'w') {
            watches[n_watches++] = optarg;
        } else if (c == 'l') {
            if (!timeline_format_for_path(optarg)) {
                fprintf(stderr, "mdat replay: --timeline %s: the file must end in .html (a page) or .svg (the picture "
                        "alone)\n", optarg);
                return EXIT_USAGE;
            }
            if (n_timelines + 1 >= TRACE_TEE_MAX) {
                fprintf(stderr, "mdat replay: too many --timeline files (at most %d)\n", TRACE_TEE_MAX - 1);
                return EXIT_USAGE;
            }
            timelines[n_timelines++] = optarg;
        } else if (c == 'c') {
            own_check = optarg;
        } else if (c == 'T') {
            trust_check = true;
        } else if (c == 'h') {
            print_replay_usage(stdout);
            return EXIT_NO_FAILURE;
        } else {
            fprintf(stderr, "mdat replay: unknown option %s (see mdat replay --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mdat replay: give exactly one schedule file (usage: mdat replay [--trace[=FORMAT]] "
                "[--timeline OUT] [--check CMD | --trust-check] FILE)\n");
        return EXIT_USAGE;
    }
    const char *file = argv[optind];
    char err[512];
    struct schedule sched;
    if (!schedule_read(file, &sched, err, sizeof err)) {
        fprintf(stderr, "mdat: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    if (!decide_check(file, &sched, own_check, trust_check)) {
        schedule_free(&sched);
        return EXIT_USAGE;
    }
    struct program prog;
    if (!program_load(&prog, sched.program, err, sizeof err)) {
        fprintf(stderr, "mdat: cannot replay %s: %s\n", file, err);
        schedule_free(&sched);
        return EXIT_CANNOT_RUN;
    }
    if (!cli_check_watches("replay", prog.debug, watches, n_watches)) {
        program_free(&prog);
        schedule_free(&sched);
        return EXIT_USAGE;
    }
    if (!schedule_binary_matches(&sched, prog.sha256)) {
        fprintf(stderr, "mdat: cannot replay %s: %s is not the binary it was recorded with (SHA-256 differs; rebuild it from the same source or record a new schedule)\n",
                file, sched.program);
        program_free(&prog);
        schedule_free(&sched);
        return EXIT_CANNOT_RUN;
    }
    struct trace_tee trace = {0};
    if (format)
        trace_tee_add(&trace, format, stdout, every_step);
    if (!open_timelines(timelines, n_timelines, &trace, err, sizeof err)) {
        close_timelines(timelines, &trace, format != NULL, false, err, sizeof err);
        fprintf(stderr, "mdat: %s\n", err);
        program_free(&prog);
        schedule_free(&sched);
        return EXIT_CANNOT_RUN;
    }
    printf("mdat: replaying %s (%s, seed %" PRIu64 ", execution %" PRIu64 ", %zu choices)\n", file, sched.strategy,
           sched.seed, sched.execution, sched.choices.n);
    fflush(stdout);
    struct exec_result res = {0};
    bool ok = explore_replay(&prog, &sched, trace.n ? &trace : NULL, true, watches, n_watches, &res, err, sizeof err);
    ok = close_timelines(timelines, &trace, format != NULL, ok, err, sizeof err);
    int status;
    fflush(stdout);
    if (!ok) {
        fprintf(stderr, "mdat: %s\n", err);
        status = EXIT_CANNOT_RUN;
    } else if (strcmp(failure_kind_name(res.kind), sched.failure) != 0 || res.steps != sched.steps) {
        fprintf(stderr, "mdat: replay diverged: the schedule recorded %s after %" PRIu64 " steps, this run gave %s after %" PRIu64 " steps\n",
                sched.failure, sched.steps, failure_kind_name(res.kind), res.steps);
        status = EXIT_CANNOT_RUN;
    } else if (res.kind == FAIL_NONE) {
        printf("mdat: replayed %" PRIu64 " steps, no failure (as recorded)\n", res.steps);
        status = EXIT_NO_FAILURE;
    } else {
        printf("mdat: reproduced FAILURE %s after %" PRIu64 " steps\n", failure_kind_name(res.kind), res.steps);
        report_failure_text(stdout, &res);
        status = EXIT_FAILURE_FOUND;
    }
    if (ok && res.n_final_watches > 0)
        print_final_watches(&res);
    exec_result_free(&res);     /* a diverged run has its choices too */
    program_free(&prog);
    schedule_free(&sched);
    return status;
}
