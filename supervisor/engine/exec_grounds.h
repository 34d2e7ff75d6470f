/* exec_grounds: saying that an execution had an effect its steps did not
 * account for.
 *
 * A systematic search (dfs, dpor) proves something about a program only if
 * every effect one thread can have on another was a visible step, where the
 * search can put it before or after the others' steps. Whoever in the
 * engine finds an effect that bypassed the steps calls exec_grounds_lost
 * during the step it happened in: the execution's result keeps the first
 * one (exec_result.grounds, with the step and thread) and counts them all;
 * the search then says NOT exhaustive with that reason instead of
 * "explored all" (explore/systematic.c). Any strategy's execution records
 * it; only the systematic ones' claims depend on it. This file decides
 * nothing about what a bypass is: the callers do (exec_futex.c: a futex
 * call on a word its step's operation does not touch; exec_stops.c and
 * exec_signals.c: library atomics, signals, forks, execs). */
#ifndef MDAT_ENGINE_EXEC_GROUNDS_H
#define MDAT_ENGINE_EXEC_GROUNDS_H

#include "supervisor/engine/exec_core.h"

/* The running step (ex->running, the step after ex->steps) had an effect of
 * that kind that no step accounted for; fmt says what and where, in one
 * line ("T2 woke a futex at 0x4040 that its step (R x) does not touch").
 * Cheap after the first call of an execution (a count). */
void exec_grounds_lost(struct execution *ex, enum grounds_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
