/* cli_args: number parsing and usage errors for the subcommands. */
#include <stdio.h>

#include "ui/cli_args.h"
#include "ui/commands.h"

#include <errno.h>
#include <stdlib.h>

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

int cli_usage_error(const char *command, const char *fmt, const char *arg)
{
    fprintf(stderr, "mdat %s: ", command);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see mdat %s --help)\n", command);
    return EXIT_USAGE;
}

int cli_bad_option(const char *command, int opt, const char *arg)
{
    if (opt)
        fprintf(stderr, "mdat %s: option -%c is unknown or needs a value (see mdat %s --help)\n", command, opt,
                command);
    else
        fprintf(stderr, "mdat %s: %s is unknown or needs a value (see mdat %s --help)\n", command, arg, command);
    return EXIT_USAGE;
}
