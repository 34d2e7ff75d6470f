/* main: mdat's entry point; dispatches to the subcommands. */
#include <stdio.h>

#include "ui/cli/commands.h"
#include "help/mdat.h"          /* generated from docs/man/mdat.1.scd */

#include <string.h>

static void print_usage(FILE *f)
{
    fputs(mdat_help, f);
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
        return cmd_merge(argc - 1, argv + 1);
    fprintf(stderr, "mdat: unknown command \"%s\" (see mdat --help)\n", cmd);
    return EXIT_USAGE;
}
