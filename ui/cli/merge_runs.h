/* merge_runs: `mdat merge` of the shard reports of `mdat run --shard K/N`
 * (mdat merge of grading shards is ui/grade's). */
#ifndef MDAT_UI_CLI_MERGE_RUNS_H
#define MDAT_UI_CLI_MERGE_RUNS_H

#include <stdbool.h>

/* Whether an argument of `mdat merge` names a run shard report (then the
 * whole command is a merge of run shards). */
bool merge_runs_given(int argc, char **argv);
/* mdat merge [--json FILE] SHARD.json...: the exit status (0 no failure,
 * 1 a failure in the merged run, 2 usage, 3 the shards are not one run). */
int cmd_merge_runs(int argc, char **argv);

#endif
