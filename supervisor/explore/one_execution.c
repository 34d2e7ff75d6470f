/* one_execution: one execution of a batch, its I/O and output verdicts (see
 * one_execution.h), and the --check checker. */
#include "supervisor/explore/one_execution.h"
#include "supervisor/detect/cause_book.h"
#include "supervisor/launch/exec_template.h"
#include "supervisor/launch/pages_setup.h"
#include "supervisor/explore/output_cap.h"
#include "supervisor/strategies/rng.h"
#include "supervisor/model/source_model.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int run_checker(const char *cmd, int input_fd, char *said, size_t len)
{
    said[0] = '\0';
    int out = memfd_create("mdat-checker", MFD_CLOEXEC);
    if (out < 0)
        return -1;
    lseek(input_fd, 0, SEEK_SET);
    pid_t pid = fork();
    if (pid < 0) {
        close(out);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(input_fd, 0);
        dup2(out, 1);
        dup2(out, 2);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    lseek(out, 0, SEEK_SET);
    ssize_t n = read(out, said, len - 1);
    said[n > 0 ? n : 0] = '\0';
    close(out);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

static void rewind_fd(int fd)
{
    if (fd >= 0) {
        if (ftruncate(fd, 0) != 0) {
            /* a file we cannot truncate still works, only with stale bytes after */
        }
        lseek(fd, 0, SEEK_SET);
    }
}

/* The first EXEC_EVIDENCE_LINES lines of what fd holds (from its start)
 * into head, each cut to fit; how many lines it holds in all (a last line
 * without its newline counts). */
static uint64_t read_head(int fd, char *head, size_t len)
{
    head[0] = '\0';
    FILE *f = fd >= 0 ? fdopen(dup(fd), "r") : NULL;
    if (!f)
        return 0;
    rewind(f);
    uint64_t lines = 0;
    size_t used = 0;
    char line[240];
    bool at_start = true;
    while (fgets(line, sizeof line, f)) {
        bool whole = strchr(line, '\n') != NULL;
        if (at_start && lines < EXEC_EVIDENCE_LINES && used + 1 < len) {
            int n = snprintf(head + used, len - used, "%s%s", line, whole ? "" : "\n");
            used = n < 0 || (size_t)n >= len - used ? len - 1 : used + (size_t)n;
        }
        lines += at_start;
        at_start = whole;
    }
    fclose(f);
    if (used > 0 && head[used - 1] != '\n' && used + 1 < len)
        head[used] = '\n', head[used + 1] = '\0';
    return lines;
}

/* A checker's words as evidence: its first EXEC_EVIDENCE_LINES lines. */
static void keep_lines(const char *text, char *out, size_t len)
{
    const char *end = text;
    for (int i = 0; i < EXEC_EVIDENCE_LINES && *end; i++) {
        const char *nl = strchr(end, '\n');
        end = nl ? nl + 1 : end + strlen(end);
    }
    snprintf(out, len, "%.*s%s", (int)(end - text), text, end > text && end[-1] != '\n' ? "\n" : "");
}

/* The verdicts that need the execution's output or exit status, and a
 * race kept for the end (--races fail-at-end). false (with res->error
 * set) when the checker could not be run. */
static bool judge_output(const struct explore_options *opt, const struct run_io *io, struct exec_result *res)
{
    if (res->kind == FAIL_NONE && opt->fail_on_exit && res->exited && res->exit_status != 0) {
        res->kind = FAIL_EXIT_STATUS;
        snprintf(res->message, sizeof res->message, "the program exited with status %d", res->exit_status);
    }
    /* An execution a systematic search stopped early (equivalent to one
     * already run) has no whole output to judge. */
    if (res->kind == FAIL_NONE && !res->stopped && opt->check_cmd && io->out_fd >= 0) {
        char said[EXEC_EVIDENCE_MAX], line[400];
        int st = run_checker(opt->check_cmd, io->out_fd, said, sizeof said);
        snprintf(line, sizeof line, "%.*s", (int)strcspn(said, "\n"), said);
        if (st < 0) {
            snprintf(res->error_message, sizeof res->error_message, "cannot run the checker: %s", strerror(errno));
            res->error = true;
            return false;
        }
        if (st == 126 || st == 127) {
            /* The shell could not find or run it: the checker is broken,
             * not the program. */
            snprintf(res->error_message, sizeof res->error_message, "cannot run the checker \"%s\"%s%s",
                     opt->check_cmd, line[0] ? ": " : " (exit status 126 or 127)", line);
            res->error = true;
            return false;
        }
        if (st != 0) {
            res->kind = FAIL_CHECKER;
            snprintf(res->message, sizeof res->message, "checker \"%s\" rejected the output (exit %d)%s%s",
                     opt->check_cmd, st, line[0] ? ": " : "", line);
            res->output_lines = read_head(io->out_fd, res->output_head, sizeof res->output_head);
            keep_lines(said, res->checker_said, sizeof res->checker_said);
        }
        res->output_accepted = st == 0;
    }
    /* Races that fail at the end: judged last, the other verdicts first. */
    res->raced = opt->detectors && detectors_judge_end(opt->detectors, res);
    return true;
}

/* ": <the first line of what the program wrote to fd>" after msg, when fd
 * captured anything (the loader's own reason for not starting it). */
static void append_first_line(int fd, char *msg, size_t len)
{
    char line[200];
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return;
    ssize_t n = read(fd, line, sizeof line - 1);
    if (n <= 0)
        return;
    line[n] = '\0';
    line[strcspn(line, "\n")] = '\0';
    /* ld.so starts with the program's path, which msg has already said. */
    const char *said = strstr(line, ": error while loading");
    size_t used = strlen(msg);
    snprintf(msg + used, len - used, ": %s", said ? said + 2 : line);
}

/* Tells the trace's renderers what the execution was and how it ended. */
static void summarize_trace(const struct program *prog, const struct explore_options *opt, uint64_t index,
                            const struct exec_result *res, struct trace_tee *trace)
{
    char strategy[64];
    strategy_recorded_name(opt->strategy ? opt->strategy : "", index, strategy, sizeof strategy);
    bool one_thread = res->kind == FAIL_ASSERTION || res->kind == FAIL_CRASH || res->kind == FAIL_MISUSE ||
                      res->kind == FAIL_RACE || res->kind == FAIL_INVARIANT || res->kind == FAIL_HEAP;
    struct trace_summary s = {
        .program = prog->path,
        .args = opt->argv + 1,
        .n_args = opt->argc - 1,
        .strategy = strategy,
        .seed = opt->seed,
        .execution = index,
        .steps = res->steps,
        .failure = failure_kind_name(res->kind),
        .message = res->kind == FAIL_NONE ? "" : res->message,
        .location = res->location,
        .thread = one_thread ? res->thread : 0,
    };
    if (res->kind == FAIL_RACE && opt->detectors &&
        detectors_race_steps(opt->detectors, &s.marked_steps[0], &s.marked_steps[1]))
        s.n_marked = 2;
    trace_tee_summary(trace, &s);
}

static void start_pending_server(struct run_io *io);

static void show_captured(int fd, int to)
{
    if (fd < 0)
        return;
    lseek(fd, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if (write(to, buf, (size_t)n) < 0)
            break;
}

/* How many times an execution runs again with more pages observed before

 * it runs with every access observed (each run adds at least one). */
enum { MAX_RESTARTS = 16 };

/* One execution with page ownership, or without: run again (the same
 * choices find the same pages) while it finds pages it shared unordered
 * without observing them, each time observing them from the start; with
 * every access observed when it ran out of protection keys or restarts.
 * *observed: the pages to observe, and then those it observed; res says
 * the same. What a run that starts again had told its trace is taken back. */
static bool run_observing(struct exec_config *cfg, const struct run_io *io, const struct explore_options *opt,
                          struct page_list *observed, struct page_list *read_shared, struct trace_tee *trace,
                          struct exec_result *res)
{
    for (int attempt = 0;; attempt++) {
        cfg->observed = observed->at;
        cfg->n_observed = observed->n;
        cfg->read_shared = read_shared->at;
        cfg->n_read_shared = read_shared->n;
        rewind_fd(io->out_fd);
        rewind_fd(io->err_fd);
        struct output_cap cap;
        output_cap_begin(&cap, io->out_fd, io->err_fd, opt->max_output);
        bool ok = execution_run(cfg, res);
        output_cap_end(&cap);
        if (cap.cut)
            res->output_cut_at = cap.limit;
        if (!res->restart || !ok)
            return ok;

        if (res->restart == RESTART_OBSERVE_ALL || attempt + 1 >= MAX_RESTARTS)
            cfg->own_pages = false;
        for (size_t i = 0; i < res->restart_pages.n; i++)
            page_list_add(observed, res->restart_pages.at[i]);
        for (size_t i = 0; i < res->restart_read_shared.n; i++)
            page_list_add(read_shared, res->restart_read_shared.at[i]);

        exec_result_free(res);
        if (trace && trace->steps && !trace_tee_restart(trace)) {
            memset(res, 0, sizeof *res);
            res->error = true;
            snprintf(res->error_message, sizeof res->error_message,
                     "the execution ran again with more pages observed, and its trace files could not be emptied");
            return false;
        }
    }
}

/* Where the events of a described execution go: its trace (if any) and
 * the book its cause steps are found in. */
struct run_events {
    struct trace_tee *trace;
    struct cause_book *book;
};

static void run_event(void *ctx, const struct trace_event *ev, const struct exec_state *state)
{
    struct run_events *re = ctx;
    if (re->trace)
        trace_tee_event(re->trace, ev, state);
    if (re->book)
        cause_book_event(re->book, ev, state);
}

static bool run_once(struct program *prog, const struct explore_options *opt, struct strategy *strat, uint64_t index,
                     uint64_t estimate, struct run_io *io, struct trace_tee *trace, struct exec_result *res)
{
    start_pending_server(io);
    rewind_fd(io->out_fd);
    rewind_fd(io->err_fd);
    struct program_input none;
    program_input_none(&none);
    int input = io->tmpl ? -1 : program_input_open(opt->input ? opt->input : &none);
    /* The strategy's listener first: a detector that judges a step a
     * failure (a race) ends the telling, and dpor must still hear of that
     * step, or it never reorders it against the step it raced with. */
    /* A described execution (a replay, a failure recorded) keeps its
     * events for the report's cause steps. */
    struct run_events events = {trace, trace || opt->describe_steps ? cause_book_new() : NULL};
    struct exec_listener listeners[DETECT_MAX_LISTENERS + 1];
    int n_listeners = 0;
    if (strat->listener.ops)
        listeners[n_listeners++] = strat->listener;
    if (opt->detectors)
        n_listeners += detectors_listeners(opt->detectors, index, listeners + n_listeners);
    struct exec_config cfg = {
        .exe = prog->debug,
        .code = prog->code,
        .path = prog->path,
        .argv = opt->argv,
        .strategy = strat,
        .exec_seed = execution_seed(opt->seed, index),
        .estimated_steps = estimate,
        .max_steps = opt->max_steps,
        .give_up_steps = io->give_up_steps,
        .timeout_sec = opt->timeout_sec,
        .time_limit_sec = opt->time_limit_sec,
        .detect_livelock = true,
        .forget_choices = io->forget_choices,
        .tmpl = io->tmpl,
        .stdin_fd = input,
        .stdout_fd = io->out_fd,
        .stderr_fd = io->err_fd,
        .on_event = events.trace || events.book ? run_event : NULL,
        .want_state = trace && trace_tee_needs_state(trace),
        .events_from_step = trace ? trace->from_step : 0,
        .event_ctx = &events,
        .describe_events = opt->describe_steps,
        .watches = opt->watches,
        .n_watches = opt->n_watches,
        .model = &source_model_ops,
        .listeners = listeners,
        .n_listeners = n_listeners,
        .preempt = opt->preempt == PREEMPT_MODE_ALL ? PREEMPT_ALL : PREEMPT_SYNC,
        .memory_model = opt->tso ? MEMORY_TSO : MEMORY_SC,
    };
    if (opt->preempt == PREEMPT_MODE_RACES && opt->detectors) {
        cfg.preempt_at = detectors_raced_at;
        cfg.preempt_ctx = opt->detectors;
    }
    if (strat->ops->set_index)
        strat->ops->set_index(strat, index);
    /* Recorded choices replay as they were made; a batch's execution 0
     * finds for itself what every later one starts from. */
    const struct choice_list *follows = strat->follows;
    struct page_list observed = {0}, read_shared = {0};
    page_list_copy(&observed, follows ? &follows->observed : index == 0 ? NULL : opt->observed);
    page_list_copy(&read_shared, follows ? &follows->read_shared : index == 0 ? NULL : opt->read_shared);
    cfg.own_pages = follows ? follows->pages == PAGES_OWN : opt->own_pages;
    cfg.judge_spins = follows ? follows->spins_judged : true;
    const char *no_preference = getenv("MDAT_NO_SPIN_PREFERENCE");
    cfg.spin_preference = !(no_preference && strcmp(no_preference, "1") == 0);

    if (cfg.own_pages && !(io->tmpl && io->tmpl->pages)) {
        if (follows) {
            memset(res, 0, sizeof *res);
            res->error = true;
            snprintf(res->error_message, sizeof res->error_message,
                     "the schedule observes only shared pages, which needs protection keys this machine "
                     "does not offer (MDAT_NO_PAGE_OWNERSHIP, or an older CPU)");
            page_list_free(&observed);
            page_list_free(&read_shared);
            cause_book_free(events.book);
            if (input >= 0)
                close(input);
            return false;
        }
        cfg.own_pages = false;
    }
    bool ok = true;

    /* A run that finds a page shared starts over with it observed. When
     * only the last steps are told (a recording), that is nearly always
     * before anything was told, and what was can be taken back: the traced
     * run goes at once. Otherwise the pages come first, untraced. */
    bool learn_first = trace && !(trace->from_step > 1 && trace_tee_can_restart(trace));
    if (cfg.own_pages && learn_first) {
        cfg.on_event = NULL;
        cfg.want_state = false;
        ok = run_observing(&cfg, io, opt, &observed, &read_shared, NULL, res);
        exec_result_free(res);
        cfg.on_event = run_event;
        cfg.want_state = trace_tee_needs_state(trace);
    }
    if (trace)
        trace_tee_open(trace);
    if (ok)
        ok = run_observing(&cfg, io, opt, &observed, &read_shared, trace, res);
    page_list_free(&observed);
    page_list_free(&read_shared);

    if (ok && io->tmpl && exec_template_lost(io->tmpl, res->error_message, sizeof res->error_message)) {
        /* Its fork server killed from outside while it ran: no fork told
         * it (the last execution of a worker, a trial, a probe). */
        res->error = res->interrupted = true;
        ok = false;
    }
    ok = ok && judge_output(opt, io, res);
    if (ok)
        cause_book_fill(events.book, res);
    cause_book_free(events.book);
    if (res->interrupted && !(io->tmpl && io->tmpl->gone)) {
        /* The program killed from outside: which execution it was. */
        char why[sizeof res->error_message];
        snprintf(why, sizeof why, "%s", res->error_message);
        snprintf(res->error_message, sizeof res->error_message, "execution %" PRIu64 ": %.480s", index, why);
    }
    if (res->not_started)
        append_first_line(io->err_fd, res->error_message, sizeof res->error_message);
    if (trace) {
        if (ok)
            summarize_trace(prog, opt, index, res, trace);
        trace_tee_close(trace);
    }
    if (input >= 0)
        close(input);
    if (!ok)
        return false;
    if (opt->show_output) {
        /* Captured for the checker, or because it might have run again:
         * now show it. */
        fflush(stdout);
        show_captured(io->out_fd, 1);
        if (opt->own_pages)
            show_captured(io->err_fd, 2);
    }
    return true;
}

uint64_t first_trial_steps(const struct explore_options *opt)
{
    return opt->max_steps && opt->max_steps < FIRST_TRIAL_STEPS ? opt->max_steps : FIRST_TRIAL_STEPS;
}

/* Execution 0 of a batch that would follow page ownership is first run
 * observing every access, and kept if it ends within first_trial_steps:
 * most programs that synchronise more than they compute end there, and
 * then cost none of ownership's stops (its mapping calls followed, its
 * faults, its fork server). One that works on data gives up there and
 * runs with ownership (see observe_choice.c for the executions after it).
 * The trial is a function of the seed like everything else: a failure
 * found in it is recorded, shrunk and replayed the same way (this runs
 * again wherever execution 0 does), and its schedule, with no pages line,
 * replays as it ran. */
static bool trial_applies(const struct explore_options *opt, const struct strategy *strat, uint64_t index)
{
    return index == 0 && !strat->follows && opt->own_pages && pages_supported() && !pages_always();
}

bool run_one(struct program *prog, const struct explore_options *opt, struct strategy *strat, uint64_t index,
             uint64_t estimate, struct run_io *io, struct trace_tee *trace, struct exec_result *res)
{
    if (!trial_applies(opt, strat, index))
        return run_once(prog, opt, strat, index, estimate, io, trace, res);
    struct explore_options every = *opt;
    every.own_pages = false;
    every.show_output = false;
    /* The caller's captures (with ownership both are captured: what a run
     * printed is shown after it, and the caller reads it), and a fork
     * server of its own (its one start is the program's), unless the
     * caller's runs already: there is one at a time. */
    struct run_io trial = {.out_fd = io->out_fd, .err_fd = io->err_fd, .tmpl_stdin = -1,
                           .forget_choices = io->forget_choices, .give_up_steps = first_trial_steps(opt)};
    if (!io->tmpl) {
        trial.server_prog = prog;
        trial.server_opt = every;
    }
    /* Untraced: a trial that gives up would have told its trace steps
     * that did not happen. One kept is run again for its trace (it ends
     * the same way). */
    bool ok = run_once(prog, &every, strat, index, estimate, &trial, NULL, res);
    bool kept = !ok || !(res->incomplete == INCOMPLETE_STEPS && res->steps >= trial.give_up_steps);
    if (ok && kept && trace) {
        exec_result_free(res);
        ok = run_once(prog, &every, strat, index, estimate, &trial, trace, res);
    }
    if (ok && kept && opt->show_output) {
        fflush(stdout);
        show_captured(trial.out_fd, 1);
        show_captured(trial.err_fd, 2);
    }
    stop_fork_server(&trial);
    if (kept)
        return ok;
    exec_result_free(res);
    return run_once(prog, opt, strat, index, estimate, io, trace, res);
}

static int open_capture(bool capture)
{
    return capture ? memfd_create("mdat-output", MFD_CLOEXEC) : -1;
}

struct run_io run_io_open(bool show_output, bool checker)
{
    return (struct run_io){.out_fd = open_capture(!show_output || checker), .err_fd = open_capture(!show_output), .tmpl_stdin = -1};
}

void run_io_close(struct run_io *io)
{
    if (io->out_fd >= 0)
        close(io->out_fd);
    if (io->err_fd >= 0)
        close(io->err_fd);
}

void start_fork_server(struct program *prog, const struct explore_options *opt, struct run_io *io)
{
    io->tmpl = NULL;
    io->tmpl_stdin = -1;
    const char *off = getenv("MDAT_NO_FORK_SERVER");
    if (off && strcmp(off, "1") == 0)
        return;
    static struct exec_template server;
    struct program_input none;
    program_input_none(&none);
    io->tmpl_stdin = program_input_open(opt->input ? opt->input : &none);
    struct exec_template_request req = {
        .path = prog->path,
        .argv = opt->argv,
        .stdin_fd = io->tmpl_stdin,
        .stdout_fd = io->out_fd,
        .stderr_fd = io->err_fd,
        .code = prog->code,
        .follow_memory = opt->describe_steps || opt->trace || opt->detect.races != RACES_OFF || opt->own_pages,
        .own_pages = opt->own_pages,

        .timeout_sec = opt->timeout_sec,
    };
    char err[256];
    bool not_started;
    if (exec_template_start(&server, &req, &not_started, err, sizeof err))
        io->tmpl = &server;
}

void stop_fork_server(struct run_io *io)
{
    if (io->tmpl)
        exec_template_stop(io->tmpl);
    io->tmpl = NULL;
    if (io->tmpl_stdin >= 0)
        close(io->tmpl_stdin);
    io->tmpl_stdin = -1;
}

struct run_io run_io_begin(struct program *prog, const struct explore_options *opt, bool show_output)
{
    /* With page ownership an execution may run again: what it printed
     * the first time must not show, so it is captured and shown after. */
    struct run_io io = run_io_open(show_output && !opt->own_pages, opt->check_cmd != NULL);
    /* Started by the first execution that needs it (execution 0 may not:
     * run_one's trial). */
    io.server_prog = prog;
    io.server_opt = *opt;
    return io;
}

static void start_pending_server(struct run_io *io)
{
    if (!io->server_prog)
        return;
    struct program *prog = io->server_prog;
    io->server_prog = NULL;
    start_fork_server(prog, &io->server_opt, io);
}

struct run_io run_io_single(struct program *prog, const struct explore_options *opt, const struct strategy *strat,
                            bool show_output)
{
    const struct choice_list *follows = strat->follows;
    bool pages = follows ? follows->pages != PAGES_OFF : opt->own_pages;
    if (!pages)
        return run_io_open(show_output, opt->check_cmd != NULL);
    struct explore_options o = *opt;
    o.own_pages = true;
    return run_io_begin(prog, &o, show_output);
}


void run_io_end(struct run_io *io)
{
    stop_fork_server(io);
    run_io_close(io);
}

const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}
