/* cmd_grade: `mdat grade [options] SUBMISSION...` (the same exploration for
 * every submission of a class, into CSV, JSON and HTML reports) and
 * `mdat merge SHARD.json...` (the reports of an unsharded run from the
 * shard reports of `mdat grade --shard K/N`). */
#include <stdio.h>

#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/grade/model/grade_model.h"
#include "ui/grade/reports/grade_formats.h"
#include "ui/grade/reports/grade_report.h"
#include "ui/grade/grade_journal.h"
#include "ui/grade/grade_run.h"
#include "ui/grade/grade_sandbox.h"
#include "ui/grade/grade_shard.h"
#include "ui/lincheck/lc_scenario.h"
#include "ui/lincheck/lc_spec.h"
#include "supervisor/trace/safe_file.h"
#include "help/mdat-grade.h"   /* generated from docs/man/mdat-grade.1.scd */
#include "help/mdat-merge.h"   /* generated from docs/man/mdat-merge.1.scd */

#include "supervisor/explore/explore.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void print_grade_usage(FILE *f)
{
    fputs(mdat_grade_help, f);
}

void print_merge_usage(FILE *f)
{
    fputs(mdat_merge_help, f);
}

/* Where the three reports go: the given paths, else OUT/report.EXT. */
struct report_paths {
    const char *csv, *json, *html;
    bool no_times;
    struct grade_formats formats;   /* --junit, --gradescope */
    char csv_buf[PATH_MAX], json_buf[PATH_MAX], html_buf[PATH_MAX];
};

/* The report options of grade and merge; grade's own codes follow. */
enum { OPT_CSV = CLI_OPT_NEXT, OPT_JSON, OPT_HTML, OPT_NO_TIMES, OPT_GRADE_NEXT };
#define REPORT_OPTIONS                                  \
    {"csv", required_argument, NULL, OPT_CSV},          \
    {"json", required_argument, NULL, OPT_JSON},        \
    {"html", required_argument, NULL, OPT_HTML},        \
    {"no-times", no_argument, NULL, OPT_NO_TIMES},      \
    GRADE_FORMAT_OPTIONS

/* Takes option c into p if it is one of REPORT_OPTIONS. */
static bool report_option(int c, const char *arg, struct report_paths *p)
{
    switch (c) {
    case OPT_CSV: p->csv = arg; return true;
    case OPT_JSON: p->json = arg; return true;
    case OPT_HTML: p->html = arg; return true;
    case OPT_NO_TIMES: p->no_times = true; return true;
    default: return false;
    }
}

static void default_paths(struct report_paths *p, const char *out_dir)
{
    snprintf(p->csv_buf, sizeof p->csv_buf, "%s/report.csv", out_dir);
    snprintf(p->json_buf, sizeof p->json_buf, "%s/report.json", out_dir);
    snprintf(p->html_buf, sizeof p->html_buf, "%s/report.html", out_dir);
    if (!p->csv)
        p->csv = p->csv_buf;
    if (!p->json)
        p->json = p->json_buf;
    if (!p->html)
        p->html = p->html_buf;
}

/* Before any work: every report can be written where it goes. false after
 * a one-line error. */
static bool reports_writable(const char *cmd, struct report_paths *p, const char *out_dir)
{
    default_paths(p, out_dir);
    const char *files[] = {p->csv, p->json, p->html};
    char err[PATH_MAX + 100];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (!safe_file_writable(files[i], err, sizeof err)) {
            fprintf(stderr, "mdat %s: %s\n", cmd, err);
            return false;
        }
    return true;
}

/* Combines each submission's units, writes the reports and the summary
 * (incomplete: the grading was stopped; undecided submissions read "not
 * graded"). Returns the exit status. */
static int finish_reports(const char *cmd, const struct grade_settings *s, const struct grade_unit *units,
                          size_t n_units, struct report_paths *paths, bool incomplete)
{
    struct grade_result *results = calloc((size_t)s->n_submissions + 1, sizeof *results);
    struct grade_unit *mine = calloc(n_units + 1, sizeof *mine);
    for (int i = 0; i < s->n_submissions; i++) {
        size_t n = 0;
        for (size_t u = 0; u < n_units; u++)
            if (units[u].submission == i)
                mine[n++] = units[u];
        grade_aggregate(mine, n, &results[i]);
        if (incomplete && n == 0) {
            results[i].verdict = VERDICT_NOT_GRADED;
            snprintf(results[i].details, sizeof results[i].details, "the grading was stopped before this one");
        }
    }
    free(mine);
    struct grade_report r = {.settings = s, .results = results, .no_times = paths->no_times,
                             .incomplete = incomplete};
    default_paths(paths, s->out_dir);
    char err[PATH_MAX + 100];
    int status = EXIT_NO_FAILURE;
    if (!grade_write_csv(paths->csv, &r, err, sizeof err) || !grade_write_json(paths->json, &r, err, sizeof err) ||
        !grade_write_html(paths->html, &r, err, sizeof err) || !grade_formats_write(&paths->formats, &r, err, sizeof err)) {
        fprintf(stderr, "mdat %s: %s\n", cmd, err);
        status = EXIT_CANNOT_RUN;
    }
    printf("\n");
    grade_print_summary(stdout, &r);
    if (status == EXIT_NO_FAILURE)
        printf("\nmdat: %sreports %s, %s, %s\n", incomplete ? "INCOMPLETE " : "", paths->csv, paths->json,
               paths->html);
    for (int i = 0; i < s->n_submissions; i++)
        grade_result_free(&results[i]);
    free(results);
    return status;
}

/* Whether a command's program is a relative path ("./check.sh", "t/c"):
 * one that would be looked for in the wrong directory inside a sandbox. */
static bool relative_command(const char *cmd)
{
    if (!cmd)
        return false;
    while (*cmd == ' ' || *cmd == '\t')
        cmd++;
    size_t len = strcspn(cmd, " \t");
    return *cmd != '/' && memchr(cmd, '/', len) != NULL;
}

/* A --check whose program is a relative path names it from the directory
 * mdat grade started in: made absolute here, since the checker runs in
 * each submission's sandbox (its copy is the working directory there).
 * false after a one-line error: no such file, or a path the sandbox's
 * binding (the command's first word, up to a space) could not name. */
static bool resolve_checker(const char **cmd, char *buf, size_t len)
{
    if (!relative_command(*cmd))
        return true;
    const char *word = *cmd + strspn(*cmd, " \t");
    size_t n = strcspn(word, " \t");
    char given[PATH_MAX], real[PATH_MAX];
    snprintf(given, sizeof given, "%.*s", (int)n, word);
    if (!realpath(given, real)) {
        fprintf(stderr, "mdat grade: --check %s: %s (a relative path is taken from the current directory)\n", given,
                strerror(errno));
        return false;
    }
    if (strcspn(real, " \t'\"\\$`;&|<>(){}*?[]!#~") != strlen(real)) {
        fprintf(stderr, "mdat grade: --check %s: its absolute path %s has a space or shell character: move the "
                "checker or give a path without them\n", given, real);
        return false;
    }
    if ((size_t)snprintf(buf, len, "%s%s", real, word + n) >= len) {
        fprintf(stderr, "mdat grade: --check %s: the command is too long\n", given);
        return false;
    }
    *cmd = buf;
    return true;
}

/* Whether submission i has a unit among the first n (read back by --resume). */
static bool decided(const struct grade_unit *units, size_t n, int i)
{
    for (size_t u = 0; u < n; u++)
        if (units[u].submission == i)
            return true;
    return false;
}

static void print_strategy(const struct grade_settings *s, int jobs)
{
    printf(" with %s", s->strategy);
    char settings[96];
    strategy_settings_text(s->strategy, s->depth, settings, sizeof settings);
    fputs(settings, stdout);
    printf(", seed %" PRIu64 ", %" PRIu64 " schedule%s each, %d job%s", s->seed, s->schedules,
           s->schedules == 1 ? "" : "s", jobs, jobs == 1 ? "" : "s");
}

static void print_start(const struct grade_settings *s, int jobs, int shard_k, int shard_n, size_t resumed)
{
    printf("mdat: grading %d submission%s", s->n_submissions, s->n_submissions == 1 ? "" : "s");
    if (s->lincheck_spec)
        printf(" with mdat lincheck %s, seed %" PRIu64 ": %" PRIu64 " scenarios of 2 threads x 2 calls each%s, %s, "
               "at most %" PRIu64 " interleavings a scenario", s->lincheck_spec, s->seed, s->lincheck_scenarios,
               s->lincheck_init ? " after init calls" : "", s->tso ? s->strategy : "dpor", s->schedules);
    else
        print_strategy(s, jobs);
    if (shard_n) {
        uint64_t first, end;
        grade_shard_range(grade_units_total(s), shard_k, shard_n, &first, &end);
        printf("; shard %d of %d: %s %" PRIu64 "-%" PRIu64, shard_k, shard_n,
               s->lincheck_spec ? "scenarios" : "executions", first + (s->lincheck_spec != NULL),
               end - (s->lincheck_spec == NULL));
    }
    printf("\n");
    if (resumed)
        printf("mdat: resuming: %zu submission%s already decided\n", resumed, resumed == 1 ? "" : "s");
    fflush(stdout);
}

/* One line per unit as it ends. */
static void print_unit_line(const struct grade_settings *s, const struct grade_unit *u)
{
    char name[256];
    grade_submission_name(s->submissions[u->submission], u->submission, s->n_submissions, name, sizeof name);
    printf("  %s: ", name);
    if (u->status != UNIT_GRADED)
        printf("%s: %s", grade_unit_status_name(u->status), u->message);
    else if (u->lincheck.ran && u->failing == 0)
        printf("no failure in %" PRIu64 " scenarios (%" PRIu64 " proved by dpor)", u->schedules_run,
               u->lincheck.proved);
    else if (u->lincheck.ran)
        printf("%s in %" PRIu64 " of %" PRIu64 " scenarios, first in scenario %" PRIu64 ": %s",
               u->first_failure.kind == FAIL_CHECKER ? "not linearizable"
                                                     : grade_verdict_text(grade_verdict_of_failure(u->first_failure.kind)),
               u->failing, u->schedules_run, u->first_failure.execution, u->lincheck.scenario);
    else if (u->failing == 0)
        printf("no failure in %" PRIu64 " schedules", u->schedules_run);
    else    /* the table's word for the verdict: a livelock is a "hang" there */
        printf("%s in %" PRIu64 " of %" PRIu64 " schedules, first in execution %" PRIu64,
               grade_verdict_text(grade_verdict_of_failure(u->first_failure.kind)), u->failing, u->schedules_run,
               u->first_failure.execution);
    printf(" (%.1f s)\n", u->seconds);
    fflush(stdout);
}

/* --lincheck: the spec read once here (exit 2 on an error, as mdat
 * lincheck), made absolute (the units run elsewhere), and the options that
 * judge a program's own run refused. */
static bool check_lincheck(struct grade_settings *s, char abs[PATH_MAX])
{
    if (!s->lincheck_spec)
        return true;
    if (s->check_cmd || s->outcomes || s->exe_name) {
        cli_usage_error("grade", "--lincheck judges each scenario's results itself: --check, --outcomes and --exe "
                                 "go without it%s", "");
        return false;
    }
    struct lc_spec spec;
    char err[1024];
    bool ok = lc_spec_load(s->lincheck_spec, &spec, err, sizeof err);
    lc_spec_free(&spec);
    if (!ok) {
        fprintf(stderr, "mdat grade: %s\n", err);
        return false;
    }
    if (!realpath(s->lincheck_spec, abs)) {
        fprintf(stderr, "mdat grade: %s: %s\n", s->lincheck_spec, strerror(errno));
        return false;
    }
    s->lincheck_spec = abs;
    return true;
}

int cmd_grade(int argc, char **argv)
{
    enum { OPT_BUILD = OPT_GRADE_NEXT, OPT_EXE, OPT_BUILD_TIMEOUT, OPT_SUBMISSION_TIMEOUT, OPT_MAX_CPU,
           OPT_MAX_MEMORY, OPT_MAX_PROCS, OPT_MAX_FILE_SIZE, OPT_SHARD, OPT_RESUME, OPT_NO_SANDBOX, OPT_MAX_DISK,
           OPT_OUTCOMES, OPT_WATCH, OPT_LINCHECK, OPT_LINCHECK_SCENARIOS, OPT_LINCHECK_INIT };
    static const struct option longopts[] = {
        CLI_EXPLORE_OPTIONS,
        REPORT_OPTIONS,
        {"build", required_argument, NULL, OPT_BUILD},
        {"exe", required_argument, NULL, OPT_EXE},
        {"build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT},
        {"submission-timeout", required_argument, NULL, OPT_SUBMISSION_TIMEOUT},
        {"max-cpu", required_argument, NULL, OPT_MAX_CPU},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"max-procs", required_argument, NULL, OPT_MAX_PROCS},
        {"max-file-size", required_argument, NULL, OPT_MAX_FILE_SIZE},
        {"out", required_argument, NULL, 'o'},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"no-sandbox", no_argument, NULL, OPT_NO_SANDBOX},
        {"max-disk", required_argument, NULL, OPT_MAX_DISK},
        {"outcomes", no_argument, NULL, OPT_OUTCOMES},
        {"watch", required_argument, NULL, OPT_WATCH},
        {"lincheck", required_argument, NULL, OPT_LINCHECK},
        {"lincheck-scenarios", required_argument, NULL, OPT_LINCHECK_SCENARIOS},
        {"lincheck-init", required_argument, NULL, OPT_LINCHECK_INIT},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct cli_explore e = {
        .schedules = 200,
        .seed = 1,
        .strategy = "portfolio",
        .depth = 3,
        .jobs = cli_available_cpus(),
        .max_steps = CLI_DEFAULT_MAX_STEPS,
        .timeout_sec = CLI_DEFAULT_TIMEOUT_SEC,
    };
    struct grade_settings s = {
        .limits = {.cpu_sec = 60, .address_space = 4ull << 30, .nproc = 256, .file_size = 64ull << 20},
        .unit_timeout_sec = 600,
        .build_timeout_sec = 300,
        .out_dir = "mdat-grade",
        .sandbox = true,
        .max_disk = 1ull << 30,
        .lincheck_scenarios = 10,
    };
    const char *watches[argc];      /* --watch values: fewer than the arguments */
    s.watches = watches;
    bool resume = false;
    int shard_k = 0, shard_n = 0;
    struct report_paths paths = {0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+" CLI_EXPLORE_SHORT "o:h", longopts, NULL)) != -1) {
        int taken = cli_explore_option("grade", c, optarg, &e);
        if (taken == 0)
            taken = grade_formats_option("grade", c, optarg, &paths.formats);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken || report_option(c, optarg, &paths))
            continue;
        switch (c) {
        case OPT_BUILD:
            s.build_cmd = optarg;
            break;
        case OPT_EXE:
            if (!*optarg)
                return cli_usage_error("grade", "--exe wants a file name%s", "");
            s.exe_name = optarg;
            break;
        case OPT_BUILD_TIMEOUT:
            if (!cli_parse_seconds(optarg, &s.build_timeout_sec, true))
                return cli_usage_error("grade", "--build-timeout wants a number of seconds, not \"%s\"", optarg);
            break;
        case OPT_SUBMISSION_TIMEOUT:
            if (!cli_parse_seconds(optarg, &s.unit_timeout_sec, true))
                return cli_usage_error("grade", "--submission-timeout wants a number of seconds, not \"%s\"", optarg);
            break;
        case OPT_MAX_CPU:
            if (!cli_parse_u64(optarg, &s.limits.cpu_sec))
                return cli_usage_error("grade", "--max-cpu wants a whole number of seconds, not \"%s\"", optarg);
            break;
        case OPT_MAX_MEMORY:
            if (!cli_parse_size(optarg, &s.limits.address_space))
                return cli_usage_error("grade", "--max-memory wants a size (512M, 4G), not \"%s\"", optarg);
            break;
        case OPT_MAX_PROCS:
            if (!cli_parse_u64(optarg, &s.limits.nproc))
                return cli_usage_error("grade", "--max-procs wants a number, not \"%s\"", optarg);
            break;
        case OPT_MAX_FILE_SIZE:
            if (!cli_parse_size(optarg, &s.limits.file_size))
                return cli_usage_error("grade", "--max-file-size wants a size (64M), not \"%s\"", optarg);
            break;
        case 'o':
            s.out_dir = optarg;
            break;
        case OPT_RESUME:
            resume = true;
            break;
        case OPT_NO_SANDBOX:
            s.sandbox = false;
            break;
        case OPT_MAX_DISK:
            if (!cli_parse_size(optarg, &s.max_disk) || s.max_disk < (1u << 20))
                return cli_usage_error("grade", "--max-disk wants a size of at least 1M (256M, 2G), not \"%s\"", optarg);
            break;
        case OPT_OUTCOMES:
            s.outcomes = true;
            break;
        case OPT_WATCH:
            watches[s.n_watches++] = optarg;
            break;
        case OPT_LINCHECK:
            s.lincheck_spec = optarg;
            break;
        case OPT_LINCHECK_SCENARIOS:
            if (!cli_parse_u64(optarg, &s.lincheck_scenarios) || s.lincheck_scenarios < 1 ||
                s.lincheck_scenarios > 100000)
                return cli_usage_error("grade", "--lincheck-scenarios wants a number from 1, not \"%s\"", optarg);
            break;
        case OPT_LINCHECK_INIT:
            if (!cli_parse_u64(optarg, &s.lincheck_init) || s.lincheck_init > LC_MAX_OPS)
                return cli_usage_error("grade", "--lincheck-init wants 0 to 6, not \"%s\"", optarg);
            break;
        case OPT_SHARD:
            if (!cli_parse_shard(optarg, &shard_k, &shard_n))
                return cli_usage_error("grade", "--shard wants K/N with 1 <= K <= N, not \"%s\"", optarg);
            break;
        case 'h':
            print_grade_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            return cli_bad_option("grade", optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "mdat grade: no submission given (usage: mdat grade [options] SUBMISSION...)\n");
        return EXIT_USAGE;
    }
    if (s.n_watches && !s.outcomes)
        return cli_usage_error("grade", "--watch goes with --outcomes (the values are part of each outcome)%s", "");
    if (shard_n && (paths.csv || paths.html))
        return cli_usage_error("grade", "with --shard only the shard report is written (--json FILE): combine the "
                                        "shards with mdat merge for CSV and HTML%s", "");
    s.submissions = (const char *const *)argv + optind;
    s.n_submissions = argc - optind;
    s.schedules = e.schedules;
    s.seed = e.seed;
    s.strategy = e.strategy;
    s.depth = e.depth;
    s.max_steps = e.max_steps;
    s.timeout_sec = e.timeout_sec;
    s.check_cmd = e.check_cmd;
    s.fail_on_exit = e.fail_on_exit;
    s.detect = cli_detect_options(&e);
    /* A race costs its own point, and the execution still goes on to the
     * checker and its exit status, which judge the output a race spoiled. */
    if (!e.races_given)
        s.detect.races = RACES_FAIL_AT_END;
    s.preempt = (enum preempt_mode)e.preempt;
    s.tso = e.tso;
    if (!cli_check_preempt("grade", &e))
        return EXIT_USAGE;
    if (strategy_is_systematic(e.strategy))
        return cli_usage_error("grade", "--strategy %s is a search run in order, not by shards: grade takes random, "
                               "pct, pos, surw or portfolio", e.strategy);
    static char check_cmd[PATH_MAX + 4096];
    if (!resolve_checker(&s.check_cmd, check_cmd, sizeof check_cmd))
        return EXIT_USAGE;
    static char lincheck_spec[PATH_MAX];
    if (!check_lincheck(&s, lincheck_spec))
        return EXIT_USAGE;
    int jobs = cli_cap_jobs(e.jobs);
    for (int i = 0; i < s.n_submissions && !s.lincheck_spec; i++) {
        struct stat st;
        if (stat(s.submissions[i], &st) == 0 && S_ISDIR(st.st_mode) && !s.build_cmd && !s.exe_name)
            return cli_usage_error("grade", "%s is a directory: say how to build it (--build CMD) or which program "
                                            "in it to run (--exe NAME)", s.submissions[i]);
    }
    if (!make_directories(s.out_dir)) {
        fprintf(stderr, "mdat grade: cannot create %s: %s\n", s.out_dir, strerror(errno));
        return EXIT_CANNOT_RUN;
    }
    if (!grade_formats_ready("grade", &paths.formats, shard_n != 0))    /* after OUT exists: --junit OUT/... */
        return EXIT_USAGE;
    if (!shard_n && !reports_writable("grade", &paths, s.out_dir))
        return EXIT_USAGE;
    char shard_path[PATH_MAX], err[PATH_MAX + 300];
    if (shard_n) {
        if (!paths.json)
            snprintf(shard_path, sizeof shard_path, "%s/shard-%d-of-%d.json", s.out_dir, shard_k, shard_n);
        else
            snprintf(shard_path, sizeof shard_path, "%s", paths.json);
        if (!safe_file_writable(shard_path, err, sizeof err)) {
            fprintf(stderr, "mdat grade: %s\n", err);
            return EXIT_USAGE;
        }
    }
    struct grade_unit *units = calloc((size_t)s.n_submissions + 1, sizeof *units);
    size_t n_units = 0;
    struct grade_journal journal;
    if (!grade_journal_start(&journal, &s, shard_k, shard_n, resume, units, (size_t)s.n_submissions, &n_units, err,
                             sizeof err)) {
        fprintf(stderr, "mdat grade: %s\n", err);
        free(units);
        return resume ? EXIT_USAGE : EXIT_CANNOT_RUN;
    }
    grade_become_subreaper();
    grade_catch_stop_signals();
    grade_sandbox_announce(&s);
    print_start(&s, jobs, shard_k, shard_n, resume ? n_units : 0);
    char shard_tag[64] = "";
    if (shard_n)
        snprintf(shard_tag, sizeof shard_tag, "-shard-%d-of-%d", shard_k, shard_n);

    int status = EXIT_NO_FAILURE;
    for (int i = 0; i < s.n_submissions && !grade_stop_signal(); i++) {
        uint64_t first = 0, end = grade_units_total(&s);
        if (shard_n)
            grade_shard_range(grade_units_total(&s), shard_k, shard_n, &first, &end);
        if (first == end || decided(units, n_units, i))
            continue;   /* fewer schedules than shards: nothing of this one here; or decided before --resume */
        if (!grade_run_unit(&s, jobs, i, first, end, shard_tag, &units[n_units]))
            break;
        print_unit_line(&s, &units[n_units]);
        if (!grade_journal_append(&journal, &units[n_units], err, sizeof err)) {
            fprintf(stderr, "mdat grade: %s\n", err);
            status = EXIT_CANNOT_RUN;
        }
        n_units++;
    }
    grade_journal_close(&journal);
    int sig = grade_stop_signal();
    if (sig)
        printf("\nmdat grade: stopped by %s: %zu of %d submission%s decided, kept in %s; mdat grade --resume with "
               "the same options grades the rest\n",
               sigabbrev_np(sig) ? sigabbrev_np(sig) : "a signal", n_units, s.n_submissions,
               s.n_submissions == 1 ? "" : "s", journal.path);
    if (shard_n) {
        if (sig) {
            /* A shard report holds every unit of its shard: mdat merge would refuse a part. */
        } else if (!grade_write_shard(shard_path, &s, shard_k, shard_n, units, n_units, err, sizeof err)) {
            fprintf(stderr, "mdat grade: %s\n", err);
            status = EXIT_CANNOT_RUN;
        } else {
            printf("mdat: shard %d of %d written to %s; combine all %d with mdat merge\n", shard_k, shard_n,
                   shard_path, shard_n);
        }
    } else {
        int st = finish_reports("grade", &s, units, n_units, &paths, sig != 0);
        if (status == EXIT_NO_FAILURE)
            status = st;
    }
    for (size_t i = 0; i < n_units; i++)
        grade_unit_free(&units[i]);
    free(units);
    if (sig) {
        fflush(NULL);
        return 128 + sig;   /* the shell's convention for a command ended by a signal */
    }
    return status;
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        REPORT_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct report_paths paths = {0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        int taken = grade_formats_option("merge", c, optarg, &paths.formats);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken || report_option(c, optarg, &paths))
            continue;
        switch (c) {
        case 'h':
            print_merge_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            return cli_bad_option("merge", optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "mdat merge: no shard report given (usage: mdat merge [options] SHARD.json...)\n");
        return EXIT_USAGE;
    }
    if (!grade_formats_ready("merge", &paths.formats, false))
        return EXIT_USAGE;
    size_t n = (size_t)(argc - optind);
    const char *const *files = (const char *const *)argv + optind;
    struct grade_shard *shards = calloc(n, sizeof *shards);
    char err[PATH_MAX + 300];
    int status = EXIT_NO_FAILURE;
    size_t n_read = 0;
    for (; n_read < n; n_read++)
        if (!grade_read_shard(files[n_read], &shards[n_read], err, sizeof err)) {
            n_read++;
            status = EXIT_CANNOT_RUN;
            break;
        }
    if (status == EXIT_NO_FAILURE && !grade_check_shards(shards, files, n, err, sizeof err))
        status = EXIT_CANNOT_RUN;
    if (status != EXIT_NO_FAILURE) {
        fprintf(stderr, "mdat merge: %s\n", err);
    } else {
        size_t n_units = 0;
        for (size_t i = 0; i < n; i++)
            n_units += shards[i].n_units;
        struct grade_unit *units = calloc(n_units + 1, sizeof *units);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t u = 0; u < shards[i].n_units; u++)
                units[k++] = shards[i].units[u];
        const struct grade_settings *s = &shards[0].settings;
        printf("mdat: merging %zu shard%s of %d submission%s\n", n, n == 1 ? "" : "s", s->n_submissions,
               s->n_submissions == 1 ? "" : "s");
        status = finish_reports("merge", s, units, n_units, &paths, false);
        free(units);
    }
    for (size_t i = 0; i < n_read; i++)
        grade_shard_free(&shards[i]);
    free(shards);
    return status;
}
