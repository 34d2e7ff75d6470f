/* cli: parsing helpers shared by mdat's subcommands. */
#include "ui/cli.h"

#include <stdio.h>

#include "ui/commands.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

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
    if (optopt_char)
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
