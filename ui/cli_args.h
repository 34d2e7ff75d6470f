/* cli_args: small pieces every subcommand's option parsing shares: numbers
 * as the user types them, and the one-line usage errors (exit status 2). */
#ifndef MDAT_UI_CLI_ARGS_H
#define MDAT_UI_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* A decimal number without sign or blanks; false for anything else. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* "mdat COMMAND: <fmt with arg> (see mdat COMMAND --help)" on stderr;
 * returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, const char *arg);
/* The message for what getopt refused (optopt, or the argument at
 * argv[optind - 1]); returns EXIT_USAGE. */
int cli_bad_option(const char *command, int opt, const char *arg);

#endif
