/* observe_choice: page ownership where it pays, every access observed
 * where it does not.
 *
 * Page ownership spares a visible step for each access to memory only one
 * thread touches, and pays for that in stops: each call that maps memory
 * is followed to its end, each call handed a buffer stops, each page that
 * changes hands faults. A program that works on data gains orders of
 * magnitude; one that mostly synchronises (a restroom of twelve threads
 * and a few counters) makes three times the stops for the same steps,
 * mostly in glibc's own books of thread stacks. Which kind a program is,
 * execution 0 tells: it runs once more observing every access, cut off as
 * soon as it can no longer be the cheaper, and the cheaper way is kept for
 * every later execution of the batch.
 *
 * The cost is counted, not timed, and counted in what is the same with
 * and without running ahead (e2e.run_ahead: the traces must be): each
 * visible step, and each event of ownership's own (a touch judged, a call
 * followed), which costs about what eight steps do (a fault or a seccomp
 * stop is two context switches and the engine's handling of them; a step
 * reached by running ahead, the emulation of its stretch). Observing
 * every access pays when the steps it adds cost less than the events it
 * spares. Both runs are functions of the seed, so the choice is one too:
 * shards make the same one, and neither -j nor the machine's load changes
 * it. Each later execution's schedule says how it observed memory, and
 * replays so. */
#include "supervisor/explore/observe_choice.h"

#include "supervisor/detect/detectors.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/process/tracee.h"

#include <string.h>

enum { STEPS_PER_EVENT = 8, SLACK_STEPS = 64 };

enum observe_choice observe_choice_probe(struct program *prog, const struct explore_options *opt, uint64_t estimate,
                                         const struct shared_state *shared, struct wire_result *cut_short)
{
    const struct first_cost *first = &shared->first;
    if (!first->ran || !first->owned_pages || first->incomplete)
        return OBSERVE_OWNED;
    /* It pays below this many steps; and a program whose steps grow by
     * half when every access is one works on data, which ownership is
     * for: the probe ends there (it costs at most about one execution). */
    uint64_t pays_below = first->steps + STEPS_PER_EVENT * first->ownership_events;
    uint64_t data_bound = first->steps + first->steps / 2 + SLACK_STEPS;
    uint64_t cap = pays_below < data_bound ? pays_below : data_bound;
    /* Execution 0's trial observing every access gave up at
     * first_trial_steps (one_execution.c): a probe allowed no more steps
     * than that is not worth its run. */
    if (cap <= first_trial_steps(opt))
        return OBSERVE_OWNED;

    struct explore_options probe = *opt;
    probe.own_pages = false;
    probe.schedules = 1;
    probe.show_output = false;
    probe.trace = NULL;
    probe.check_cmd = NULL;
    probe.outcomes = false;
    probe.keep_going = false;
    probe.count_all = false;
    if (!probe.max_steps || probe.max_steps > cap)
        probe.max_steps = cap;
    /* Its own detectors, silent: what it finds is nobody's verdict, and a
     * race ends it (ownership stays: the races were found with it). */
    if (probe.detect.races != RACES_OFF)
        probe.detect.races = RACES_FAIL;
    char err[256];
    probe.detectors = opt->detectors ? detectors_new(&probe.detect, prog->debug, err, sizeof err) : NULL;
    if (opt->detectors && !probe.detectors)
        return OBSERVE_OWNED;

    struct strategy *strat = strategy_for_options(&probe);
    strategy_teach(strat, 0, &shared->profile);
    struct run_io io = run_io_begin(prog, &probe, false);
    struct exec_result res;
    bool ok = run_one(prog, &probe, strat, 0, estimate, &io, NULL, &res);
    enum observe_choice choice = ok && !res.error && !res.incomplete && res.kind == FAIL_NONE && res.steps < cap
                                     ? OBSERVE_ALL
                                     : OBSERVE_OWNED;
    /* Killed from outside (the program, or its fork server): the batch
     * ends as it would in any execution. Stopped by mdat's own signal:
     * the driver sees the stop. */
    if (!ok && res.interrupted && !tracee_stop_requested()) {
        *cut_short = wire_of(0, false, &res);
        choice = OBSERVE_CUT_SHORT;
    }
    exec_result_free(&res);
    run_io_end(&io);
    strategy_free(strat);
    if (probe.detectors)
        detectors_free(probe.detectors);
    return choice;
}
