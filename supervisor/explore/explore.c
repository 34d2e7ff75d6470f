/* explore: the batch driver behind `mdat run`. */
#include "supervisor/model/source_model.h"
#include "supervisor/explore/explore.h"
#include "supervisor/engine/exec_template.h"
#include "supervisor/explore/rng.h"
#include "supervisor/explore/sha256.h"
#include "supervisor/engine/tracee.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_REPORTED = 16 };
/* PCT needs an estimate of the execution length before the first one ran. */
enum { FIRST_ESTIMATE = 1000 };

bool program_load(struct program *p, const char *path, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    char why[256];
    p->debug = debuginfo_load(path, why, sizeof why);
    if (!p->debug) {
        snprintf(err, errlen, "%s: %s", path, why);
        return false;
    }
    if (access(path, X_OK) != 0) {
        snprintf(err, errlen, "%s: not executable (%s)", path, strerror(errno));
        debuginfo_free(p->debug);
        return false;
    }
    if (!realpath(path, p->path))
        snprintf(p->path, sizeof p->path, "%s", path);
    if (!sha256_file(p->path, p->sha256)) {
        snprintf(err, errlen, "%s: cannot read it", path);
        debuginfo_free(p->debug);
        return false;
    }
    p->code = code_map_build(p->debug);
    if (!p->code) {
        snprintf(err, errlen, "out of memory analysing %s", path);
        debuginfo_free(p->debug);
        return false;
    }
    return true;
}

void program_free(struct program *p)
{
    code_map_free(p->code);
    debuginfo_free(p->debug);
    memset(p, 0, sizeof *p);
}

struct strategy *strategy_by_name(const char *name, int depth)
{
    if (strcmp(name, "random") == 0)
        return strategy_random_new();
    if (strcmp(name, "pct") == 0)
        return strategy_pct_new(depth);
    return NULL;
}

int run_checker(const char *cmd, int input_fd, char *first_line, size_t len)
{
    first_line[0] = '\0';
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
    ssize_t n = read(out, first_line, len - 1);
    first_line[n > 0 ? n : 0] = '\0';
    first_line[strcspn(first_line, "\n")] = '\0';
    close(out);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

/* Where one execution's output goes. */
struct run_io {
    int out_fd, err_fd;     /* -1: the terminal */
    /* The fork server of a worker (NULL: every execution starts the
     * program afresh) and the stdin it was made with. */
    struct exec_template *tmpl;
    int tmpl_stdin;
};

static void rewind_fd(int fd)
{
    if (fd >= 0) {
        if (ftruncate(fd, 0) != 0) {
            /* a file we cannot truncate still works, only with stale bytes after */
        }
        lseek(fd, 0, SEEK_SET);
    }
}

/* The verdicts that need the execution's output or exit status. false
 * (with res->error set) when the checker could not be run. */
static bool judge_output(const struct explore_options *opt, const struct run_io *io, struct exec_result *res)
{
    if (res->kind == FAIL_NONE && opt->fail_on_exit && res->exited && res->exit_status != 0) {
        res->kind = FAIL_EXIT_STATUS;
        snprintf(res->message, sizeof res->message, "the program exited with status %d", res->exit_status);
    }
    if (res->kind == FAIL_NONE && opt->check_cmd && io->out_fd >= 0) {
        char line[400];
        int st = run_checker(opt->check_cmd, io->out_fd, line, sizeof line);
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
        }
    }
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
    bool one_thread = res->kind == FAIL_ASSERTION || res->kind == FAIL_CRASH || res->kind == FAIL_MISUSE ||
                      res->kind == FAIL_RACE || res->kind == FAIL_INVARIANT;
    struct trace_summary s = {
        .program = prog->path,
        .args = opt->argv + 1,
        .n_args = opt->argc - 1,
        .strategy = opt->strategy ? opt->strategy : "",
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

/* One execution plus the verdicts that need its output or exit status,
 * rendered through trace (NULL: not traced); its renderers live until the
 * verdict is known (a picture of the execution is captioned with it) and
 * end (final tables, end line) before any output shown after it. */
static bool run_one(struct program *prog, const struct explore_options *opt, struct strategy *strat, uint64_t index,
                    uint64_t estimate, const struct run_io *io, struct trace_tee *trace, struct exec_result *res)
{
    rewind_fd(io->out_fd);
    rewind_fd(io->err_fd);
    struct program_input none;
    program_input_none(&none);
    int input = io->tmpl ? -1 : program_input_open(opt->input ? opt->input : &none);
    struct exec_listener listeners[DETECT_MAX_LISTENERS];
    int n_listeners = opt->detectors ? detectors_listeners(opt->detectors, index, listeners) : 0;
    struct exec_config cfg = {
        .exe = prog->debug,
        .code = prog->code,
        .path = prog->path,
        .argv = opt->argv,
        .strategy = strat,
        .exec_seed = execution_seed(opt->seed, index),
        .estimated_steps = estimate,
        .max_steps = opt->max_steps,
        .timeout_sec = opt->timeout_sec,
        .time_limit_sec = opt->time_limit_sec,
        .detect_livelock = true,
        .tmpl = io->tmpl,
        .stdin_fd = input,
        .stdout_fd = io->out_fd,
        .stderr_fd = io->err_fd,
        .on_event = trace ? trace_tee_event : NULL,
        .want_state = trace && trace_tee_needs_state(trace),
        .event_ctx = trace,
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
    if (trace)
        trace_tee_open(trace);
    bool ok = execution_run(&cfg, res) && judge_output(opt, io, res);
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
    if (opt->show_output && io->out_fd >= 0) {
        /* Captured only for the checker: now show it. */
        lseek(io->out_fd, 0, SEEK_SET);
        char buf[4096];
        ssize_t n;
        fflush(stdout);
        while ((n = read(io->out_fd, buf, sizeof buf)) > 0)
            if (write(1, buf, (size_t)n) < 0)
                break;
    }
    return true;
}

/* What a worker tells the parent about one execution. */
struct wire_result {
    uint64_t index;
    int32_t kind;
    int32_t incomplete;         /* enum incomplete_reason */
    int32_t error;
    uint64_t steps, stops;
    int32_t exit_status;
    char location[160];
    char error_message[512];
};

/* Shared between parent and workers: the lowest failing index found so far,
 * so that nobody runs executions that can no longer be reported. */
struct shared_state {
    volatile uint64_t lowest_failure;
};

/* Pins the calling process to the nth CPU of `allowed`: a ptrace stop costs
 * several times more when tracer and tracee sit on different CPUs. */
static void pin_to_cpu(const cpu_set_t *allowed_set, int nth)
{
    cpu_set_t allowed = *allowed_set;
    int count = CPU_COUNT(&allowed);
    if (count <= 0)
        return;
    int want = nth % count;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        if (want-- == 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

static int open_capture(bool capture)
{
    return capture ? memfd_create("mdat-output", MFD_CLOEXEC) : -1;
}

/* Captures stdout when it is not shown or a checker reads it, stderr when it
 * is not shown. */
static struct run_io run_io_open(bool show_output, bool checker)
{
    return (struct run_io){.out_fd = open_capture(!show_output || checker), .err_fd = open_capture(!show_output), .tmpl_stdin = -1};
}

static void run_io_close(struct run_io *io)
{
    if (io->out_fd >= 0)
        close(io->out_fd);
    if (io->err_fd >= 0)
        close(io->err_fd);
}

static bool keeps_going(const struct explore_options *opt)
{
    return opt->keep_going || opt->count_all;
}

/* Gives io a fork server for this worker's executions: the program started
 * once, with the same stdio and heap tracking they have. Without one (it
 * could not start: the executions then say why, one by one) io->tmpl stays
 * NULL. MDAT_NO_FORK_SERVER=1 turns it off (to compare, in scripts/bench). */
static void start_fork_server(struct program *prog, const struct explore_options *opt, struct run_io *io)
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
        .track_heap = opt->describe_steps || opt->trace || opt->detect.races != RACES_OFF,
        .timeout_sec = opt->timeout_sec,
    };
    char err[256];
    bool not_started;
    if (exec_template_start(&server, &req, &not_started, err, sizeof err))
        io->tmpl = &server;
}

static void stop_fork_server(struct run_io *io)
{
    if (io->tmpl)
        exec_template_stop(io->tmpl);
    io->tmpl = NULL;
    if (io->tmpl_stdin >= 0)
        close(io->tmpl_stdin);
    io->tmpl_stdin = -1;
}

/* Runs executions first, first+stride, ... and reports each through emit. */
static void worker_loop(struct program *prog, const struct explore_options *opt, uint64_t first, uint64_t stride,
                        uint64_t estimate, struct shared_state *shared,
                        void (*emit)(void *ctx, const struct wire_result *w), void *emit_ctx)
{
    struct strategy *strat = strategy_by_name(opt->strategy, opt->depth);
    struct run_io io = run_io_open(opt->show_output, opt->check_cmd != NULL);
    start_fork_server(prog, opt, &io);
    struct trace_tee live = {0};
    if (opt->trace)
        trace_tee_add(&live, opt->trace, opt->trace_out, opt->trace_every_step);
    for (uint64_t i = first; i < opt->schedules; i += stride) {
        if (!keeps_going(opt) && i > __atomic_load_n(&shared->lowest_failure, __ATOMIC_RELAXED))
            break;
        struct exec_result res;
        bool ok = run_one(prog, opt, strat, i, estimate, &io, opt->trace ? &live : NULL, &res);
        struct wire_result w = {.index = i, .kind = res.kind, .incomplete = res.incomplete, .error = !ok, .steps = res.steps,
                                .stops = res.ptrace_stops, .exit_status = res.exit_status};
        snprintf(w.location, sizeof w.location, "%s", res.location);
        snprintf(w.error_message, sizeof w.error_message, "%s", res.error_message);
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
    stop_fork_server(&io);
    run_io_close(&io);
    strategy_free(strat);
}

/* The parent's book of what the executions found. */
struct tally {
    const struct explore_options *opt;
    struct explore_summary *sum;
    struct wire_result *found;      /* distinct failures (kind, location), lowest index each */
    size_t n_found;
    struct wire_result first_error;
    bool have_error;
    struct wire_result lowest;      /* the failure with the lowest index (count_all) */
    uint64_t done;
    uint64_t failures_seen;
};

static void tally_add(void *ctx, const struct wire_result *w)
{
    struct tally *t = ctx;
    t->done++;
    t->sum->schedules_run++;
    t->sum->steps_total += w->steps;
    t->sum->ptrace_stops_total += w->stops;
    if (w->index == 0)
        t->sum->exit_status_first = (uint64_t)w->exit_status;
    if (!w->error && w->kind == FAIL_NONE && w->incomplete) {
        t->sum->incomplete++;
        t->sum->incomplete_reason = (enum incomplete_reason)w->incomplete;
        if (w->steps > t->sum->incomplete_steps)
            t->sum->incomplete_steps = w->steps;
    }
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
        if (i < t->n_found) {
            if (w->index < t->found[i].index)
                t->found[i] = *w;
        } else if (t->n_found < MAX_REPORTED) {
            t->found[t->n_found++] = *w;
        }
    }
    if (t->opt->progress)
        t->opt->progress(t->opt->progress_ctx, t->done, t->opt->schedules, t->failures_seen);
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

static bool run_workers(struct program *prog, const struct explore_options *opt, uint64_t start, uint64_t estimate,
                        const cpu_set_t *cpus, struct shared_state *shared, struct tally *tally, char *err,
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
            pin_to_cpu(cpus, w);
            worker_loop(prog, opt, start + (uint64_t)w, (uint64_t)opt->jobs, estimate, shared, emit_to_pipe, &p[1]);
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

static int cmp_wire_index(const void *a, const void *b)
{
    uint64_t x = ((const struct wire_result *)a)->index, y = ((const struct wire_result *)b)->index;
    return x < y ? -1 : x > y;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool copy_fd_to_file(int fd, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    lseek(fd, 0, SEEK_SET);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, f);
    return fclose(f) == 0;
}

/* Opens one file per format of opt->saved_trace_formats, named stem + its
 * suffix, as branches of tee. */
static bool open_saved_traces(const struct explore_options *opt, const char *stem, struct explore_failure *f,
                              struct trace_tee *tee, char *err, size_t errlen)
{
    for (int i = 0; opt->saved_trace_formats && opt->saved_trace_formats[i]; i++) {
        const struct trace_format *format = opt->saved_trace_formats[i];
        if (f->n_traces == TRACE_TEE_MAX) {
            snprintf(err, errlen, "more than %d trace formats to save", TRACE_TEE_MAX);
            return false;
        }
        struct saved_trace *t = &f->traces[f->n_traces];
        t->format = format->name;
        snprintf(t->path, sizeof t->path, "%s%s", stem, format->suffix);
        FILE *out = fopen(t->path, "w");
        if (!out) {
            snprintf(err, errlen, "cannot write %s: %s", t->path, strerror(errno));
            return false;
        }
        trace_tee_add(tee, format, out, false);
        f->n_traces++;
    }
    return true;
}

/* Closes the files of open_saved_traces; false with a reason if one could
 * not be written completely. */
static bool close_saved_traces(struct trace_tee *tee, const struct explore_failure *f, bool ok, char *err,
                               size_t errlen)
{
    for (int i = 0; i < tee->n; i++) {
        if (fclose(tee->branch[i].out) != 0 && ok) {
            snprintf(err, errlen, "cannot write %s: %s", f->traces[i].path, strerror(errno));
            ok = false;
        }
    }
    return ok;
}

/* Re-runs a failing execution once with its trace recorded in every saved
 * format, and saves schedule, traces and output into the output directory. */
static bool record_failure(struct program *prog, const struct explore_options *opt, const struct wire_result *w,
                           uint64_t estimate, struct explore_failure *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->execution = w->index;
    f->found = (enum failure_kind)w->kind;
    char stem[PATH_MAX];
    snprintf(stem, sizeof stem, "%s/%s-%s-s%" PRIu64 "-e%" PRIu64, opt->out_dir, base_name(prog->path),
             failure_kind_name(f->found), opt->seed, w->index);
    snprintf(f->schedule_file, sizeof f->schedule_file, "%s.sched", stem);
    snprintf(f->stdout_file, sizeof f->stdout_file, "%s.stdout", stem);
    snprintf(f->stderr_file, sizeof f->stderr_file, "%s.stderr", stem);

    struct trace_tee tee = {0};
    trace_tee_bound(&tee, opt->full_trace ? 0 : TRACE_TAIL_STEPS);
    if (!open_saved_traces(opt, stem, f, &tee, err, errlen))
        return close_saved_traces(&tee, f, false, err, errlen);
    struct explore_options quiet = *opt;
    quiet.show_output = false;
    /* Recording costs more per step than exploring did: no wall-clock
     * limit the exploring run did not hit may cut it short. A hang keeps
     * its --timeout (it is what reproduces it); anything else gets room. */
    quiet.time_limit_sec = 0;
    if (f->found != FAIL_HANG && quiet.timeout_sec > 0)
        quiet.timeout_sec = quiet.timeout_sec * 10 > 60 ? quiet.timeout_sec * 10 : 60;
    struct run_io io = run_io_open(false, false);
    struct strategy *strat = strategy_by_name(opt->strategy, opt->depth);
    bool ok = run_one(prog, &quiet, strat, w->index, estimate, &io, &tee, &f->result);
    strategy_free(strat);
    copy_fd_to_file(io.out_fd, f->stdout_file);
    copy_fd_to_file(io.err_fd, f->stderr_file);
    run_io_close(&io);
    if (!ok) {
        snprintf(err, errlen, "%s", f->result.error_message);
        return close_saved_traces(&tee, f, false, err, errlen);
    }
    if (!close_saved_traces(&tee, f, true, err, errlen))
        return false;
    f->reproduced = f->result.kind == f->found;

    struct schedule s;
    schedule_init(&s);
    schedule_set_program(&s, prog->path, opt->argv + 1, opt->argc - 1);
    snprintf(s.sha256, sizeof s.sha256, "%s", prog->sha256);
    snprintf(s.strategy, sizeof s.strategy, "%s", opt->strategy);
    s.depth = opt->depth;
    s.seed = opt->seed;
    s.execution = w->index;
    s.steps = f->result.steps;
    s.max_steps = opt->max_steps;
    s.timeout_sec = opt->timeout_sec;
    if (opt->input && opt->input->fd >= 0) {
        char input_file[PATH_MAX];
        snprintf(input_file, sizeof input_file, "%s.stdin", stem);
        if (!program_input_save(opt->input, input_file, err, errlen)) {
            schedule_free(&s);
            return false;
        }
        s.stdin_file = strdup(base_name(input_file));  /* beside the schedule */
        snprintf(s.stdin_sha256, sizeof s.stdin_sha256, "%s", opt->input->sha256);
    }
    s.fail_on_exit = opt->fail_on_exit;
    s.preempt = opt->preempt;
    s.tso = opt->tso;
    s.races = opt->detect.races;
    schedule_set_invariants(&s, opt->detect.invariants, opt->detect.n_invariants);
    if (opt->limits)
        s.limits = *opt->limits;
    s.check_cmd = opt->check_cmd ? strdup(opt->check_cmd) : NULL;
    snprintf(s.failure, sizeof s.failure, "%s", failure_kind_name(f->result.kind));
    for (size_t i = 0; i < f->result.choices.n; i++) {
        const struct choice *c = &f->result.choices.at[i];
        choice_list_add(&s.choices, c->step, c->kind, c->thread);
    }
    bool written = schedule_write(&s, f->schedule_file, err, errlen);
    schedule_free(&s);
    return written;
}

bool make_directories(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    if (stat(buf, &st) != 0)
        return false;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return false;
    }
    return true;
}

/* Makes opt's resource limits those of every program spawned from now on
 * (NULL: none), turning the nproc allowance into the user-wide count that
 * RLIMIT_NPROC wants: what the user runs now, plus for each worker itself
 * and its allowance. */
static void install_limits(const struct explore_options *opt)
{
    if (!opt->limits) {
        spawn_set_limits(NULL);
        return;
    }
    struct spawn_limits l = *opt->limits;
    if (l.nproc)
        l.nproc = spawn_user_tasks() + (uint64_t)(opt->jobs > 1 ? opt->jobs : 1) * (l.nproc + 1);
    spawn_set_limits(&l);
}

static void probe_emit(void *ctx, const struct wire_result *w)
{
    *(struct wire_result *)ctx = *w;
}

/* Runs execution 0 alone, uncounted, for its length (a range that starts
 * later still needs PCT's estimate). */
static bool probe_estimate(struct program *prog, const struct explore_options *opt, struct shared_state *shared,
                           uint64_t *estimate, char *err, size_t errlen)
{
    struct explore_options quiet = *opt;
    quiet.schedules = 1;
    quiet.show_output = false;
    quiet.trace = NULL;
    quiet.check_cmd = NULL;     /* its verdict does not count */
    struct wire_result w = {.error = 1};
    snprintf(w.error_message, sizeof w.error_message, "execution 0 did not run");
    worker_loop(prog, &quiet, 0, 1, FIRST_ESTIMATE, shared, probe_emit, &w);
    shared->lowest_failure = UINT64_MAX;
    if (w.error) {
        snprintf(err, errlen, "%s", w.error_message);
        return false;
    }
    *estimate = w.steps > 0 ? w.steps : FIRST_ESTIMATE;
    return true;
}

bool explore_run(struct program *prog, const struct explore_options *opt, struct explore_summary *sum, char *err,
                 size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    uint64_t t0 = monotonic_ns();
    if (!make_directories(opt->out_dir)) {
        snprintf(err, errlen, "cannot create %s: %s", opt->out_dir, strerror(errno));
        return false;
    }
    struct explore_options judged = *opt;
    judged.detectors = detectors_new(&opt->detect, prog->debug, err, errlen);
    if (!judged.detectors)
        return false;
    opt = &judged;
    struct shared_state *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        snprintf(err, errlen, "mmap: %s", strerror(errno));
        return false;
    }
    shared->lowest_failure = UINT64_MAX;
    struct tally tally = {.opt = opt, .sum = sum};
    tally.found = calloc(MAX_REPORTED, sizeof *tally.found);

    /* Execution 0 runs first, alone: its length is PCT's estimate for all
     * others, which keeps every execution a function of (seed, index). */
    cpu_set_t cpus;
    bool have_cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0;
    if (have_cpus)
        pin_to_cpu(&cpus, 0);
    install_limits(opt);
    uint64_t estimate = FIRST_ESTIMATE;
    bool ok = true;
    if (opt->first == 0) {
        worker_loop(prog, opt, 0, opt->schedules, FIRST_ESTIMATE, shared, tally_add, &tally);
        estimate = sum->steps_total > 0 ? sum->steps_total : FIRST_ESTIMATE;
    } else {
        ok = probe_estimate(prog, opt, shared, &estimate, err, errlen);
    }
    uint64_t start = opt->first > 1 ? opt->first : 1;
    if (ok && opt->schedules > start && !tally.have_error && (keeps_going(opt) || tally.n_found == 0)) {
        if (opt->jobs <= 1)
            worker_loop(prog, opt, start, 1, estimate, shared, tally_add, &tally);
        else if (have_cpus)
            ok = run_workers(prog, opt, start, estimate, &cpus, shared, &tally, err, errlen);
        else {
            snprintf(err, errlen, "cannot read the CPU affinity: %s", strerror(errno));
            ok = false;
        }
    }
    if (ok && tally.have_error &&
        (opt->count_all || tally.n_found == 0 || tally.first_error.index < tally.found[0].index)) {
        snprintf(err, errlen, "%s", tally.first_error.error_message);
        ok = false;
    }
    if (ok && opt->count_all && tally.failures_seen > 0) {
        tally.found[0] = tally.lowest;
        tally.n_found = 1;
    }
    if (ok) {
        qsort(tally.found, tally.n_found, sizeof *tally.found, cmp_wire_index);
        size_t report = opt->keep_going ? tally.n_found : (tally.n_found > 0 ? 1 : 0);
        sum->failures = calloc(report ? report : 1, sizeof *sum->failures);
        for (size_t i = 0; i < report && ok; i++) {
            uint64_t est = tally.found[i].index == 0 ? FIRST_ESTIMATE : estimate;
            ok = record_failure(prog, opt, &tally.found[i], est, &sum->failures[i], err, errlen);
            sum->n_failures = i + 1;
        }
    }
    free(tally.found);
    detectors_free(judged.detectors);
    munmap(shared, sizeof *shared);
    spawn_set_limits(NULL);
    if (have_cpus)
        sched_setaffinity(0, sizeof cpus, &cpus);
    sum->elapsed_sec = (double)(monotonic_ns() - t0) / 1e9;
    return ok;
}

const char *explore_failure_trace(const struct explore_failure *f, const char *format)
{
    for (int i = 0; i < f->n_traces; i++)
        if (strcmp(f->traces[i].format, format) == 0)
            return f->traces[i].path;
    return NULL;
}

void explore_summary_free(struct explore_summary *sum)
{
    for (size_t i = 0; i < sum->n_failures; i++)
        exec_result_free(&sum->failures[i].result);
    free(sum->failures);
    memset(sum, 0, sizeof *sum);
}

bool explore_schedule_input(const struct schedule *sched, struct program_input *in, char *err, size_t errlen)
{
    program_input_none(in);
    if (!sched->stdin_file)
        return true;
    if (!program_input_from_file(in, sched->stdin_file, err, errlen))
        return false;
    if (strcmp(in->sha256, sched->stdin_sha256) != 0) {
        snprintf(err, errlen, "%s is not the input the schedule was made with (its SHA-256 differs)",
                 sched->stdin_file);
        program_input_free(in);
        return false;
    }
    return true;
}

bool explore_replay(struct program *prog, const struct schedule *sched, struct trace_tee *trace, bool show_output,
                    const char *const *watches, int n_watches, struct exec_result *res, char *err, size_t errlen)
{
    struct program_input input;
    if (!explore_schedule_input(sched, &input, err, errlen))
        return false;
    char **argv = calloc((size_t)sched->n_args + 2, sizeof *argv);
    argv[0] = sched->program;
    for (int i = 0; i < sched->n_args; i++)
        argv[i + 1] = sched->args[i];
    struct explore_options opt = {
        .argv = argv,
        .argc = sched->n_args + 1,
        .schedules = 1,
        .seed = sched->seed,
        .strategy = sched->strategy,   /* as recorded: names the schedule in trace summaries (strat replays it) */
        .max_steps = sched->max_steps,
        .timeout_sec = sched->timeout_sec > 0 ? sched->timeout_sec : 10,
        .time_limit_sec = sched->time_limit_sec,
        .check_cmd = sched->check_cmd,
        .fail_on_exit = sched->fail_on_exit,
        .preempt = sched->preempt,
        .tso = sched->tso,
        .show_output = show_output,
        .describe_steps = true,     /* its report shows the last steps */
        .watches = watches,
        .n_watches = n_watches,
        .limits = &sched->limits,
        .input = &input,
        .detect = {.races = sched->races, .invariants = (const char *const *)sched->invariants,
                   .n_invariants = sched->n_invariants},
    };
    opt.detectors = detectors_new(&opt.detect, prog->debug, err, errlen);
    if (!opt.detectors) {
        free(argv);
        program_input_free(&input);
        return false;
    }
    /* The recorded run's verdict, not the wall clock, decides: only a hang
     * keeps the step timeout it was found with. */
    if (failure_kind_from_name(sched->failure) != FAIL_HANG && opt.timeout_sec < 60)
        opt.timeout_sec = 60;
    install_limits(&opt);
    struct strategy *strat = strategy_replay_new(&sched->choices);
    cpu_set_t cpus;
    bool have_cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0;
    if (have_cpus)
        pin_to_cpu(&cpus, 0);
    struct run_io io = run_io_open(show_output, opt.check_cmd != NULL);
    bool ok = run_one(prog, &opt, strat, sched->execution, 0, &io, trace, res);
    run_io_close(&io);
    strategy_free(strat);
    detectors_free(opt.detectors);
    free(argv);
    spawn_set_limits(NULL);
    if (have_cpus)
        sched_setaffinity(0, sizeof cpus, &cpus);
    program_input_free(&input);
    if (!ok)
        snprintf(err, errlen, "%s", res->error_message);
    return ok;
}
