/* schedule: the record of one execution's choices, and its text file.
 *
 * A schedule file says everything needed to re-execute a run exactly: mdat's
 * version, the program, its arguments, the binary's SHA-256, strategy, seed,
 * execution index, and every choice made where more than one was possible. */
#ifndef MDAT_SUPERVISOR_SCHEDULE_H
#define MDAT_SUPERVISOR_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "supervisor/detect/race_report.h"
#include "supervisor/engine/choices.h"
#include "supervisor/launch/spawn.h"

/* Where strategies may switch threads (--preempt): before every visible
 * operation; only before calls, system calls and thread ends; or as sync
 * plus the accesses seen racing in the execution so far. */
enum preempt_mode { PREEMPT_MODE_ALL, PREEMPT_MODE_SYNC, PREEMPT_MODE_RACES };
const char *preempt_mode_name(enum preempt_mode m);
bool preempt_mode_from_name(const char *name, enum preempt_mode *m);

struct schedule {
    char mdat_version[32];
    char *program;          /* absolute path */
    char **args;            /* program arguments after argv[0] */
    int n_args;
    char sha256[65];
    char strategy[32];
    int depth;
    uint64_t seed;          /* base seed of the batch */
    uint64_t execution;     /* index within the batch */
    uint64_t steps;         /* visible steps of the recorded execution */
    char failure[32];       /* failure kind name, "none" */
    /* A shrunk schedule (explore/shrink.h): its preemptions, and the steps
     * and preemptions of the execution it was shrunk from (0 steps: not
     * shrunk, none written). Informative. */
    uint64_t preemptions;
    uint64_t shrunk_from_steps;
    uint64_t shrunk_from_preemptions;
    /* The verdict settings, so that replay judges the run the same way. */
    char *check_cmd;        /* NULL: none */
    bool fail_on_exit;
    enum preempt_mode preempt;      /* all when absent */
    bool tso;                       /* --memory-model tso; sc when absent */
    uint64_t max_steps;
    uint64_t max_output;    /* bytes kept of each captured output (0: the default) */
    double timeout_sec;
    double time_limit_sec;
    /* What judged each step: races (off in files from before mdat knew
     * races) and invariants. */
    enum race_mode races;
    char **invariants;
    int n_invariants;
    /* The program's standard input: a file (relative to the schedule when
     * not absolute) and its SHA-256; NULL: it read /dev/null. */
    char *stdin_file;
    char stdin_sha256[65];
    /* The program's resource limits (mdat grade), as explore_options has
     * them: replay applies them again. All 0 without limits. */
    struct spawn_limits limits;
    struct choice_list choices;
};

void schedule_init(struct schedule *s);
void schedule_free(struct schedule *s);
void schedule_set_program(struct schedule *s, const char *program, char *const *args, int n_args);
void schedule_set_invariants(struct schedule *s, const char *const *exprs, int n);
/* Deep copy (dst is initialised by the call). */
void schedule_copy(struct schedule *dst, const struct schedule *src);

bool schedule_write(const struct schedule *s, const char *path, char *err, size_t errlen);
/* The command that replays the schedule at path, as a shell reads it (the
 * path quoted when it needs to be): "mdat replay PATH", with
 * --trust-check when its failure is the checker's verdict (a schedule's
 * command runs only when the user says so, and the verdict needs it). */
void schedule_replay_command(const char *path, bool checker_verdict, char *out, size_t len);
/* Reads a schedule file. A relative `program` is taken relative to the
 * file's own directory (and made absolute). */
bool schedule_read(const char *path, struct schedule *s, char *err, size_t errlen);
/* The same from an open stream, named `name` in messages; relative paths
 * are left as they are. Strict: numbers in range (thread ids 1..INT_MAX,
 * finite seconds), escapes well formed, every message "NAME:LINE: why". */
bool schedule_read_stream(FILE *f, const char *name, struct schedule *s, char *err, size_t errlen);
/* A schedule file larger than this is refused before it is read. */
#define SCHEDULE_MAX_FILE (256 << 20)

/* `sha256 -` in a file: any binary may replay it (course material built on
 * each machine; the replay still stops with a divergence if the program
 * does not follow the choices). */
#define SCHEDULE_ANY_BINARY "-"
/* The binary with this SHA-256 may replay s. */
bool schedule_binary_matches(const struct schedule *s, const char *sha256);

#endif
