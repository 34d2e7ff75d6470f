/* lc_run: drives the serial runs and `mdat run` for one scenario (see
 * lc_run.h). Children are waited for before returning: none outlives it. */
#include "ui/lincheck/lc_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/launch/spawn.h"
#include "ui/lincheck/lc_realtime.h"
#include "ui/text/json_reader.h"

enum { MAX_ARGV = 96 };

/* Runs argv with stdout to out_path (stderr too when with_stderr) and
 * returns its exit status, -1 when it did not exit. as_program: the code
 * under test runs natively, as the program's user (a no-op outside mdat
 * grade's sandbox), with the limits in force for the program. */
static int run_to_file(char *const *argv, const char *out_path, bool with_stderr, bool as_program)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null_fd = open("/dev/null", O_RDWR);
        if (fd < 0 || null_fd < 0)
            _exit(126);
        dup2(null_fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(with_stderr ? fd : null_fd, STDERR_FILENO);
        if (as_program && (!spawn_apply_limits() || !spawn_become_program_user()))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        char *grown = realloc(text, len + n + 1);
        if (!grown)
            break;
        text = grown;
        memcpy(text + len, buf, n);
        len += n;
        text[len] = '\0';
    }
    fclose(f);
    return text ? text : strdup("");
}

struct serial_ctx {
    const struct lc_settings *set;
    char **scenario_argv;
    int scenario_argc;
    const char *tmp_path;
    struct lc_outcomes *allowed;
    char error[256];
};

static bool run_one_order(const int *order, int n, void *p)
{
    struct serial_ctx *ctx = p;
    char order_text[512] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(order_text);
        snprintf(order_text + used, sizeof order_text - used, "%s%d", i ? "," : "", order[i]);
    }
    char *argv[MAX_ARGV];
    int argc = 0;
    argv[argc++] = (char *)ctx->set->harness;
    argv[argc++] = "--serial";
    argv[argc++] = order_text;
    for (int i = 0; i < ctx->scenario_argc && argc < MAX_ARGV - 1; i++)
        argv[argc++] = ctx->scenario_argv[i];
    argv[argc] = NULL;
    int status = run_to_file(argv, ctx->tmp_path, false, true);
    if (status != 0) {
        snprintf(ctx->error, sizeof ctx->error,
                 "a serial run of the harness (order %s) failed with status %d: the calls fail even one at a time",
                 order_text, status);
        return false;
    }
    /* The stamps of a native run mean nothing: the results alone are kept. */
    char *text = slurp(ctx->tmp_path);
    struct lc_history h;
    bool ok = text && lc_history_parse(text, &h);
    if (ok) {
        ok = lc_outcomes_add_order(ctx->allowed, h.results, order_text);
        lc_history_free(&h);
    }
    free(text);
    return ok;
}

/* '...' for /bin/sh. */
static void shell_quote(const char *s, char *out, size_t len)
{
    size_t o = 0;
    out[o++] = '\'';
    for (; *s && o + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
}

static void read_summary(const char *json_path, struct lc_result *out)
{
    char err[256];
    struct json_value *doc = json_parse_file(json_path, err, sizeof err);
    if (!doc) {
        out->verdict = LC_ERROR;
        snprintf(out->error, sizeof out->error, "mdat run wrote no summary (%s): see %s", err, out->log_file);
        return;
    }
    uint64_t count = 0;
    if (json_member_u64(doc, "classes", &count) || json_member_u64(doc, "schedules_run", &count))
        out->executions = count;
    out->proved = json_member_true(doc, "exhaustive");
    const struct json_value *failures = json_member(doc, "failures");
    if (failures && failures->type == JSON_ARRAY && failures->n > 0) {
        const struct json_value *f = &failures->items[0];
        out->verdict = LC_FAILED;
        out->proved = false;
        snprintf(out->kind, sizeof out->kind, "%s", json_member_string(f, "kind"));
        snprintf(out->message, sizeof out->message, "%s", json_member_string(f, "message"));
        snprintf(out->schedule_file, sizeof out->schedule_file, "%s", json_member_string(f, "schedule_file"));
        snprintf(out->stdout_file, sizeof out->stdout_file, "%s", json_member_string(f, "stdout_file"));
    }
    json_value_free(doc);
}

static bool serial_outcomes(const struct lc_settings *set, const struct lc_scenario *s, char **sargv, int sargc,
                            struct lc_result *out)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/serial.out", out->dir);
    struct serial_ctx ctx = {.set = set, .scenario_argv = sargv, .scenario_argc = sargc, .tmp_path = tmp,
                             .allowed = &out->allowed};
    out->serial_orders = lc_orders_each(s->nops, s->nthreads, set->quiescent, run_one_order, &ctx);
    unlink(tmp);
    if (ctx.error[0]) {
        snprintf(out->error, sizeof out->error, "%s", ctx.error);
        return false;
    }
    char allowed_path[4200];
    snprintf(allowed_path, sizeof allowed_path, "%s/allowed.txt", out->dir);
    if (!lc_outcomes_write(&out->allowed, allowed_path)) {
        snprintf(out->error, sizeof out->error, "cannot write %s", allowed_path);
        return false;
    }
    return true;
}

void lc_run_scenario(const struct lc_spec *spec, const struct lc_settings *set, const struct lc_scenario *s,
                     uint64_t seed, const char *dir, struct lc_result *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    snprintf(out->log_file, sizeof out->log_file, "%s/run.log", dir);
    out->verdict = LC_ERROR;
    mkdir(dir, 0755);
    char *sargv[MAX_ARGV];
    int sargc = lc_scenario_argv(spec, s, sargv, MAX_ARGV - 32);
    if (!serial_outcomes(set, s, sargv, sargc, out))
        goto done;

    char allowed_q[8500], self_q[8500], check[17200], json_path[4200], seed_text[32], n_text[32];
    char allowed_path[4200];
    snprintf(allowed_path, sizeof allowed_path, "%s/allowed.txt", dir);
    shell_quote(allowed_path, allowed_q, sizeof allowed_q);
    shell_quote(set->self, self_q, sizeof self_q);
    snprintf(check, sizeof check, "%s lincheck --judge %s%s", self_q, allowed_q, set->real_time ? " --real-time" : "");
    snprintf(json_path, sizeof json_path, "%s/run.json", dir);
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    snprintf(n_text, sizeof n_text, "%llu", (unsigned long long)set->schedules);
    if (set->explore) {
        char *hargv[MAX_ARGV];
        int hargc = 0;
        hargv[hargc++] = (char *)set->harness;
        for (int i = 0; i < sargc && hargc < MAX_ARGV - 1; i++)
            hargv[hargc++] = sargv[i];
        hargv[hargc] = NULL;
        set->explore(set->explore_ctx, hargv, hargc, check, seed, dir, out);
        goto done;
    }
    char *argv[MAX_ARGV];
    int argc = 0;
    const char *fixed[] = {set->self, "run", "--strategy", set->strategy, "-n", n_text, "-s", seed_text,
                           "-j", "1", "-o", dir, "--json", json_path, "--check", check,
                           "--memory-model", set->memory_model};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[argc++] = (char *)fixed[i];
    if (!set->shrink_schedule)
        argv[argc++] = "--no-shrink";
    argv[argc++] = "--";
    argv[argc++] = (char *)set->harness;
    for (int i = 0; i < sargc; i++)
        argv[argc++] = sargv[i];
    argv[argc] = NULL;
    unlink(json_path);
    int status = run_to_file(argv, out->log_file, true, false);
    if (status != 0 && status != 1) {
        snprintf(out->error, sizeof out->error, "mdat run ended with status %d: see %s", status, out->log_file);
        goto done;
    }
    out->verdict = LC_PASSED;
    read_summary(json_path, out);
    if (status == 1 && out->verdict == LC_PASSED) {
        out->verdict = LC_ERROR;
        snprintf(out->error, sizeof out->error, "mdat run found a failure its summary does not list: see %s",
                 out->log_file);
    }
done:
    for (int i = 0; i < sargc; i++)
        free(sargv[i]);
}

void lc_result_free(struct lc_result *r)
{
    lc_outcomes_free(&r->allowed);
}
