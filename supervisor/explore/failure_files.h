/* failure_files: where the files of a failing execution go, and its
 * schedule and input saved, each whole or not at all (safe_file): at once
 * by the worker that finds a failure with --keep-going (a kill before the
 * end loses none), and by failure_record.c when it records one. */
#ifndef MDAT_EXPLORE_FAILURE_FILES_H
#define MDAT_EXPLORE_FAILURE_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/explore/explore.h"
#include "supervisor/explore/shrink.h"

/* OUT/PROG-KIND-sSEED-eINDEX: what every file of execution index, found
 * failing as kind, is named from. */
void failure_stem(const struct program *prog, const struct explore_options *opt, enum failure_kind kind,
                  uint64_t index, char *stem, size_t len);
/* The schedule file of an execution of opt's batch that made choices and
 * ended as kind after steps; sh (NULL: none) says what it was shrunk
 * from. false with a reason when it could not be written. */
bool failure_write_schedule(const struct program *prog, const struct explore_options *opt, uint64_t index,
                            const struct choice_list *choices, uint64_t steps, enum failure_kind kind,
                            const char *stdin_file, const struct shrink_outcome *sh, const char *path, char *err,
                            size_t errlen);
/* The program's input saved as stem.stdin, beside the schedule that names
 * it (*name, NULL when the program reads nothing). */
bool failure_save_input(const struct explore_options *opt, const char *stem, char file[PATH_MAX], const char **name,
                        char *err, size_t errlen);

/* With --keep-going, in the worker that found it: the schedule of failing
 * execution index (res, whose choices were kept) saved at once where
 * record_failure will save it (path), with the program's input: a kill
 * before the end loses none. false with a reason when it could not be
 * written. */
bool failure_save_found(const struct program *prog, const struct explore_options *opt, uint64_t index,
                        const struct exec_result *res, char *path, size_t pathlen, char *err, size_t errlen);
/* Where the schedule of execution index, found failing as kind, is saved. */
void failure_schedule_path(const struct program *prog, const struct explore_options *opt, enum failure_kind kind,
                           uint64_t index, char *path, size_t len);
/* At the end, the files of a failure saved so but not reported (not the
 * first of its kind and place), removed. */
void failure_forget_found(const struct program *prog, const struct explore_options *opt, uint64_t index,
                          enum failure_kind kind);

#endif
