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
 * nothing about what a bypass is: the callers do (exec_stops.c: libgomp's
 * atomics and parallel regions, forks, clones that are no thread, execs;
 * exec_signals.c: signals no choice timed). What a listener can account
 * for is no bypass: a futex call or a library's lock word inside a step
 * is told to the listeners (futex_call, touched_word), and dpor counts it
 * as part of the step. */
#ifndef MDAT_ENGINE_EXEC_GROUNDS_H
#define MDAT_ENGINE_EXEC_GROUNDS_H

#include "supervisor/engine/exec_core.h"

/* The running step (ex->running, the step after ex->steps) had an effect of
 * that kind that no step accounted for; fmt says what and where, in one
 * line ("T2 made a process (fork) that runs beside the program").
 * Cheap after the first call of an execution (a count). */
void exec_grounds_lost(struct execution *ex, enum grounds_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
