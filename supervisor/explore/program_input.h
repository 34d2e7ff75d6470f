/* program_input: the bytes every execution of a program reads on its
 * standard input.
 *
 * Read once (from a file, or from mdat's own standard input when that is
 * not a terminal) and kept in a memory file, so that every execution, in
 * every worker, and every replay reads exactly the same bytes from the
 * start. Without input an execution reads /dev/null. A schedule names the
 * input by a file and its SHA-256 (schedule.h). */
#ifndef MDAT_EXPLORE_PROGRAM_INPUT_H
#define MDAT_EXPLORE_PROGRAM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct program_input {
    int fd;                 /* memfd with the bytes; -1: no input (/dev/null) */
    uint64_t size;
    char sha256[65];
    char origin[4096];      /* the file it came from, "-" for standard input */
};

/* No input: executions read /dev/null. */
void program_input_none(struct program_input *in);
/* Reads path (one-line reason on failure: missing, a directory...). */
bool program_input_from_file(struct program_input *in, const char *path, char *err, size_t errlen);
/* Reads file descriptor fd to its end. */
bool program_input_from_fd(struct program_input *in, int fd, const char *origin, char *err, size_t errlen);
/* A new file descriptor for one execution's stdin, at offset 0 (its own
 * file description: a child's reads do not move another's); -1 on error. */
int program_input_open(const struct program_input *in);
/* Writes a copy of the bytes to path (saved beside a failure's schedule). */
bool program_input_save(const struct program_input *in, const char *path, char *err, size_t errlen);
void program_input_free(struct program_input *in);

#endif
