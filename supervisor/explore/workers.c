/* workers: forked workers and the tally of their results (see workers.h). */
#include "supervisor/explore/workers.h"
#include "supervisor/explore/one_execution.h"
#include "supervisor/explore/failure_files.h"
#include "supervisor/process/tracee.h"

#include <inttypes.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct wire_result wire_of(uint64_t index, bool ok, const struct exec_result *res)
{
    struct wire_result w = {.index = index, .kind = res->kind, .incomplete = res->incomplete, .error = !ok,
                            .interrupted = !ok && res->interrupted, .steps = res->steps,
                            .stops = res->ptrace_stops, .exit_status = res->exit_status,
                            .raced = ok && res->raced, .output_accepted = ok && res->output_accepted};
    memcpy(w.stops_by_reason, res->stops_by_reason, sizeof w.stops_by_reason);
    snprintf(w.location, sizeof w.location, "%s", res->location);
    snprintf(w.error_message, sizeof w.error_message, "%s", res->error_message);
    return w;
}

/* Execution 0's observed pages, for every other execution (more than fit:
 * they observe what fits, and find the rest themselves). */
static void learn_pages(struct shared_state *shared, const struct exec_result *res)
{
    const struct page_list *observed = &res->choices.observed, *read = &res->choices.read_shared;
    size_t n = observed->n < LEARNED_PAGES_MAX ? observed->n : LEARNED_PAGES_MAX;
    if (n)
        memcpy(shared->learned, observed->at, n * sizeof *shared->learned);
    shared->n_learned = (uint32_t)n;
    n = read->n < LEARNED_PAGES_MAX ? read->n : LEARNED_PAGES_MAX;
    if (n)
        memcpy(shared->learned_read, read->at, n * sizeof *shared->learned_read);

    shared->n_learned_read = (uint32_t)n;
    /* (Ownership gave up on it, or its trial without ownership ended:
     * read only when the batch follows ownership.) */
    shared->learned_all = res->choices.pages != PAGES_OWN;
    shared->first = (struct first_cost){.ran = true, .owned_pages = res->choices.pages == PAGES_OWN,
                                        .incomplete = res->incomplete != 0, .steps = res->steps,
                                        .ownership_events = res->ownership_events};
}

void save_at_once(
const struct program *prog, const struct explore_options *opt, uint64_t index,
                  const struct exec_result *res)
{
    char path[PATH_MAX], err[PATH_MAX + 200];
    if (!failure_save_found(prog, opt, index, res, path, sizeof path, err, sizeof err))
        fprintf(stderr, "mdat: the schedule of failing execution %" PRIu64 " could not be saved: %s\n", index, err);
}

void worker_loop(struct program *prog, const struct explore_options *opt, uint64_t first, uint64_t stride,
                 uint64_t estimate, struct shared_state *shared,
                 void (*emit)(void *ctx, const struct wire_result *w), void *emit_ctx)
{
    struct strategy *strat = strategy_for_options(opt);
    struct run_io io = run_io_begin(prog, opt, opt->show_output);
    /* failure_record.c runs a failing execution again; with --keep-going
     * its schedule is saved at once (a kill before the end loses none),
     * which takes its choices. */
    io.forget_choices = !opt->keep_going;
    struct trace_tee live = {0};
    if (opt->trace)
        trace_tee_add(&live, opt->trace, opt->trace_out, opt->trace_every_step);
    for (uint64_t i = first; i < opt->schedules; i += stride) {
        if (!keeps_going(opt) && i > __atomic_load_n(&shared->lowest_failure, __ATOMIC_RELAXED))
            break;
        if ((opt->stop && *opt->stop) || shared->abandon)
            break;
        struct exec_result res;
        strategy_teach(strat, i, &shared->profile);
        bool ok = run_one(prog, opt, strat, i, estimate, &io, opt->trace ? &live : NULL, &res);
        if (i == 0 && ok && strat->ops->learn)
            strat->ops->learn(strat, &shared->profile);
        if (i == 0 && ok)
            learn_pages(shared, &res);

        struct wire_result w = wire_of(i, ok, &res);
        w.abandoned = !ok && res.interrupted && tracee_stop_requested();
        if (opt->outcomes && ok) {
            outcome_key_of(&res, io.out_fd, &w.outcome);
            w.has_outcome = 1;
        }
        if (ok && res.kind != FAIL_NONE && opt->keep_going)
            save_at_once(prog, opt, i, &res);
        if ((res.kind != FAIL_NONE || !ok) && !keeps_going(opt)) {
            uint64_t cur = __atomic_load_n(&shared->lowest_failure, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&shared->lowest_failure, &cur, i, false,
                                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
        }
        exec_result_free(&res);
        emit(emit_ctx, &w);
        if (!ok)
            break;
    }
    run_io_end(&io);
    strategy_free(strat);
}

/* The files --keep-going saved at once for failing execution w, which will
 * not be reported. */
static void forget_saved(const struct tally *t, const struct wire_result *w)
{
    if (t->opt->keep_going && t->prog)
        failure_forget_found(t->prog, t->opt, w->index, (enum failure_kind)w->kind);
}

void tally_add(void *ctx, const struct wire_result *w)
{
    struct tally *t = ctx;
    if (w->abandoned)
        return;     /* no result: stopped before it was decided */
    t->done++;
    if (!w->interrupted) {
        /* (one cut short from outside was never decided) */
        t->sum->schedules_run++;
        t->sum->steps_total += w->steps;
        t->sum->ptrace_stops_total += w->stops;
        for (int k = 0; k < STOP_REASON_COUNT; k++)
            t->sum->ptrace_stops_by_reason[k] += w->stops_by_reason[k];
        t->sum->raced += w->raced != 0;
        t->sum->output_accepted += w->output_accepted != 0;
    }
    if (w->index == 0)
        t->sum->exit_status_first = (uint64_t)w->exit_status;
    if (!w->error && w->kind == FAIL_NONE && w->incomplete) {
        t->sum->incomplete++;
        t->sum->incomplete_reason = (enum incomplete_reason)w->incomplete;
        if (w->steps > t->sum->incomplete_steps)
            t->sum->incomplete_steps = w->steps;
    }
    if (t->opt->outcomes && !w->error && w->has_outcome)
        outcome_table_add(&t->outcomes, &w->outcome, w->index);
    if (w->error) {
        if (!t->have_error || w->index < t->first_error.index) {
            t->first_error = *w;
            t->have_error = true;
        }
    } else if (w->kind != FAIL_NONE) {
        if (t->failures_seen == 0 || w->index < t->lowest.index)
            t->lowest = *w;
        t->failures_seen++;
        if (w->kind > FAIL_NONE && w->kind < FAIL_KIND_COUNT)
            t->sum->failing[w->kind]++;
        size_t i;
        for (i = 0; i < t->n_found; i++)
            if (t->found[i].kind == w->kind && strcmp(t->found[i].location, w->location) == 0)
                break;
        const struct wire_result *unreported = w;
        if (i < t->n_found) {
            if (w->index < t->found[i].index) {
                struct wire_result replaced = t->found[i];
                t->found[i] = *w;
                forget_saved(t, &replaced);
                unreported = NULL;
            }
        } else if (t->n_found < MAX_REPORTED) {
            t->found[t->n_found++] = *w;
            unreported = NULL;
        }
        if (unreported)
            forget_saved(t, unreported);
    }
    if (t->opt->progress)
        t->opt->progress(t->opt->progress_ctx, t->done, explore_executions_owned(t->opt), t->failures_seen);
}

static void emit_to_pipe(void *ctx, const struct wire_result *w)
{
    int fd = *(int *)ctx;
    const char *p = (const char *)w;
    size_t left = sizeof *w;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(3);
        p += n;
        left -= (size_t)n;
    }
}

bool run_workers(struct program *prog, const struct explore_options *opt, uint64_t start, uint64_t estimate,
                        const struct cpu_choice *cpus, struct shared_state *shared, struct tally *tally, char *err,
                        size_t errlen)
{
    int jobs = opt->jobs;
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    struct pollfd *fds = calloc((size_t)jobs, sizeof *fds);
    for (int w = 0; w < jobs; w++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            snprintf(err, errlen, "pipe: %s", strerror(errno));
            jobs = w;
            break;
        }
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(p[0]);
            cpu_choice_pin(cpus, w);
            uint64_t every = explore_spacing(opt);
            worker_loop(prog, opt, start + (uint64_t)w * every, (uint64_t)opt->jobs * every, estimate, shared,
                        emit_to_pipe, &p[1]);
            _exit(0);
        }
        close(p[1]);
        pids[w] = pid;
        fds[w] = (struct pollfd){.fd = p[0], .events = POLLIN};
    }
    int open_fds = jobs;
    /* Each worker's partly read result, one slot per worker. */
    size_t *have = calloc((size_t)jobs + 1, sizeof *have);
    struct wire_result *partial = calloc((size_t)jobs + 1, sizeof *partial);
    if (!have || !partial)
        abort();
    while (open_fds > 0) {
        if (poll(fds, (nfds_t)jobs, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int w = 0; w < jobs; w++) {
            if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            size_t slot = (size_t)w;
            ssize_t n = read(fds[w].fd, (char *)&partial[slot] + have[slot], sizeof partial[slot] - have[slot]);
            if (n <= 0) {
                close(fds[w].fd);
                fds[w].fd = -1;
                open_fds--;
                continue;
            }
            have[slot] += (size_t)n;
            if (have[slot] == sizeof partial[slot]) {
                /* A program killed from outside ends the batch: the other
                 * workers need not finish what they run. */
                if (partial[slot].error && partial[slot].interrupted && !partial[slot].abandoned)
                    shared->abandon = 1;
                tally_add(tally, &partial[slot]);
                have[slot] = 0;
            }
        }
    }
    bool ok = true;
    for (int w = 0; w < jobs; w++) {
        int status;
        while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            snprintf(err, errlen, "worker %d died (%s)", w,
                     WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit status");
            ok = false;
        }
    }
    free(pids);
    free(fds);
    free(have);
    free(partial);
    return ok;
}
