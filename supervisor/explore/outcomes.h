/* outcomes: executions grouped by how they ended (mdat run --outcomes):
 * the exit status (or signal, or failure kind and location), the values of
 * the --watch expressions at exit, and a hash of the program's standard
 * output. Each outcome keeps its count and the lowest execution index that
 * produced it, whose schedule is saved; the table is sorted by count, then
 * by that index, so neither -j nor the order results arrive in changes it. */
#ifndef MDAT_EXPLORE_OUTCOMES_H
#define MDAT_EXPLORE_OUTCOMES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exec_result;

/* How one execution ended, fixed-size (it crosses a worker's pipe). */
struct outcome_key {
    int32_t kind;                   /* enum failure_kind */
    int32_t exited, exit_status, term_signal, incomplete;
    char location[160];             /* of a failure */
    char watches[512];              /* "expr = value" per --watch, '\n'-separated; "" without */
    char stdout_sha256[65];         /* "" when the output was not captured */
};

struct outcome {
    struct outcome_key key;
    uint64_t count;
    uint64_t execution;             /* the lowest index that ended so */
    char schedule_file[PATH_MAX];   /* its schedule, once saved */
    bool reproduced;                /* the saving re-run ended the same way */
};

struct outcome_table {
    struct outcome *at;
    size_t n, cap;
};

/* The key of res; out_fd (-1: none) holds the execution's standard output. */
void outcome_key_of(const struct exec_result *res, int out_fd, struct outcome_key *k);
bool outcome_key_equal(const struct outcome_key *a, const struct outcome_key *b);
void outcome_table_add(struct outcome_table *t, const struct outcome_key *k, uint64_t execution);
/* Adds another table's outcome (a shard's, a unit's): counts are summed,
 * and the lowest execution with its schedule kept. */
void outcome_table_merge(struct outcome_table *t, const struct outcome *o);
/* The executions the table counts (the share's denominator). */
uint64_t outcome_table_total(const struct outcome_table *t);
/* Most frequent first; ties by the lowest execution index. */
void outcome_table_sort(struct outcome_table *t);
void outcome_table_free(struct outcome_table *t);
/* One line: "exit 0, counter = 4, stdout 9f86d081884c" or
 * "assertion at counter.c:51, counter = 3, ...". */
void outcome_describe(const struct outcome_key *k, char *buf, size_t len);

#endif
