/* workers: executions of a batch run by forked workers, each pinned to its
 * own CPU, and the parent's tally of what they found.
 *
 * Execution i is a function of (seed, i) wherever it runs; a worker runs
 * first, first+stride, ... and sends one wire_result per execution through
 * a pipe. The tally keeps the lowest failing index per (kind, location), so
 * the answer does not depend on -j. */
#ifndef MDAT_EXPLORE_WORKERS_H
#define MDAT_EXPLORE_WORKERS_H

#include <sched.h>

#include "supervisor/explore/cpu_choice.h"
#include "supervisor/explore/explore.h"

enum { MAX_REPORTED = 16 };

/* What a worker tells the parent about one execution. */
struct wire_result {
    uint64_t index;
    int32_t kind;
    int32_t incomplete;         /* enum incomplete_reason */
    int32_t error;
    int32_t interrupted;        /* error: cut short from outside (exec_result.interrupted) */
    uint64_t steps, stops;
    uint64_t stops_by_reason[STOP_REASON_COUNT];
    int32_t exit_status;
    char location[160];
    char error_message[512];
    /* With opt->outcomes: how it ended. Not for an execution a systematic
     * strategy cut short (dpor: every thread asleep): it is equivalent to
     * one already run and no outcome of its own. */
    int32_t has_outcome;
    struct outcome_key outcome;
    int32_t abandoned;          /* cut short by a stop (a signal, the batch given up): not decided */
    int32_t raced;              /* exec_result.raced */
    int32_t output_accepted;    /* exec_result.output_accepted */
};

/* Shared between parent and workers: the lowest failing index found so far,
 * so that nobody runs executions that can no longer be reported. */
enum { LEARNED_PAGES_MAX = 8192 };

struct shared_state {

    volatile uint64_t lowest_failure;
    /* The batch is given up (a program killed from outside in one worker):
     * the others end their execution under way, undecided, and stop. */
    volatile int abandon;
    /* What execution 0 taught a learning strategy (written before any
     * worker is forked, read by all). */
    struct strategy_profile profile;
    /* The pages execution 0 found shared (page ownership): every later
     * execution observes them from its start (written before any worker
     * is forked, read by all). */
    uint32_t n_learned, n_learned_read;
    uint64_t learned[LEARNED_PAGES_MAX], learned_read[LEARNED_PAGES_MAX];
    /* Execution 0 ended observing every access (its trial without page
     * ownership ended, or ownership gave up on it: too many carried
     * faults, or keys ran out): so does every later one from its start. */
    bool learned_all;
    /* How execution 0 went and what it cost (observe_choice.c). */
    struct first_cost {
        bool ran, owned_pages, incomplete;
        uint64_t steps, ownership_events;
    } first;
};



static inline bool keeps_going(const struct explore_options *opt)
{
    return opt->keep_going || opt->count_all || opt->outcomes;
}

/* What a worker says about execution index (ok: mdat could run it). */
struct wire_result wire_of(uint64_t index, bool ok, const struct exec_result *res);

/* Runs executions first, first+stride, ... and reports each through emit. */
void worker_loop(struct program *prog, const struct explore_options *opt, uint64_t first, uint64_t stride,
                 uint64_t estimate, struct shared_state *shared,
                 void (*emit)(void *ctx, const struct wire_result *w), void *emit_ctx);

/* The parent's book of what the executions found. */
struct tally {
    const struct explore_options *opt;
    /* With --keep-going, each failing execution's schedule was saved at
     * once by its worker: one that will not be reported (its kind and
     * place are reported from a lower execution) is removed as soon as
     * that is known, the program's name coming from prog. */
    const struct program *prog;
    struct explore_summary *sum;
    struct wire_result *found;      /* distinct failures (kind, location), lowest index each */
    size_t n_found;
    struct wire_result first_error;
    bool have_error;
    struct wire_result lowest;      /* the failure with the lowest index (count_all) */
    uint64_t done;
    uint64_t failures_seen;
    struct outcome_table outcomes;  /* with opt->outcomes */
};

/* With --keep-going: the schedule of failing execution index saved at once
 * (failure_record.h); a failure to is said on stderr. */
void save_at_once(const struct program *prog, const struct explore_options *opt, uint64_t index,
                  const struct exec_result *res);

/* Books one execution's result (an emit function of worker_loop). */
void tally_add(void *ctx, const struct wire_result *w);

/* Runs executions start.. in opt->jobs forked workers pinned to cpus,
 * adding each result to tally. false with a reason if a worker died. */
bool run_workers(struct program *prog, const struct explore_options *opt, uint64_t start, uint64_t estimate,
                 const struct cpu_choice *cpus, struct shared_state *shared, struct tally *tally, char *err,
                 size_t errlen);

#endif
