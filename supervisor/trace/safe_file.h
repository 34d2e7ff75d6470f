/* safe_file: output files that are never seen half-written. A file is
 * written under a temporary name next to its destination and renamed over
 * it only once complete, so an interrupted writer leaves the previous
 * complete file (or nothing), never a truncated one. Used by every report
 * writer of mdat run and mdat grade, and by the checks of their
 * destinations before any work starts. */
#ifndef MDAT_TRACE_SAFE_FILE_H
#define MDAT_TRACE_SAFE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct safe_file {
    FILE *f;
    char path[PATH_MAX];        /* the destination */
    char tmp[PATH_MAX];         /* where it is written until committed */
};

/* Opens a temporary file next to path for writing. NULL with "cannot write
 * PATH: reason" in err. */
FILE *safe_file_open(struct safe_file *sf, const char *path, char *err, size_t errlen);
/* Flushes, syncs and renames the file to its destination. false (and the
 * temporary file removed) with a reason in err. */
bool safe_file_commit(struct safe_file *sf, char *err, size_t errlen);
/* Drops the temporary file; the destination is untouched. */
void safe_file_abort(struct safe_file *sf);

/* Whether a file could be created or replaced at path now: its directory
 * exists and is writable, and path is not a directory. false with a
 * one-line reason naming path. */
bool safe_file_writable(const char *path, char *err, size_t errlen);
/* The same for a directory that will be created if missing (its nearest
 * existing ancestor must be a writable directory). */
bool safe_dir_writable(const char *path, char *err, size_t errlen);

#endif
