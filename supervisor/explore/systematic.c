/* systematic: the batch of dfs and dpor, in order (see systematic.h). */
#include "supervisor/explore/systematic.h"
#include "supervisor/process/tracee.h"
#include "supervisor/explore/one_execution.h"

#include <stdlib.h>
#include <string.h>

/* What the tally had before it booked an execution. */
struct booked_before {
    size_t found, outcomes;
    uint64_t failures;
};

/* Keeps res's choices for whatever tally_add just booked from it. */
static void keep_choices(const struct tally *tally, const struct booked_before *before, uint64_t index,
                         const struct exec_result *res, struct systematic_found *found)
{
    if (tally->n_found > before->found)
        choice_list_copy(&found->choices[tally->n_found - 1], &res->choices);
    if (before->failures == 0 && tally->failures_seen > 0)
        choice_list_copy(&found->lowest, &res->choices);
    if (tally->outcomes.n > before->outcomes) {
        found->outcomes = realloc(found->outcomes, tally->outcomes.n * sizeof *found->outcomes);
        if (!found->outcomes)
            abort();
        struct systematic_outcome *o = &found->outcomes[found->n_outcomes++];
        *o = (struct systematic_outcome){.execution = index};
        choice_list_copy(&o->choices, &res->choices);
    }
}

const struct choice_list *systematic_outcome_choices(const struct systematic_found *found, uint64_t execution)
{
    for (size_t i = 0; i < found->n_outcomes; i++)
        if (found->outcomes[i].execution == execution)
            return &found->outcomes[i].choices;
    return NULL;
}

void systematic_run(struct program *prog, const struct explore_options *opt, struct tally *tally,
                    struct systematic_found *found, struct explore_summary *sum)
{
    struct strategy *strat = strategy_for_options(opt);
    /* A strategy that counts what steps touch inside libraries (dpor) needs
     * their atomics planted from the first execution on. */
    if (strat->listener.ops && strat->listener.ops->touched_word)
        code_map_observe_library_atomics(prog->code);
    struct run_io io = run_io_begin(prog, opt, opt->show_output);
    struct trace_tee live = {0};
    if (opt->trace)
        trace_tee_add(&live, opt->trace, opt->trace_out, opt->trace_every_step);
    sum->systematic = true;
    for (uint64_t i = 0; i < opt->schedules; i++) {
        if (opt->stop && *opt->stop)
            break;  /* SIGINT, SIGTERM, SIGHUP: the summary is of those run */
        struct exec_result res;
        bool ok = run_one(prog, opt, strat, i, FIRST_ESTIMATE, &io, opt->trace ? &live : NULL, &res);
        struct wire_result w = wire_of(i, ok, &res);
        w.abandoned = !ok && res.interrupted && tracee_stop_requested();
        if (opt->outcomes && ok && !res.stopped) {
            outcome_key_of(&res, io.out_fd, &w.outcome);
            w.has_outcome = 1;
        }
        struct booked_before before = {tally->n_found, tally->outcomes.n, tally->failures_seen};
        if (ok && res.kind != FAIL_NONE && opt->keep_going)
            save_at_once(prog, opt, i, &res);
        tally_add(tally, &w);
        if (ok)
            keep_choices(tally, &before, i, &res, found);
        /* A run the strategy cut short (dpor: every thread asleep) is
         * equivalent to one already run: no class of its own. */
        if (ok && !res.stopped)
            sum->classes++;
        if (ok && res.grounds.kind != GROUNDS_KEPT && sum->grounds_executions++ == 0) {
            sum->grounds = res.grounds;
            sum->grounds_execution = i;
        }
        exec_result_free(&res);
        if (!ok || (w.kind != FAIL_NONE && !keeps_going(opt)))
            break;
        if (!strat->ops->advance(strat)) {
            sum->searched_all = true;
            sum->exhaustive = true;
            break;
        }
    }
    uint64_t distinct;
    int bound = -1;
    if (!strat->ops->search_state(strat, &distinct, &bound) && sum->exhaustive) {
        sum->exhaustive = false;
        sum->too_long = true;
    }
    /* The end of the search space is a proof only if every execution in it
     * went to its end and every effect in it was a step the search could
     * reorder. */
    if (sum->grounds_executions > 0 || sum->incomplete > 0)
        sum->exhaustive = false;
    sum->bound = bound;
    run_io_end(&io);
    strategy_free(strat);
}

void systematic_found_free(struct systematic_found *found)
{
    for (size_t i = 0; i < MAX_REPORTED; i++)
        choice_list_free(&found->choices[i]);
    choice_list_free(&found->lowest);
    for (size_t i = 0; i < found->n_outcomes; i++)
        choice_list_free(&found->outcomes[i].choices);
    free(found->outcomes);
}
