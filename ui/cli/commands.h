/* commands: the `mdat run`, `replay`, `shrink`, `attach`, `grade`,
 * `merge` and `lincheck` subcommands. Each returns the process exit status: 0 no failure (grade,
 * merge: graded, whatever the verdicts), 1 failure found/reproduced, 2 usage
 * error, 3 the program could not be run or mdat failed. */
#ifndef MDAT_UI_COMMANDS_H
#define MDAT_UI_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_NO_FAILURE = 0, EXIT_FAILURE_FOUND = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 3 };

int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_attach(int argc, char **argv);
/* mdat attach -p PID --print | --json (cmd_attach passes them on). */
int cmd_attach_pid(const char *pid_text, bool json, int watch_ms);
int cmd_grade(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_shrink(int argc, char **argv);
/* ui/lincheck/cmd_lincheck.c */
int cmd_lincheck(int argc, char **argv);
void print_run_usage(FILE *f);
void print_replay_usage(FILE *f);
void print_attach_usage(FILE *f);
void print_grade_usage(FILE *f);
void print_merge_usage(FILE *f);
void print_shrink_usage(FILE *f);
void print_lincheck_usage(FILE *f);

#endif
