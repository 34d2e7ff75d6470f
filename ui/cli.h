/* cli: what the subcommands' option parsing shares: numbers, durations and
 * sizes from the command line, and the one-line usage error. */
#ifndef MDAT_UI_CLI_H
#define MDAT_UI_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* A non-negative decimal integer, the whole string. */
bool cli_parse_u64(const char *s, uint64_t *out);
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

#endif
