/* grade_lincheck: a unit of `mdat grade --lincheck` (see grade_lincheck.h).
 * Unlike `mdat lincheck`, every scenario of the unit's range is checked
 * (not only up to the first failure), so that the scenario counts of a
 * sharded grading add up to those of an unsharded one; the first failing
 * scenario is shrunk and reported as lincheck reports it. */
#include "ui/grade/grade_lincheck.h"

#include "supervisor/explore/explore.h"
#include "ui/cli/cli.h"
#include "ui/lincheck/lc_check.h"
#include "ui/lincheck/lc_harness.h"
#include "ui/lincheck/lc_report.h"
#include "ui/render/trace_formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What exploring a scenario needs besides what lc_run gives. */
struct explore_ctx {
    const struct grade_settings *s;
    const char *strategy;
};

/* The limits of the native serial runs: the program's, as in its
 * executions (the nproc allowance over what the user runs now). Set again
 * after each exploration, which leaves none in force. */
static void install_serial_limits(const struct grade_settings *s)
{
    struct spawn_limits limits = s->limits;
    if (limits.nproc)
        limits.nproc += spawn_user_tasks() + 1;
    spawn_set_limits(&limits);
}

/* lc_explore_fn: the scenario's harness explored here, as grade explores a
 * program (its limits, races, preemption, memory model), the failure
 * shrunk as `mdat run` shrinks it. */
static void explore_scenario(void *ctx, char *const *argv, int argc, const char *check_cmd, uint64_t seed,
                             const char *dir, struct lc_result *out)
{
    const struct explore_ctx *c = ctx;
    const struct grade_settings *s = c->s;
    struct program prog;
    char err[512];
    out->verdict = LC_ERROR;
    if (!program_load(&prog, argv[0], err, sizeof err)) {
        snprintf(out->error, sizeof out->error, "%s", err);
        return;
    }
    struct explore_options opt = {
        .argv = argv,
        .argc = argc,
        .schedules = s->schedules,
        .seed = seed,
        .strategy = c->strategy,
        .depth = s->depth,
        .max_bound = -1,
        .jobs = 1,
        .max_steps = s->max_steps,
        .timeout_sec = s->timeout_sec,
        .check_cmd = check_cmd,
        .detect = s->detect,
        .preempt = (enum preempt_mode)s->preempt,
        .tso = s->tso,
        .shrink = true,
        .shrink_runs = CLI_DEFAULT_SHRINK_RUNS,
        .shrink_seconds = CLI_DEFAULT_SHRINK_SECONDS,
        .limits = &s->limits,
        .out_dir = dir,
        .saved_trace_formats = trace_formats,
    };
    struct explore_summary sum;
    bool explored = explore_run(&prog, &opt, &sum, err, sizeof err);
    install_serial_limits(s);
    if (!explored) {
        if (sum.interrupted)
            explore_summary_free(&sum);
        snprintf(out->error, sizeof out->error, "%s", err);
        program_free(&prog);
        return;
    }
    out->verdict = LC_PASSED;
    out->executions = sum.systematic ? sum.classes : sum.schedules_run;
    out->proved = sum.exhaustive;
    if (sum.n_failures > 0) {
        const struct explore_failure *f = &sum.failures[0];
        enum failure_kind kind = f->result.kind != FAIL_NONE ? f->result.kind : f->found;
        out->verdict = LC_FAILED;
        out->proved = false;
        snprintf(out->kind, sizeof out->kind, "%s", failure_kind_name(kind));
        snprintf(out->message, sizeof out->message, "%s", f->result.message);
        snprintf(out->schedule_file, sizeof out->schedule_file, "%s", f->schedule_file);
        snprintf(out->stdout_file, sizeof out->stdout_file, "%s", f->stdout_file);
        snprintf(out->schedule_sha256, sizeof out->schedule_sha256, "%s", f->schedule_sha256);
    }
    explore_summary_free(&sum);
    program_free(&prog);
}

/* The spec's relative file names made absolute: the submission's file when
 * it has one, else the spec folder's (the teacher's header or sequential
 * implementation). */
static void resolve_files(struct lc_spec *spec, const char *files_dir, const char *spec_dir)
{
    for (int i = 0; i < spec->nsources; i++) {
        if (spec->sources[i][0] == '/')
            continue;
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", files_dir, spec->sources[i]);
        if (access(path, F_OK) != 0)
            snprintf(path, sizeof path, "%s/%s", spec_dir, spec->sources[i]);
        char *abs = strdup(path);
        if (abs) {
            free(spec->sources[i]);
            spec->sources[i] = abs;
        }
    }
}

/* Loads the spec and builds its harness on the submission's files; false
 * with u's status and message set. */
static bool build_harness(const struct grade_settings *s, const char *files_dir, const char *harness_dir,
                          const char *lc_dir, struct lc_spec *spec, char *harness, size_t harness_len,
                          struct grade_unit *u)
{
    char err[1024];
    if (!lc_spec_load(s->lincheck_spec, spec, err, sizeof err)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "%s", err);
        return false;
    }
    char spec_dir[sizeof spec->dir], include[sizeof spec->dir + 4];
    snprintf(spec_dir, sizeof spec_dir, "%s", spec->dir);
    resolve_files(spec, files_dir, spec_dir);
    /* The submission's folder first on the include path, then the spec's. */
    snprintf(spec->dir, sizeof spec->dir, "%s", files_dir);
    snprintf(include, sizeof include, "-I%s", spec_dir);
    char c_path[PATH_MAX + 32], log_path[PATH_MAX + 32];
    snprintf(c_path, sizeof c_path, "%s/harness.c", lc_dir);
    snprintf(harness, harness_len, "%s/mdat-lincheck-harness", harness_dir);
    snprintf(log_path, sizeof log_path, "%s/mdat-lincheck-build.log", harness_dir);
    if (!lc_harness_write(spec, s->lincheck_spec, c_path)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "cannot write %s", c_path);
        return false;
    }
    if (!lc_harness_build(spec, c_path, include, harness, log_path, err, sizeof err)) {
        u->status = UNIT_BUILD_FAILED;
        snprintf(u->message, sizeof u->message, "%s", err);
        FILE *log = fopen(log_path, "r");
        if (log) {
            size_t n = fread(u->build_output, 1, sizeof u->build_output - 1, log);
            u->build_output[n] = '\0';
            fclose(log);
        }
        return false;
    }
    return true;
}

/* The failing scenario's table, as lincheck prints it, cut to fit. */
static void keep_table(const struct lc_spec *spec, const struct lc_check_outcome *res, struct grade_unit *u)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    lc_report_table(mem, spec, &res->failing, &res->failure, res->failing_index, false, true);
    fclose(mem);
    const char *start = text;
    while (*start == '\n')
        start++;
    snprintf(u->lincheck.table, sizeof u->lincheck.table, "%s", start);
    free(text);
}

/* What lincheck found, into the unit as grade counts it: a scenario is a
 * schedule, a failing one a failing schedule of its kind. */
static void fill_unit(const struct lc_spec *spec, const struct lc_check_outcome *res, struct grade_unit *u)
{
    u->schedules_run = (uint64_t)res->scenarios_run;
    u->failing = (uint64_t)res->failed;
    u->output_accepted = (uint64_t)(res->scenarios_run - res->failed);
    for (int i = 0; i < res->n_failed_kinds; i++)
        u->failing_by_kind[failure_kind_from_name(res->failed_kinds[i].kind)] += (uint64_t)res->failed_kinds[i].count;
    u->lincheck.proved = (uint64_t)res->all_classes;
    u->lincheck.interleavings = res->executions;
    if (!res->failing_index)
        return;
    const struct lc_result *r = &res->failure;
    struct grade_failure *g = &u->first_failure;
    u->has_failure = true;
    g->execution = (uint64_t)res->failing_index;
    g->kind = failure_kind_from_name(r->kind);
    g->reproduced = true;
    /* The judge's word, without the checker's command line before it. */
    const char *said = strstr(r->message, "(exit 1): ");
    snprintf(g->message, sizeof g->message, "%s", g->kind == FAIL_CHECKER && said ? said + 10 : r->message);
    snprintf(g->schedule_file, sizeof g->schedule_file, "%s", r->schedule_file);
    snprintf(g->schedule_sha256, sizeof g->schedule_sha256, "%s", r->schedule_sha256);
    lc_scenario_text(spec, &res->failing, u->lincheck.scenario, sizeof u->lincheck.scenario);
    keep_table(spec, res, u);
}

void grade_lincheck_unit(const struct grade_settings *s, const char *files_dir, const char *harness_dir,
                         const char *unit_dir, struct grade_unit *u)
{
    char lc_dir[PATH_MAX + 16], harness[PATH_MAX + 64], self[PATH_MAX], unit_abs[PATH_MAX], files_abs[PATH_MAX];
    /* Absolute: the checker's command names the allowed outcomes' file. */
    if (!realpath(unit_dir, unit_abs) || !realpath(files_dir, files_abs)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "cannot find %s: %s", unit_dir, strerror(errno));
        return;
    }
    files_dir = files_abs;
    snprintf(lc_dir, sizeof lc_dir, "%s/lincheck", unit_abs);
    if (mkdir(lc_dir, 0755) != 0 && errno != EEXIST) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "cannot create %s: %s", lc_dir, strerror(errno));
        return;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    struct lc_spec spec;
    if (!build_harness(s, files_dir, harness_dir, lc_dir, &spec, harness, sizeof harness, u)) {
        lc_spec_free(&spec);
        return;
    }
    install_serial_limits(s);
    struct explore_ctx ctx = {.s = s, .strategy = s->tso ? s->strategy : "dpor"};
    struct lc_settings set = {.self = self, .harness = harness, .strategy = ctx.strategy,
                              .memory_model = s->tso ? "tso" : "sc", .schedules = s->schedules,
                              .real_time = true, .shrink_schedule = true, .explore = explore_scenario,
                              .explore_ctx = &ctx};
    struct lc_check_plan plan = {.spec = &spec, .set = &set, .out_dir = lc_dir, .seed = s->seed,
                                 .first = (int)u->first + 1, .end = (int)u->end + 1, .threads = 2, .ops = 2,
                                 .init = (int)s->lincheck_init, .stop_at_failure = false, .shrink = true};
    char log_path[PATH_MAX + 32];
    snprintf(log_path, sizeof log_path, "%s/report.txt", lc_dir);
    FILE *log = fopen(log_path, "w");
    static struct lc_check_outcome res;
    lc_check_scenarios(&plan, log ? log : stderr, true, &res);
    if (log)
        fclose(log);
    u->lincheck.ran = true;
    u->lincheck.dpor = strcmp(ctx.strategy, "dpor") == 0;
    if (res.error_index) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "mdat lincheck: %s", res.error);
    } else {
        fill_unit(&spec, &res, u);
    }
    if (res.failing_index)
        lc_result_free(&res.failure);
    lc_spec_free(&spec);
}
