/* lc_orders: the pure part of the check. The serial orders a history is
 * compared against (every interleaving of whole operations that keeps each
 * thread's order, or for quiescent consistency every order at all), and
 * whether an observed outcome is among the allowed ones. No processes, no
 * files: cmd_lincheck.c runs the orders and feeds the outcomes. */
#ifndef MDAT_UI_LINCHECK_ORDERS_H
#define MDAT_UI_LINCHECK_ORDERS_H

#include <stdbool.h>
#include <stddef.h>

/* One serial order: call indices in the scenario's numbering (thread 0's
 * calls first, then thread 1's, ...), n of them. Return false to stop. */
typedef bool (*lc_order_fn)(const int *order, int n, void *ctx);

/* Calls fn for every order of the calls of nthreads threads with nops[t]
 * calls each: interleavings keeping each thread's order, or (quiescent)
 * every permutation. Returns how many orders were visited. */
size_t lc_orders_each(const int *nops, int nthreads, bool quiescent, lc_order_fn fn, void *ctx);

/* Outcomes are the harness's printed results, one line per call, each
 * with the serial orders that gave it (the real-time check needs them). */
struct lc_outcomes {
    char **text;
    char **orders;              /* per outcome: its orders ("0,2,1,3"), ';' between */
    size_t n, cap;
};

/* Adds an outcome unless already there; false when out of memory. */
bool lc_outcomes_add(struct lc_outcomes *set, const char *text);
/* The same, noting that serial order `order` gave it. */
bool lc_outcomes_add_order(struct lc_outcomes *set, const char *text, const char *order);
bool lc_outcomes_contains(const struct lc_outcomes *set, const char *text);
/* The index of outcome text, or -1. */
long lc_outcomes_find(const struct lc_outcomes *set, const char *text);
void lc_outcomes_free(struct lc_outcomes *set);

/* The allowed-outcomes file the checker reads: outcomes separated by a line
 * "--", each preceded by a line "@order ORDER" per serial order giving it. */
bool lc_outcomes_write(const struct lc_outcomes *set, const char *path);
bool lc_outcomes_read(struct lc_outcomes *set, const char *path);

/* Whether line `line` (0-based) of `observed` equals that line of some
 * allowed outcome: false marks a result no serial order gives. */
bool lc_line_possible(const struct lc_outcomes *set, const char *observed, int line);

#endif
