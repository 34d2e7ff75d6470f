/* cmd_shrink: `mdat shrink [--shrink-budget N] [--shrink-time SEC] [-o OUT]
 * FILE`, a saved failing schedule made as short as shrinking finds
 * (supervisor/explore/shrink.h), written beside it or to OUT. */
#include <stdio.h>

#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "supervisor/explore/shrink.h"
#include "supervisor/explore/schedule.h"

#include <limits.h>
#include "help/mdat-shrink.h"  /* generated from docs/man/mdat-shrink.1.scd */

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

void print_shrink_usage(FILE *f)
{
    fputs(mdat_shrink_help, f);
}

/* FILE.sched -> FILE.shrunk.sched (any other name: NAME.shrunk.sched). */
static void default_out(const char *file, char *out, size_t len)
{
    size_t n = strlen(file);
    if (n > 6 && strcmp(file + n - 6, ".sched") == 0)
        n -= 6;
    snprintf(out, len, "%.*s.shrunk.sched", (int)n, file);
}

static int shrink_file(const char *file, const char *out, uint64_t runs, double seconds)
{
    char err[512];
    struct schedule sched;
    if (!schedule_read(file, &sched, err, sizeof err)) {
        fprintf(stderr, "mdat: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    struct program prog;
    if (!program_load(&prog, sched.program, err, sizeof err)) {
        fprintf(stderr, "mdat: cannot shrink %s: %s\n", file, err);
        schedule_free(&sched);
        return EXIT_CANNOT_RUN;
    }
    int status = EXIT_CANNOT_RUN;
    struct schedule shrunk;
    struct shrink_outcome sh;
    if (!schedule_binary_matches(&sched, prog.sha256)) {
        fprintf(stderr, "mdat: cannot shrink %s: %s is not the binary it was recorded with (SHA-256 differs)\n", file,
                sched.program);
    } else if (!explore_shrink(&prog, &sched, runs, seconds, &shrunk, &sh, err, sizeof err)) {
        fprintf(stderr, "mdat: cannot shrink %s: %s\n", file, err);
        shrink_outcome_free(&sh);
    } else {
        if (!schedule_write(&shrunk, out, err, sizeof err)) {
            fprintf(stderr, "mdat: %s\n", err);
        } else {
            printf("mdat: %s %s: shrunk from %" PRIu64 " steps / %" PRIu64 " preemption%s to %" PRIu64
                   " steps / %" PRIu64 " preemption%s (%" PRIu64 " re-execution%s, %.1f s%s)\n",
                   sched.failure, file, sh.original_steps, sh.original_preemptions,
                   sh.original_preemptions == 1 ? "" : "s", sh.steps, sh.preemptions, sh.preemptions == 1 ? "" : "s",
                   sh.runs, sh.runs == 1 ? "" : "s", sh.seconds, sh.out_of_time ? ", stopped by --shrink-time" : "");
            char replay[PATH_MAX + 64];
            schedule_replay_command(out, strcmp(sched.failure, "checker") == 0, replay, sizeof replay);
            printf("  schedule: %s\n  replay:   %s\n", out, replay);
            status = EXIT_NO_FAILURE;
        }
        schedule_free(&shrunk);
        shrink_outcome_free(&sh);
    }
    program_free(&prog);
    schedule_free(&sched);
    return status;
}

int cmd_shrink(int argc, char **argv)
{
    enum { OPT_BUDGET = 256, OPT_TIME };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},
        {"shrink-budget", required_argument, NULL, OPT_BUDGET},
        {"shrink-time", required_argument, NULL, OPT_TIME},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    const char *out = NULL;
    uint64_t runs = CLI_DEFAULT_SHRINK_RUNS;
    double seconds = CLI_DEFAULT_SHRINK_SECONDS;
    int c;
    opterr = 0;
    optind = 1;
    /* Options may follow the file: `mdat shrink FILE -o OUT`. */
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case OPT_BUDGET:
            if (!cli_parse_u64(optarg, &runs) || runs == 0)
                return cli_usage_error("shrink", "--shrink-budget wants a number of re-executions > 0, not \"%s\"",
                                       optarg);
            break;
        case OPT_TIME:
            if (!cli_parse_seconds(optarg, &seconds, true))
                return cli_usage_error("shrink", "--shrink-time wants seconds (0: no limit), not \"%s\"", optarg);
            break;
        case 'h':
            print_shrink_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            return cli_bad_option("shrink", optopt, argv[optind - 1]);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mdat shrink: give exactly one schedule file (usage: mdat shrink [-o OUT] FILE)\n");
        return EXIT_USAGE;
    }
    char default_path[4096];
    if (!out) {
        default_out(argv[optind], default_path, sizeof default_path);
        out = default_path;
    }
    return shrink_file(argv[optind], out, runs, seconds);
}
