/* cli: what the subcommands' option parsing shares: numbers, durations and
 * sizes from the command line, and the one-line usage error. */
#ifndef MDAT_UI_CLI_H
#define MDAT_UI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "supervisor/detect/detectors.h"

/* The exploration options that `mdat run` and `mdat grade` share: their
 * getopt_long entries (CLI_EXPLORE_OPTIONS, to put into a command's table;
 * its own option codes start at CLI_OPT_NEXT) and their values. */
enum { CLI_OPT_STRATEGY = 256, CLI_OPT_DEPTH, CLI_OPT_MAX_STEPS, CLI_OPT_TIMEOUT, CLI_OPT_TIME_LIMIT, CLI_OPT_CHECK,
       CLI_OPT_FAIL_ON_EXIT, CLI_OPT_STDIN, CLI_OPT_RACES, CLI_OPT_INVARIANT, CLI_OPT_PREEMPT, CLI_OPT_MEMORY_MODEL,
       CLI_OPT_PREEMPTION_BOUND, CLI_OPT_DELAY_BOUND, CLI_OPT_NEXT };
/* Defaults: a correct program of millions of steps is never cut short as
 * a failure; a step that runs this long without a visible operation hangs. */
#define CLI_DEFAULT_MAX_STEPS 10000000u
#define CLI_DEFAULT_TIMEOUT_SEC 10.0
/* Shrinking a failure (mdat run, mdat shrink): re-executions and seconds. */
#define CLI_DEFAULT_SHRINK_RUNS 200u
#define CLI_DEFAULT_SHRINK_SECONDS 10.0
enum { CLI_MAX_INVARIANTS = 32 };
#define CLI_EXPLORE_OPTIONS                                                 \
    {"schedules", required_argument, NULL, 'n'},                            \
    {"seed", required_argument, NULL, 's'},                                 \
    {"strategy", required_argument, NULL, CLI_OPT_STRATEGY},                \
    {"depth", required_argument, NULL, CLI_OPT_DEPTH},                      \
    {"jobs", required_argument, NULL, 'j'},                                 \
    {"max-steps", required_argument, NULL, CLI_OPT_MAX_STEPS},              \
    {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT},                  \
    {"time-limit", required_argument, NULL, CLI_OPT_TIME_LIMIT},            \
    {"stdin", required_argument, NULL, CLI_OPT_STDIN},                      \
    {"check", required_argument, NULL, CLI_OPT_CHECK},                      \
    {"races", required_argument, NULL, CLI_OPT_RACES},                      \
    {"invariant", required_argument, NULL, CLI_OPT_INVARIANT},              \
    {"preempt", required_argument, NULL, CLI_OPT_PREEMPT},                  \
    {"memory-model", required_argument, NULL, CLI_OPT_MEMORY_MODEL},        \
    {"fail-on-exit", no_argument, NULL, CLI_OPT_FAIL_ON_EXIT}
/* The bounds of dfs, which only `mdat run` takes (parsed by
 * cli_explore_option all the same). */
#define CLI_BOUND_OPTIONS                                                   \
    {"preemption-bound", required_argument, NULL, CLI_OPT_PREEMPTION_BOUND},\
    {"delay-bound", required_argument, NULL, CLI_OPT_DELAY_BOUND}
/* Their short forms, for the optstring. */
#define CLI_EXPLORE_SHORT "n:s:j:"

struct cli_explore {
    uint64_t schedules;
    uint64_t seed;
    bool seed_given;
    const char *strategy;
    int depth;
    int jobs;
    uint64_t max_steps;
    double timeout_sec;
    double time_limit_sec;
    const char *stdin_file;     /* --stdin FILE; NULL: mdat's own stdin when it is not a terminal */
    const char *check_cmd;
    bool fail_on_exit;
    bool races_given;
    enum race_mode races;       /* --races; fail unless given */
    const char *invariants[CLI_MAX_INVARIANTS];
    int n_invariants;
    int preempt;                /* enum preempt_mode (explore/schedule.h) */
    bool tso;                   /* --memory-model tso */
    /* --preemption-bound or --delay-bound (dfs): which was given (0: none,
     * else 1 + enum dfs_bound) and its value; both given is an error. */
    int bound_kind;
    int max_bound;
    bool both_bounds;
};

/* The help lines of --races and --invariant, for the commands' usage. */
#define CLI_DETECT_USAGE                                                                          \
    "      --races MODE      data races: fail (a `race' failure, the default), warn (print each\n"   \
    "                        pair of racing places once and go on) or off\n"                        \
    "      --invariant EXPR  a C expression over globals that must hold after every step\n"        \
    "                        ('men_inside == 0 || women_inside == 0'); repeatable\n"                \
    "      --preempt WHERE   where threads may be switched: all (before every visible\n"          \
    "                        operation, the default), sync (only before calls and system calls),\n" \
    "                        races (sync, and at accesses once they are seen racing)\n"             \
    "      --memory-model M  sc (every store seen by all at once, the default) or tso (x86:\n"     \
    "                        stores wait in per-thread buffers; with random or pct)\n"

/* --races and --invariant as the detectors want them. */
struct detect_options cli_detect_options(const struct cli_explore *e);
/* --preempt races without the race detector: false after a one-line error. */
bool cli_check_preempt(const char *cmd, const struct cli_explore *e);
/* Checks the invariants against the program's debug information: false
 * after a one-line error on stderr (mdat CMD: invariant 'x': ...). */
bool cli_check_invariants(const char *cmd, const debuginfo *exe, const struct detect_options *o);
/* Checks each --watch against the program's debug information (a name, a
 * member, an index within bounds): false after a one-line error on stderr
 * (mdat CMD: --watch 'x': ...), as for an invariant. */
bool cli_check_watches(const char *cmd, const debuginfo *exe, const char *const *watches, int n);

/* Takes option c (as getopt_long returned it, with its argument) into e
 * if it is one of CLI_EXPLORE_OPTIONS: 1 if it was, 0 if c is another
 * option, -1 after a one-line usage error on stderr (mdat CMD: ...). */
int cli_explore_option(const char *cmd, int c, const char *arg, struct cli_explore *e);

struct program_input;
/* The program's input as the user gave it: --stdin FILE, else mdat's own
 * standard input when it is not a terminal (read to its end now), else
 * none. false after a one-line error on stderr (mdat CMD: ...). */
bool cli_read_program_input(const char *cmd, const struct cli_explore *e, struct program_input *in);

/* A non-negative decimal integer, the whole string. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* --shard K/N: 1 <= K <= N <= 100000. */
bool cli_parse_shard(const char *s, int *k, int *n);
/* A number of seconds > 0 (fractions allowed); with allow_zero, 0 too. */
bool cli_parse_seconds(const char *s, double *out, bool allow_zero);
/* A size in bytes, with an optional K, M or G suffix (powers of 1024). */
bool cli_parse_size(const char *s, uint64_t *out);
/* Prints "mdat CMD: MESSAGE (see mdat CMD --help)" on stderr, the message
 * being fmt with arg; returns the usage exit status. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The unknown-option message for what getopt_long stopped at. */
int cli_bad_option(const char *cmd, int optopt_char, const char *arg);
/* The CPUs this process may run on (at least 1). */
int cli_available_cpus(void);
/* -j N above the CPUs this process may use: N becomes that many, with a
 * one-line note on stdout (each worker and its program are pinned to a
 * CPU of their own; more workers would only take turns on them). */
int cli_cap_jobs(int jobs);

#endif
