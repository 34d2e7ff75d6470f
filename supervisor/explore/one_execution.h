/* one_execution: running one execution of a batch with its input, output
 * captures and the verdicts that need the output (the --check checker,
 * --fail-on-exit), optionally rendered through a trace; and the fork
 * server a worker reuses for its executions.
 *
 * Shared by the parts of the batch driver (workers, failure recording,
 * replay); the CLI sees only explore.h. */
#ifndef MDAT_EXPLORE_ONE_EXECUTION_H
#define MDAT_EXPLORE_ONE_EXECUTION_H

#include "supervisor/explore/explore.h"

/* PCT needs an estimate of the execution length before the first one ran. */
enum { FIRST_ESTIMATE = 1000 };

/* Execution 0 of a batch that follows page ownership first runs observing
 * every access, and is kept if it ends within this many steps (run_one). */
enum { FIRST_TRIAL_STEPS = 20000 };

/* Where one execution's output goes. */
struct run_io {
    int out_fd, err_fd;     /* -1: the terminal */
    /* The fork server of a worker (NULL: every execution starts the
     * program afresh) and the stdin it was made with. */
    struct exec_template *tmpl;
    int tmpl_stdin;
    /* The caller reads no exec_result.choices (a batch worker: a failure
     * is found again from its seed and index), so none are kept. */
    bool forget_choices;
    /* The fork server not started yet (run_io_begin): the program and
     * options it is for; NULL once started, or when there is none. */
    struct program *server_prog;
    struct explore_options server_opt;
    /* Each execution gives up at this many steps (0: never): a trial. */
    uint64_t give_up_steps;
};

/* Captures stdout when it is not shown or a checker reads it, stderr when it
 * is not shown. */
struct run_io run_io_open(bool show_output, bool checker);
void run_io_close(struct run_io *io);

/* Gives io a fork server for this worker's executions: the program started
 * once, with the same stdio and heap tracking they have. Without one (it
 * could not start: the executions then say why, one by one) io->tmpl stays
 * NULL. MDAT_NO_FORK_SERVER=1 turns it off (to compare, in scripts/bench). */
void start_fork_server(struct program *prog, const struct explore_options *opt, struct run_io *io);
void stop_fork_server(struct run_io *io);

/* What one execution needs (a replay, a failure recorded again, strat's
 * choices): as run_io_begin, with the fork server only where the
 * execution observes memory through page ownership (a program prepared
 * for it); run_io_end undoes it. */
struct run_io run_io_single(struct program *prog, const struct explore_options *opt, const struct strategy *strat,
                            bool show_output);
/* What a job that runs executions of opt needs, in one call: the captured

 * stdio (shown or not) and its fork server; run_io_end undoes both. */
struct run_io run_io_begin(struct program *prog, const struct explore_options *opt, bool show_output);
void run_io_end(struct run_io *io);

/* One execution plus the verdicts that need its output or exit status,
 * rendered through trace (NULL: not traced); its renderers live until the
 * verdict is known (a picture of the execution is captioned with it) and
 * end (final tables, end line) before any output shown after it. false
 * (res->error_message says why) when mdat could not do its job. */
bool run_one(struct program *prog, const struct explore_options *opt, struct strategy *strat, uint64_t index,
             uint64_t estimate, struct run_io *io, struct trace_tee *trace, struct exec_result *res);

/* The steps execution 0's trial without page ownership may take before it
 * gives up: FIRST_TRIAL_STEPS, or --max-steps when that is fewer. */
uint64_t first_trial_steps(const struct explore_options *opt);

/* The last path component. */
const char *base_name(const char *path);

#endif
