/* main: mdat's entry point; dispatches to the subcommands. */
#include <stdio.h>

#include "ui/cli/commands.h"
#include "ui/cli/merge_runs.h"
#include "supervisor/engine/execution.h"
#include "help/mdat.h"          /* generated from docs/man/mdat.1.scd */

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void print_usage(FILE *f)
{
    fputs(mdat_help, f);
}

/* The programs mdat runs run as this user (in mdat run; mdat grade as
 * root gives them a user of their own): the kernel lets a process of the
 * same user read and write another's memory (/proc/PID/mem,
 * process_vm_writev), open its descriptors and trace it, unless that
 * process is not dumpable. mdat and every process it forks (workers,
 * fork servers) are not; a program is from its exec on (spawn.c).
 * MDAT_DUMPABLE=1 keeps mdat dumpable, for a debugger or a core file of
 * mdat itself. The first process also names mdat for exec_refuse.c: what
 * is below it and not the program's is mdat's. */
static void keep_out_of_reach(void)
{
    const char *dumpable = getenv("MDAT_DUMPABLE");
    if (!dumpable || strcmp(dumpable, "1") != 0)
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    execution_set_mdat_root(getpid());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return EXIT_NO_FAILURE;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("mdat %s\n", MDAT_VERSION);
        return EXIT_NO_FAILURE;
    }
    keep_out_of_reach();
    /* Our output and the program's go to the same terminal: keep ours in order. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "shrink") == 0)
        return cmd_shrink(argc - 1, argv + 1);
    if (strcmp(cmd, "attach") == 0)
        return cmd_attach(argc - 1, argv + 1);
    if (strcmp(cmd, "grade") == 0)
        return cmd_grade(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return merge_runs_given(argc - 1, argv + 1) ? cmd_merge_runs(argc - 1, argv + 1) : cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "lincheck") == 0)
        return cmd_lincheck(argc - 1, argv + 1);
    fprintf(stderr, "mdat: unknown command \"%s\" (see mdat --help)\n", cmd);
    return EXIT_USAGE;
}
