/* invariants: C expressions over the program's globals that must hold after
 * every step (--invariant 'men_inside + women_inside <= 4').
 *
 * Owns checking the expressions before anything runs (a bad one is the
 * user's mistake: unknown variable, syntax, a struct where a number is
 * wanted) and, as an engine listener, judging them after every step: the
 * first step after which one is false fails the execution as `invariant`,
 * with the values of its terms. Evaluation is debuginfo's (data_expr.h). */
#ifndef MDAT_DETECT_INVARIANTS_H
#define MDAT_DETECT_INVARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/engine/exec_listener.h"

struct invariants;

/* Checks every expression against the program's debug information. NULL
 * with a one-line reason ("invariant 'x > 0': no variable named 'x'") when
 * one is bad. */
struct invariants *invariants_new(const debuginfo *exe, const char *const *exprs, int n, char *err,
                                  size_t errlen);
void invariants_free(struct invariants *inv);
struct exec_listener invariants_hooks(struct invariants *inv);

#endif
