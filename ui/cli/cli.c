/* cli: parsing helpers shared by mdat's subcommands. */
#include "ui/cli/cli.h"

#include <stdio.h>
#include <limits.h>
#include <unistd.h>

#include "ui/cli/commands.h"
#include "supervisor/explore/explore.h"
#include "supervisor/explore/program_input.h"
#include "supervisor/explore/schedule.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_shard(const char *s, int *k, int *n)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s))
        return false;
    long a = strtol(s, &end, 10);
    if (*end != '/' || !isdigit((unsigned char)end[1]))
        return false;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 1 || b < 1 || a > b || b > 100000)
        return false;
    *k = (int)a;
    *n = (int)b;
    return true;
}

bool cli_parse_seconds(const char *s, double *out, bool allow_zero)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(allow_zero ? v >= 0 : v > 0) || v > 1e9)
        return false;
    *out = v;
    return true;
}

bool cli_parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || *end || (shift && v > (UINT64_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "mdat %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see mdat %s --help)\n", cmd);
    return EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int optopt_char, const char *arg)
{
    /* A long option's optopt is its code, not a character to print. */
    if (optopt_char > 0 && optopt_char < 128 && isalnum(optopt_char))
        fprintf(stderr, "mdat %s: option -%c is unknown or needs a value (see mdat %s --help)\n", cmd, optopt_char,
                cmd);
    else
        fprintf(stderr, "mdat %s: %s is unknown or needs a value (see mdat %s --help)\n", cmd, arg, cmd);
    return EXIT_USAGE;
}

int cli_available_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return 1;
}

int cli_cap_jobs(int jobs)
{
    int cpus = cli_available_cpus();
    if (jobs <= cpus)
        return jobs;
    printf("mdat: -j %d is more than the %d CPU%s mdat may use here: running %d job%s, one per CPU\n", jobs, cpus,
           cpus == 1 ? "" : "s", cpus, cpus == 1 ? "" : "s");
    return cpus;
}

bool cli_read_program_input(const char *cmd, const struct cli_explore *e, struct program_input *in)
{
    char err[PATH_MAX + 100];
    bool ok = true;
    if (e->stdin_file)
        ok = program_input_from_file(in, e->stdin_file, err, sizeof err);
    else if (!isatty(0))
        ok = program_input_from_fd(in, 0, "-", err, sizeof err);
    else
        program_input_none(in);
    if (ok && in->fd >= 0 && in->size == 0 && !e->stdin_file) {
        /* An empty standard input (/dev/null, a closed pipe) is no input. */
        program_input_free(in);
        program_input_none(in);
    }
    if (!ok)
        fprintf(stderr, "mdat %s: %s\n", cmd, err);
    return ok;
}

struct detect_options cli_detect_options(const struct cli_explore *e)
{
    return (struct detect_options){.races = e->races_given ? e->races : RACES_FAIL,
                                   .invariants = e->invariants, .n_invariants = e->n_invariants};
}

bool cli_check_preempt(const char *cmd, const struct cli_explore *e)
{
    if (e->tso && strategy_is_systematic(e->strategy)) {
        fprintf(stderr, "mdat %s: --memory-model tso goes with a randomized strategy (random, pct, pos, surw or "
                "portfolio), not %s\n", cmd, e->strategy);
        return false;
    }
    if (e->both_bounds) {
        fprintf(stderr, "mdat %s: --preemption-bound and --delay-bound cannot go together: choose one\n", cmd);
        return false;
    }
    if (e->bound_kind && strcmp(e->strategy, "dfs") != 0) {
        fprintf(stderr, "mdat %s: %s goes with --strategy dfs, not %s\n", cmd,
                e->bound_kind == 1 + DFS_DELAYS ? "--delay-bound" : "--preemption-bound", e->strategy);
        return false;
    }
    if (strcmp(e->strategy, "dpor") == 0 && e->preempt != PREEMPT_MODE_ALL) {
        fprintf(stderr, "mdat %s: --strategy dpor needs --preempt all (every step may be a choice)\n", cmd);
        return false;
    }
    if (e->preempt == PREEMPT_MODE_RACES && e->races_given && e->races == RACES_OFF) {
        fprintf(stderr, "mdat %s: --preempt races needs the race detector (--races fail or warn)\n", cmd);
        return false;
    }
    return true;
}

bool cli_check_invariants(const char *cmd, const debuginfo *exe, const struct detect_options *o)
{
    char err[400];
    struct detectors *d = detectors_new(&(struct detect_options){RACES_OFF, o->invariants, o->n_invariants}, exe,
                                        err, sizeof err);
    if (!d) {
        fprintf(stderr, "mdat %s: %s\n", cmd, err);
        return false;
    }
    detectors_free(d);
    return true;
}

bool cli_check_watches(const char *cmd, const debuginfo *exe, const char *const *watches, int n)
{
    for (int i = 0; i < n; i++) {
        char why[200];
        if (!debuginfo_check_object(exe, watches[i], why, sizeof why)) {
            fprintf(stderr, "mdat %s: --watch '%s': %s\n", cmd, watches[i], why);
            return false;
        }
    }
    return true;
}

int cli_explore_option(const char *cmd, int c, const char *arg, struct cli_explore *e)
{
    uint64_t v;
    const char *why = NULL;
    switch (c) {
    case 'n':
        if (!cli_parse_u64(arg, &e->schedules) || e->schedules == 0)
            why = "--schedules wants a positive number, not \"%s\"";
        break;
    case 's':
        if (!cli_parse_u64(arg, &e->seed))
            why = "--seed wants a non-negative number, not \"%s\"";
        e->seed_given = true;
        break;
    case CLI_OPT_STRATEGY:
        if (!strategy_name_known(arg))
            why = "unknown strategy \"%s\" (random, pct, pos, surw, portfolio, dfs or dpor)";
        e->strategy = arg;
        break;
    case CLI_OPT_PREEMPTION_BOUND:
    case CLI_OPT_DELAY_BOUND: {
        int kind = 1 + (c == CLI_OPT_DELAY_BOUND ? DFS_DELAYS : DFS_PREEMPTIONS);
        if (!cli_parse_u64(arg, &v) || v > 1000000)
            why = c == CLI_OPT_DELAY_BOUND ? "--delay-bound wants a number from 0 to 1000000, not \"%s\""
                                           : "--preemption-bound wants a number from 0 to 1000000, not \"%s\"";
        if (e->bound_kind && e->bound_kind != kind)
            e->both_bounds = true;
        e->bound_kind = kind;
        e->max_bound = (int)v;
        break;
    }
    case CLI_OPT_DEPTH:
        /* auto: 0, chosen per execution (strategy_pct.c). */
        if (strcmp(arg, "auto") == 0)
            v = 0;
        else if (!cli_parse_u64(arg, &v) || v == 0 || v > 100)
            why = "--depth wants a number from 1 to 100 or auto, not \"%s\"";
        e->depth = (int)v;
        break;
    case 'j':
        if (!cli_parse_u64(arg, &v) || v == 0 || v > 1024)
            why = "--jobs wants a number from 1 to 1024, not \"%s\"";
        e->jobs = (int)v;
        break;
    case CLI_OPT_MAX_STEPS:
        if (!cli_parse_u64(arg, &e->max_steps) || e->max_steps == 0)
            why = "--max-steps wants a positive number, not \"%s\"";
        break;
    case CLI_OPT_TIMEOUT:
        if (!cli_parse_seconds(arg, &e->timeout_sec, false))
            why = "--timeout wants a positive number of seconds, not \"%s\"";
        break;
    case CLI_OPT_TIME_LIMIT:
        if (!cli_parse_seconds(arg, &e->time_limit_sec, false))
            why = "--time-limit wants a positive number of seconds, not \"%s\"";
        break;
    case CLI_OPT_STDIN:
        e->stdin_file = arg;
        break;
    case CLI_OPT_CHECK:
        e->check_cmd = arg;
        break;
    case CLI_OPT_RACES:
        if (!race_mode_from_name(arg, &e->races))
            why = "--races wants fail, warn or off, not \"%s\"";
        e->races_given = true;
        break;
    case CLI_OPT_INVARIANT:
        if (e->n_invariants == CLI_MAX_INVARIANTS)
            why = "at most 32 --invariant options (\"%s\" is one more)";
        else if (!arg[strspn(arg, " \t")])
            why = "--invariant wants a C expression, not \"%s\"";
        else
            e->invariants[e->n_invariants++] = arg;
        break;
    case CLI_OPT_PREEMPT: {
        enum preempt_mode m;
        if (!preempt_mode_from_name(arg, &m))
            why = "--preempt wants all, sync or races, not \"%s\"";
        e->preempt = (int)m;
        break;
    }
    case CLI_OPT_MEMORY_MODEL:
        if (strcmp(arg, "tso") != 0 && strcmp(arg, "sc") != 0)
            why = "--memory-model wants sc or tso, not \"%s\"";
        e->tso = strcmp(arg, "tso") == 0;
        break;
    case CLI_OPT_FAIL_ON_EXIT:
        e->fail_on_exit = true;
        break;
    default:
        return 0;
    }
    if (why) {
        cli_usage_error(cmd, why, arg);
        return -1;
    }
    return 1;
}
