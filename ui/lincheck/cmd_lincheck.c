/* cmd_lincheck: `mdat lincheck [options] SPEC`: builds the spec's harness,
 * checks generated scenarios one by one (lc_run.c), shrinks the first
 * failing one to the fewest calls that still fail, and reports
 * (lc_report.c). Also the checker mdat run calls back:
 * `mdat lincheck --judge ALLOWED [--real-time]` (the program's output on
 * stdin). */
#include "ui/cli/commands.h"
#include "ui/lincheck/lc_check.h"
#include "ui/lincheck/lc_harness.h"
#include "ui/lincheck/lc_realtime.h"
#include "ui/lincheck/lc_report.h"
#include "ui/lincheck/lc_run.h"
#include "help/mdat-lincheck.h" /* generated from docs/man/mdat-lincheck.1.scd */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void print_lincheck_usage(FILE *f)
{
    fputs(mdat_lincheck_help, f);
}

/* The checker: exit 0 when stdin's results are one of the allowed
 * outcomes (with real_time, given by a serial order that keeps the
 * real-time order of the calls). */
static int judge(const char *allowed_path, bool real_time)
{
    struct lc_outcomes allowed = {0};
    if (!lc_outcomes_read(&allowed, allowed_path)) {
        fprintf(stderr, "mdat lincheck --judge: cannot read %s\n", allowed_path);
        return EXIT_USAGE;
    }
    char *text = NULL;
    size_t len = 0, n;
    char buf[4096];
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
        char *grown = realloc(text, len + n + 1);
        if (!grown)
            break;
        text = grown;
        memcpy(text + len, buf, n);
        len += n;
        text[len] = '\0';
    }
    char why[1024];
    enum lc_judgement verdict = lc_judge(&allowed, text ? text : "", real_time, why, sizeof why);
    bool ok = verdict == LC_JUDGED_OK;
    if (verdict == LC_JUDGED_NO_ORDER)
        printf("no serial order of these calls gives these results (%zu outcomes allowed, listed in %s)\n",
               allowed.n, allowed_path);
    else if (verdict == LC_JUDGED_REAL_TIME)
        printf("not linearizable: %s\n", why);
    free(text);
    lc_outcomes_free(&allowed);
    return ok ? 0 : 1;
}

struct options {
    const char *spec_path;
    const char *out_dir;
    const char *json_path;
    const char *cflags;
    const char *memory_model;
    const char *strategy;       /* NULL: dpor under sc, the portfolio under tso */
    int threads, ops, init, post, scenarios;
    uint64_t schedules, seed;
    bool quiescent, real_time, shrink;
};

static bool parse_number(const char *text, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v > max)
        return false;
    *out = v;
    return true;
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = {
        {"threads", required_argument, NULL, 't'}, {"ops", required_argument, NULL, 'k'},
        {"init", required_argument, NULL, 'i'},    {"post", required_argument, NULL, 'P'},    {"scenarios", required_argument, NULL, 'c'},
        {"schedules", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},     {"json", required_argument, NULL, 'J'},
        {"cflags", required_argument, NULL, 'F'},  {"memory-model", required_argument, NULL, 'M'},
        {"strategy", required_argument, NULL, 'S'}, {"quiescent", no_argument, NULL, 'Q'},
        {"consistency", required_argument, NULL, 'C'},     {"no-shrink", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},          {0, 0, 0, 0}};
    *o = (struct options){.out_dir = "mdat-out", .memory_model = "sc", .threads = 2, .ops = 2, .scenarios = 10,
                          .schedules = 1000, .seed = (uint64_t)time(NULL), .real_time = true, .shrink = true};
    optind = 1;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "n:s:o:h", longs, NULL)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case 't': if (!parse_number(optarg, LC_MAX_THREADS, &v) || v < 1) bad = "--threads wants 1 to 4"; else o->threads = (int)v; break;
        case 'k': if (!parse_number(optarg, LC_MAX_OPS, &v) || v < 1) bad = "--ops wants 1 to 6"; else o->ops = (int)v; break;
        case 'i': if (!parse_number(optarg, LC_MAX_OPS, &v)) bad = "--init wants 0 to 6"; else o->init = (int)v; break;
        case 'P': if (!parse_number(optarg, LC_MAX_OPS, &v)) bad = "--post wants 0 to 6"; else o->post = (int)v; break;
        case 'c': if (!parse_number(optarg, 100000, &v) || v < 1) bad = "--scenarios wants a number from 1"; else o->scenarios = (int)v; break;
        case 'n': if (!parse_number(optarg, UINT32_MAX, &v) || v < 1) bad = "-n wants a number from 1"; else o->schedules = v; break;
        case 's': if (!parse_number(optarg, UINT64_MAX, &v)) bad = "--seed wants a number"; else o->seed = v; break;
        case 'o': o->out_dir = optarg; break;
        case 'J': o->json_path = optarg; break;
        case 'F': o->cflags = optarg; break;
        case 'M':
            if (strcmp(optarg, "sc") != 0 && strcmp(optarg, "tso") != 0) bad = "--memory-model wants sc or tso";
            else o->memory_model = optarg;
            break;
        case 'S':
            if (strcmp(optarg, "dpor") != 0 && strcmp(optarg, "portfolio") != 0 && strcmp(optarg, "random") != 0 &&
                strcmp(optarg, "pct") != 0 && strcmp(optarg, "pos") != 0 && strcmp(optarg, "surw") != 0)
                bad = "--strategy wants dpor, portfolio, random, pct, pos or surw";
            else
                o->strategy = optarg;
            break;
        case 'Q': o->quiescent = true; o->real_time = false; break;
        case 'C':
            if (strcmp(optarg, "linearizable") == 0) { o->quiescent = false; o->real_time = true; }
            else if (strcmp(optarg, "sequential") == 0) { o->quiescent = false; o->real_time = false; }
            else if (strcmp(optarg, "quiescent") == 0) { o->quiescent = true; o->real_time = false; }
            else bad = "--consistency wants linearizable, sequential or quiescent";
            break;
        case 'N': o->shrink = false; break;
        case 'h': print_lincheck_usage(stdout); return EXIT_NO_FAILURE;
        default: return EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "mdat lincheck: %s\n", bad);
            return EXIT_USAGE;
        }
    }
    if (o->strategy && strcmp(o->strategy, "dpor") == 0 && strcmp(o->memory_model, "tso") == 0) {
        fprintf(stderr, "mdat lincheck: dpor explores sc only: with --memory-model tso take a randomized strategy\n");
        return EXIT_USAGE;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mdat lincheck: one spec file expected (see mdat lincheck --help)\n");
        return EXIT_USAGE;
    }
    o->spec_path = argv[optind];
    return -1;
}

static bool prepare(const struct options *o, struct lc_spec *spec, char *out_abs, char *harness, char *self)
{
    char err[1024];
    if (!lc_spec_load(o->spec_path, spec, err, sizeof err)) {
        fprintf(stderr, "mdat lincheck: %s\n", err);
        return false;
    }
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mdat lincheck: cannot create %s: %s\n", o->out_dir, strerror(errno));
        return false;
    }
    char base[PATH_MAX];
    if (!realpath(o->out_dir, base)) {
        fprintf(stderr, "mdat lincheck: %s: %s\n", o->out_dir, strerror(errno));
        return false;
    }
    snprintf(out_abs, PATH_MAX, "%s/lincheck", base);
    mkdir(out_abs, 0755);
    char c_path[PATH_MAX + 32], log_path[PATH_MAX + 32];
    snprintf(c_path, sizeof c_path, "%s/harness.c", out_abs);
    snprintf(log_path, sizeof log_path, "%s/build.log", out_abs);
    snprintf(harness, PATH_MAX, "%s/harness", out_abs);
    if (!lc_harness_write(spec, o->spec_path, c_path)) {
        fprintf(stderr, "mdat lincheck: cannot write %s\n", c_path);
        return false;
    }
    if (!lc_harness_build(spec, c_path, o->cflags, harness, log_path, err, sizeof err)) {
        fprintf(stderr, "mdat lincheck: %s: %s\n", o->spec_path, err);
        return false;
    }
    ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
    if (n <= 0) {
        fprintf(stderr, "mdat lincheck: cannot find mdat's own executable\n");
        return false;
    }
    self[n] = '\0';
    return true;
}

int cmd_lincheck(int argc, char **argv)
{
    if ((argc == 3 || (argc == 4 && strcmp(argv[3], "--real-time") == 0)) && strcmp(argv[1], "--judge") == 0)
        return judge(argv[2], argc == 4);
    struct options o;
    int early = parse_options(argc, argv, &o);
    if (early >= 0)
        return early;
    struct lc_spec spec;
    static char out_abs[PATH_MAX], harness[PATH_MAX], self[PATH_MAX];
    if (!prepare(&o, &spec, out_abs, harness, self)) {
        lc_spec_free(&spec);
        return EXIT_USAGE;
    }
    bool sc = strcmp(o.memory_model, "sc") == 0;
    const char *strategy = o.strategy ? o.strategy : sc ? "dpor" : "portfolio";
    bool dpor = strcmp(strategy, "dpor") == 0;
    struct lc_settings set = {.self = self, .harness = harness, .strategy = strategy,
                              .memory_model = o.memory_model, .schedules = o.schedules, .quiescent = o.quiescent,
                              .real_time = o.real_time, .shrink_schedule = o.shrink};
    printf("mdat lincheck: %s, seed %llu, %d scenarios of %d threads x %d calls%s%s, %s, %s memory, against %s%s\n",
           o.spec_path, (unsigned long long)o.seed, o.scenarios, o.threads, o.ops, o.init ? " after init calls" : "",
           o.post ? " and before post calls" : "",
           strategy, o.memory_model,
           o.quiescent   ? "every order of the calls (quiescent consistency)"
           : o.real_time ? "serial orders keeping each thread's order and real time (linearizability)"
                         : "serial orders keeping each thread's order (sequential consistency)",
           spec.has_seq ? ", run on the sequential implementation" : "");
    struct lc_summary sum = {.spec_path = o.spec_path, .seed = o.seed, .scenarios_requested = o.scenarios,
                             .memory_model = o.memory_model, .strategy = set.strategy, .quiescent = o.quiescent,
                             .real_time = o.real_time};
    static struct lc_check_outcome res;
    struct lc_check_plan plan = {.spec = &spec, .set = &set, .out_dir = out_abs, .seed = o.seed, .first = 1,
                                 .end = o.scenarios + 1, .threads = o.threads, .ops = o.ops, .init = o.init,
                                 .post = o.post, .stop_at_failure = true, .shrink = o.shrink};
    lc_check_scenarios(&plan, stdout, true, &res);
    sum.scenarios_run = res.scenarios_run;
    sum.executions = res.executions;
    sum.proved = res.proved;
    sum.all_classes = res.all_classes;
    int status = EXIT_NO_FAILURE;
    if (res.error_index) {
        fprintf(stderr, "mdat lincheck: %s\n", res.error);
        status = EXIT_CANNOT_RUN;
    } else if (res.failing_index) {
        sum.failed = 1;
        sum.original_calls = res.original_calls;
        sum.failing = &res.failing;
        sum.failure = &res.failure;
        sum.failing_index = res.failing_index;
        status = EXIT_FAILURE_FOUND;
    }
    char proved[128];
    if (o.real_time && dpor)
        snprintf(proved, sizeof proved, "%d SC-proved (dpor: every class; real time checked on one interleaving "
                 "per class)", sum.all_classes);
    else
        snprintf(proved, sizeof proved, "%d proved (dpor: every interleaving)", sum.proved);
    printf("\nmdat lincheck: %d of %d scenarios checked, %s, %llu %s; %s\n",
           sum.scenarios_run, o.scenarios, proved, (unsigned long long)sum.executions,
           dpor ? "classes of interleavings" : "executions sampled",
           status == EXIT_FAILURE_FOUND ? "1 failing scenario" : status == 0 ? "no failure found" : "stopped");
    if (o.json_path && !lc_report_json(o.json_path, &spec, &sum)) {
        fprintf(stderr, "mdat lincheck: cannot write %s\n", o.json_path);
        if (status == 0)
            status = EXIT_CANNOT_RUN;
    }
    if (sum.failure)
        lc_result_free(&res.failure);
    lc_spec_free(&spec);
    return status;
}
