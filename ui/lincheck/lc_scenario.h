/* lc_scenario: a lincheck scenario (an init part run first by one thread,
 * then each thread's operations run in parallel, then a post part run by
 * one thread once all have ended), its generation from a
 * seed, and its encoding as the harness's argv. Knows nothing of how it is
 * run or checked (cmd_lincheck.c, lc_orders.c). */
#ifndef MDAT_UI_LINCHECK_SCENARIO_H
#define MDAT_UI_LINCHECK_SCENARIO_H

#include <stdint.h>

#include "ui/lincheck/lc_spec.h"

enum { LC_MAX_THREADS = 4, LC_MAX_OPS = 6 };

struct lc_call {
    int op;                     /* index in the spec's operations */
    long arg;                   /* its argument, when the operation takes one */
};

struct lc_scenario {
    int ninit;
    struct lc_call init[LC_MAX_OPS];
    int nthreads;
    int nops[LC_MAX_THREADS];
    struct lc_call calls[LC_MAX_THREADS][LC_MAX_OPS];
    int npost;
    struct lc_call post[LC_MAX_OPS];
};

/* A random scenario of nthreads x nops parallel calls after ninit init
 * calls and before npost post calls; the same seed gives the same
 * scenario (and the post calls come last, so a seed's init and parallel
 * calls do not depend on npost). */
void lc_scenario_generate(const struct lc_spec *spec, uint64_t seed, int ninit, int nthreads, int nops, int npost,
                          struct lc_scenario *out);
/* The harness's arguments: "init" CALL... "thread" CALL... per thread,
 * "post" CALL..., each
 * CALL "name" or "name=arg". Empty threads are left out. Returns how many
 * strings were stored in argv (at most max); each is malloc'ed. */
int lc_scenario_argv(const struct lc_spec *spec, const struct lc_scenario *s, char **argv, int max);
/* The same as one line, for reports: "init push(1) | T2 push(2) pop() | T3 pop()"
 * (threads numbered as in mdat's traces: T1 is main). */
/* One call as the reports show it: "push(3)", "pop()". */
void lc_call_text(const struct lc_spec *spec, const struct lc_call *c, char *buf, size_t len);
void lc_scenario_text(const struct lc_spec *spec, const struct lc_scenario *s, char *buf, size_t len);
/* Removes call `index` of the scenario, counting the init calls first and
 * then each thread's in order, then the post calls; a thread left without
 * calls is dropped. */
void lc_scenario_drop_call(struct lc_scenario *s, int index);
int lc_scenario_size(const struct lc_scenario *s);

#endif
