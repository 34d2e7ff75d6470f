/* grade_run: running one unit of grading, isolated from mdat grade itself.
 *
 * Student code is untrusted, and so (for this purpose) is mdat's engine
 * running it: each unit is explored in a child process of its own (a fork:
 * the same code as `mdat run`, but the child can report the count of
 * failing executions that `mdat run --json` does not give), in its own
 * process group, with a wall-clock limit. Whatever happens inside (the
 * program forks wildly, hangs, or crashes mdat's worker), mdat grade kills
 * the group, then every process left below it: it is the child subreaper of
 * its descendants, so orphans come back to it to be killed and reaped. A
 * build runs the same way: in a copy of the submission, in its own process
 * group, with a time limit. With --lincheck the child checks the
 * submission's scenarios instead of exploring a program
 * (grade_lincheck.c), in the same process, sandbox and limits. */
#include "ui/grade/grade_run.h"
#include "supervisor/process/proc_stat.h"
#include "ui/grade/grade_lincheck.h"
#include "ui/grade/grade_sandbox.h"

#include "supervisor/explore/explore.h"
#include "supervisor/explore/sha256.h"
#include "supervisor/process/proc_maps.h"
#include "ui/render/trace_formats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { BUILD_OUTPUT_LINES = 20, MAX_EXE_CANDIDATES = 8, FIND_DEPTH = 4 };

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t deadline_after(double seconds)
{
    return seconds > 0 ? now_ns() + (uint64_t)(seconds * 1e9) : 0;
}

void grade_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

void grade_catch_stop_signals(void)
{
    /* No SA_RESTART: the waits below return at once and look at the flag. */
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int grade_stop_signal(void)
{
    return stop_signal;
}

/* In a child: the signals mean what they mean by default again (mdat grade
 * kills its children itself when it stops). */
static void default_stop_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

/* Waits for pid until deadline_ns (0: for ever). true when it ended, with
 * its status; false at the deadline or on a stop signal (it still runs). */
static bool wait_until(pid_t pid, uint64_t deadline_ns, int *status)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) {
            if (pidfd >= 0)
                close(pidfd);
            return true;
        }
        uint64_t now = now_ns();
        if (stop_signal || (deadline_ns && now >= deadline_ns)) {
            if (pidfd >= 0)
                close(pidfd);
            return false;
        }
        int ms = 20;    /* without a pidfd (kernel before 5.3): look again soon */
        if (pidfd >= 0) {
            uint64_t left = deadline_ns ? (deadline_ns - now) / 1000000 + 1 : 60000;
            ms = left > 60000 ? 60000 : (int)left;
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            poll(&p, 1, ms);
        } else {
            struct timespec ts = {0, 20000000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Our children right now, from /proc (every process whose parent we are). */
struct children {
    pid_t parent;
    pid_t *pids;
    size_t n, max;
};

static void add_if_child(pid_t pid, void *ctx)
{
    struct children *c = ctx;
    struct proc_stat st;
    if (proc_stat_read(pid, 0, &st) && st.ppid == c->parent && c->n < c->max)
        c->pids[c->n++] = pid;
}

static size_t list_children(pid_t *out, size_t max)
{
    struct children c = {getpid(), out, 0, max};
    proc_each_process(add_if_child, &c);
    return c.n;
}

/* Kills process group pgid (0: none) and every process still below us,
 * and reaps them. Orphans of the group come back to us (subreaper) and are
 * killed in the next round, until none is left. */
static void sweep(pid_t pgid)
{
    if (pgid > 0)
        kill(-pgid, SIGKILL);
    uint64_t give_up = now_ns() + 5000000000u;
    for (;;) {
        pid_t kids[512];
        size_t n = list_children(kids, sizeof kids / sizeof kids[0]);
        for (size_t i = 0; i < n; i++)
            kill(kids[i], SIGKILL);
        int status;
        pid_t w;
        while ((w = waitpid(-1, &status, WNOHANG)) > 0)
            ;
        if ((n == 0 && w < 0) || now_ns() > give_up)
            return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

/* Runs argv (PATH searched) in dir with stdin from /dev/null and stdout and
 * stderr to out_fd, in a process group of its own, for at most timeout_sec
 * (0: no limit). Returns its exit status, 128+signal, -1 if it could not
 * start, -2 when it was killed at the time limit. */
static int run_command(char *const argv[], const char *dir, int out_fd, double timeout_sec)
{
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        default_stop_signals();
        if (getppid() != parent)
            _exit(127);
        /* In a sandbox as root, a build is the program's (its Makefile is
         * the student's code), never mdat's user. */
        if (!spawn_become_program_user())
            _exit(126);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        if (out_fd >= 0) {
            dup2(out_fd, 1);
            dup2(out_fd, 2);
        }
        if (dir && chdir(dir) != 0)
            _exit(126);
        execvp(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0;
    bool ended = wait_until(pid, deadline_after(timeout_sec), &status);
    sweep(pid);
    if (!ended)
        return -2;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

/* The first lines of a file (at most BUILD_OUTPUT_LINES, cut to len). */
static void first_lines(const char *path, int max_lines, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    int lines = 0;
    for (char *p = out; *p; p++)
        if (*p == '\n' && ++lines == max_lines) {
            p[1] = '\0';
            break;
        }
    size_t l = strlen(out);
    while (l > 0 && (out[l - 1] == '\n' || out[l - 1] == '\r'))
        out[--l] = '\0';
}

static bool is_elf_executable(const char *path, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || !(st->st_mode & S_IXUSR))
        return false;
    /* Shared libraries are ELF and often executable: libx.so, libx.so.1 */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *so = strstr(base, ".so");
    if (so && (so[3] == '\0' || so[3] == '.'))
        return false;
    char magic[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool elf = read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0;
    close(fd);
    return elf;
}

static bool modified_since(const struct stat *st, const struct timespec *since)
{
    return st->st_mtim.tv_sec > since->tv_sec ||
           (st->st_mtim.tv_sec == since->tv_sec && st->st_mtim.tv_nsec >= since->tv_nsec);
}

/* ELF executables under dir written at or after since; skips hidden
 * directories and CMake's own (CMakeFiles holds its compiler probes). */
static int find_new_executables(const char *dir, const struct timespec *since, char found[][PATH_MAX], int n,
                                int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "CMakeFiles") == 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth > 1)
            n = find_new_executables(path, since, found, n, depth - 1);
        else if (is_elf_executable(path, &st) && modified_since(&st, since)) {
            if (n < MAX_EXE_CANDIDATES)
                snprintf(found[n], PATH_MAX, "%s", path);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void build_failed(struct grade_unit *u, const char *fmt, const char *arg)
{
    u->status = UNIT_BUILD_FAILED;
    snprintf(u->message, sizeof u->message, fmt, arg);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Copies the submission directory to build_dir (src NULL: the copy is
 * there already, made by the sandbox), runs the build command there and
 * finds the program. false (u says why) if the build failed. */
static bool build(const struct grade_settings *s, const char *src, const char *build_dir, char *exe, size_t exe_len,
                  struct grade_unit *u)
{
    /* Next to the copy, named alike: shards of one submission build at
     * once (GNU parallel on one host), each in its own copy. */
    char log_path[PATH_MAX];
    snprintf(log_path, sizeof log_path, "%s.log", build_dir);
    int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) {
        build_failed(u, "cannot write %s", log_path);
        return false;
    }
    char src_contents[PATH_MAX];
    snprintf(src_contents, sizeof src_contents, "%s/.", src ? src : "");
    char *rm[] = {"rm", "-rf", "--", (char *)build_dir, NULL};
    char *cp[] = {"cp", "-a", "--", src_contents, (char *)build_dir, NULL};
    if (src &&
        (run_command(rm, NULL, log, 60) != 0 || !make_directories(build_dir) || run_command(cp, NULL, log, 300) != 0)) {
        close(log);
        first_lines(log_path, BUILD_OUTPUT_LINES, u->build_output, sizeof u->build_output);
        build_failed(u, "cannot copy the submission to %s", build_dir);
        return false;
    }
    struct timespec started;
    clock_gettime(CLOCK_REALTIME, &started);
    started.tv_sec -= 1;    /* file systems with coarse timestamps */
    char *sh[] = {"/bin/sh", "-c", (char *)s->build_cmd, NULL};
    int st = run_command(sh, build_dir, log, s->build_timeout_sec);
    close(log);
    first_lines(log_path, BUILD_OUTPUT_LINES, u->build_output, sizeof u->build_output);
    char why[64];
    if (st == -2) {
        snprintf(why, sizeof why, "%g", s->build_timeout_sec);
        build_failed(u, "the build took longer than %s s and was stopped", why);
        return false;
    }
    if (st != 0) {
        if (st < 0)
            snprintf(why, sizeof why, "could not start /bin/sh");
        else if (st > 128)
            snprintf(why, sizeof why, "was killed by %s", strsignal(st - 128));
        else
            snprintf(why, sizeof why, "exited with status %d", st);
        build_failed(u, "the build %s", why);
        return false;
    }
    if (s->lincheck_spec)
        return true;    /* the spec names what the build made; lincheck builds the program */
    if (s->exe_name) {
        snprintf(exe, exe_len, "%s/%s", build_dir, s->exe_name);
        struct stat sb;
        if (stat(exe, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            build_failed(u, "the build did not produce %s", s->exe_name);
            return false;
        }
        return true;
    }
    char found[MAX_EXE_CANDIDATES][PATH_MAX];
    int n = find_new_executables(build_dir, &started, found, 0, FIND_DEPTH);
    if (n == 1) {
        snprintf(exe, exe_len, "%s", found[0]);
        return true;
    }
    if (n == 0) {
        build_failed(u, "%s", "the build produced no executable (name it with --exe)");
        return false;
    }
    int listed = n < MAX_EXE_CANDIDATES ? n : MAX_EXE_CANDIDATES;
    qsort(found, (size_t)listed, sizeof found[0], compare_paths);
    char names[400] = "";
    for (int i = 0; i < listed && i < 4; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", found[i] + strlen(build_dir) + 1);
    }
    build_failed(u, "the build produced several executables (%s): name one with --exe", names);
    return false;
}

/* What the grading child and mdat grade share. */
struct unit_shared {
    struct grade_unit unit;             /* (its outcome table is below, not in the child's heap) */
    volatile uint64_t done, failing;    /* progress, for a unit stopped by the wall clock */
    volatile int finished;              /* the child filled unit */
    struct outcome outcomes[GRADE_MAX_OUTCOMES];
    size_t n_outcomes;
};

/* The child's table into the shared page: the most frequent, and a count
 * of the executions of the rest. */
static void share_outcomes(const struct outcome_table *t, struct unit_shared *sh)
{
    sh->n_outcomes = t->n < GRADE_MAX_OUTCOMES ? t->n : GRADE_MAX_OUTCOMES;
    if (sh->n_outcomes)     /* t->at is NULL without --outcomes */
        memcpy(sh->outcomes, t->at, sh->n_outcomes * sizeof *sh->outcomes);
    for (size_t i = sh->n_outcomes; i < t->n; i++)
        sh->unit.outcomes_left_out += t->at[i].count;
}

/* The unit as the child left it, its outcomes in the parent's memory. */
static void take_unit(const struct unit_shared *sh, struct grade_unit *u)
{
    *u = sh->unit;
    u->outcomes = (struct outcome_table){0};
    for (size_t i = 0; i < sh->n_outcomes; i++)
        outcome_table_merge(&u->outcomes, &sh->outcomes[i]);
}

static void record_progress(void *ctx, uint64_t done, uint64_t total, uint64_t failures)
{
    struct unit_shared *sh = ctx;
    sh->done = done;
    sh->failing = failures;
}

static void copy_failure(const struct grade_settings *s, const struct explore_failure *f, struct grade_failure *g)
{
    const struct exec_result *r = &f->result;
    g->execution = f->execution;
    g->kind = r->kind != FAIL_NONE ? r->kind : f->found;
    g->reproduced = f->reproduced;
    /* The signals of the limits say which one the program ran into (the
     * message names the signal: mdat kills the rest of the process). */
    if (g->kind == FAIL_CRASH && strstr(r->message, "by SIGXCPU"))
        snprintf(g->message, sizeof g->message, "%s (over the CPU time limit of %llu s)", r->message,
                 (unsigned long long)s->limits.cpu_sec);
    else if (g->kind == FAIL_CRASH && strstr(r->message, "by SIGXFSZ"))
        snprintf(g->message, sizeof g->message, "%s (over the file size limit of %llu bytes)", r->message,
                 (unsigned long long)s->limits.file_size);
    else
        snprintf(g->message, sizeof g->message, "%s", r->message);
    snprintf(g->location, sizeof g->location, "%s", r->location);
    snprintf(g->function, sizeof g->function, "%s", r->function);
    snprintf(g->schedule_file, sizeof g->schedule_file, "%s", f->schedule_file);
    snprintf(g->schedule_sha256, sizeof g->schedule_sha256, "%s", f->schedule_sha256);
    first_lines(f->stderr_file, 1, g->program_stderr, sizeof g->program_stderr);
}

/* The grading child: explores exe's range and fills sh. */
static void explore_unit(const struct grade_settings *s, int jobs, const char *exe, const char *unit_dir,
                         uint64_t first, uint64_t end, struct unit_shared *sh)
{
    struct grade_unit *u = &sh->unit;
    char err[512];
    struct program prog;
    if (!program_load(&prog, exe, err, sizeof err)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "%s", err);
        return;
    }
    char *argv[] = {(char *)exe, NULL};
    struct explore_options opt = {
        .argv = argv,
        .argc = 1,
        .schedules = end,
        .first = first,
        .seed = s->seed,
        .strategy = s->strategy,
        .depth = s->depth,
        .jobs = (uint64_t)jobs > end - first ? (int)(end - first) : jobs,
        .max_steps = s->max_steps,
        .timeout_sec = s->timeout_sec,
        .check_cmd = s->check_cmd,
        .fail_on_exit = s->fail_on_exit,
        .detect = s->detect,
        .preempt = (enum preempt_mode)s->preempt,
        .tso = s->tso,
        .count_all = true,
        .limits = &s->limits,
        .out_dir = unit_dir,
        .saved_trace_formats = trace_formats,
        .progress = record_progress,
        .progress_ctx = sh,
        .outcomes = s->outcomes,
        .outcome_files_unranked = true,     /* a shard's ranks are not the whole table's */
        .watches = s->watches,
        .n_watches = s->n_watches,
    };
    struct explore_summary sum;
    if (!explore_run(&prog, &opt, &sum, err, sizeof err)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "%s", err);
        program_free(&prog);
        return;
    }
    u->schedules_run = sum.schedules_run;
    for (int k = 0; k < FAIL_KIND_COUNT; k++) {
        u->failing_by_kind[k] = sum.failing[k];
        u->failing += sum.failing[k];
    }
    u->raced = sum.raced;
    u->output_accepted = sum.output_accepted;
    if (sum.n_failures > 0) {
        u->has_failure = true;
        copy_failure(s, &sum.failures[0], &u->first_failure);
    }
    share_outcomes(&sum.outcomes, sh);
    explore_summary_free(&sum);
    program_free(&prog);
}

/* What runs in the unit's child process: fills sh->unit, sets
 * sh->finished; returns the child's exit status. */
typedef int unit_body(void *ctx, struct unit_shared *sh);

/* Signals that mdat's grading process never sends itself: in a sandbox,
 * where nothing but the submission runs, a death by one of them is the
 * submission's doing. */
static bool sent_by_submission(int sig)
{
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT ||
           sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGALRM;
}

static const char *signal_name(int sig)
{
    const char *name = sigabbrev_np(sig);
    return name ? name : "?";
}

/* What the sandbox hands back is checked against what only mdat could
 * write (in the grading child, outside the sandbox, once everything in it
 * is gone, before the copy-out): the failure's schedule must be the one
 * whose hash mdat's explorer put in the shared result, beyond the
 * submission's reach. Without root the submission runs as the user who
 * owns the unit's files, and could have rewritten it. */
static void check_schedule(struct grade_unit *u)
{
    const struct grade_failure *f = &u->first_failure;
    char now[65];
    if (!u->has_failure || !f->schedule_sha256[0] ||
        (sha256_file(f->schedule_file, now) && strcmp(now, f->schedule_sha256) == 0))
        return;
    u->status = UNIT_TAMPERED;
    snprintf(u->message, sizeof u->message,
             "the schedule of its first failure (%s) is not the one mdat wrote: the submission altered or removed it",
             f->schedule_file);
}

/* Runs body in a child process of its own with the unit's wall clock, and
 * reads what it found (or says why it found nothing). */
static void run_isolated(const struct grade_settings *s, bool sandboxed, unit_body *body, void *ctx,
                         struct grade_unit *u)
{
    struct unit_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "mmap: %s", strerror(errno));
        return;
    }
    memset(sh, 0, sizeof *sh);
    sh->unit = *u;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "fork: %s", strerror(errno));
        munmap(sh, sizeof *sh);
        return;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        default_stop_signals();
        if (getppid() != parent)
            _exit(1);
        _exit(body(ctx, sh));
    }
    setpgid(pid, pid);
    int status = 0;
    bool ended = wait_until(pid, deadline_after(s->unit_timeout_sec), &status);
    sweep(pid);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!ended) {
        /* Reaped by sweep: what it managed is in the progress counters. */
        u->status = UNIT_WALL_CLOCK;
        u->schedules_run = sh->done;
        u->failing = sh->failing;
        snprintf(u->message, sizeof u->message,
                 "wall clock: grading took longer than %g s and was stopped after %llu of %llu schedules (%llu failing)",
                 s->unit_timeout_sec, (unsigned long long)sh->done, (unsigned long long)(u->end - u->first),
                 (unsigned long long)sh->failing);
    } else if (sh->finished) {
        take_unit(sh, u);
    } else if (sandboxed && code == SANDBOX_EXIT_STOPPED) {
        u->status = UNIT_TAMPERED;
        snprintf(u->message, sizeof u->message, "the submission stopped mdat's grading process (SIGSTOP)");
    } else if (sandboxed && code > 128 && sent_by_submission(code - 128)) {
        u->status = UNIT_TAMPERED;
        snprintf(u->message, sizeof u->message, "the submission killed mdat's grading process (SIG%s)",
                 signal_name(code - 128));
    } else {
        u->status = UNIT_MDAT_ERROR;
        if (WIFSIGNALED(status))
            snprintf(u->message, sizeof u->message, "mdat's grading process was killed by %s",
                     strsignal(WTERMSIG(status)));
        else if (sandboxed && code > 128)
            snprintf(u->message, sizeof u->message, "mdat's grading process was killed by %s", strsignal(code - 128));
        else
            snprintf(u->message, sizeof u->message, "mdat's grading process exited with status %d", code);
    }
    munmap(sh, sizeof *sh);
}

/* An unsandboxed unit: the program (built already) explored in the child,
 * or with --lincheck the submission's files (files_dir) checked. */
struct plain_unit {
    const struct grade_settings *s;
    int jobs;
    const char *exe, *unit_dir, *files_dir;
};

static int plain_body(void *ctx, struct unit_shared *sh)
{
    const struct plain_unit *p = ctx;
    if (p->s->lincheck_spec) {
        /* The submission is never written to: the harness goes to the unit's folder. */
        char harness_dir[PATH_MAX + 16];
        snprintf(harness_dir, sizeof harness_dir, "%s/lincheck", p->unit_dir);
        grade_lincheck_unit(p->s, p->files_dir, harness_dir, p->unit_dir, &sh->unit);
    } else {
        explore_unit(p->s, p->jobs, p->exe, p->unit_dir, sh->unit.first, sh->unit.end, sh);
    }
    sh->finished = 1;
    return 0;
}

/* A sandboxed unit: built and explored inside the sandbox, in its copy. */
struct boxed_unit {
    const struct grade_settings *s;
    int jobs;
    struct sandbox_plan plan;
    char unit_dir[PATH_MAX], copy_dir[PATH_MAX];
    bool program;               /* the submission is a program, not a directory */
    struct unit_shared *sh;
};

/* Inside the sandbox: the copy of a directory is built (or holds --exe);
 * the copy of a program is that program. */
static int boxed_work(void *ctx)
{
    struct boxed_unit *b = ctx;
    const struct grade_settings *s = b->s;
    struct grade_unit *u = &b->sh->unit;
    const char *given = s->submissions[b->plan.submission];
    const char *base = strrchr(given, '/');
    base = base ? base + 1 : given;
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/%s", b->copy_dir, base);
    bool program = b->program;
    grade_become_subreaper();   /* the build's orphans come back here, inside */
    if (!program && s->build_cmd) {
        if (!build(s, NULL, b->copy_dir, exe, sizeof exe, u)) {
            b->sh->finished = 1;
            return 0;
        }
    } else if (!program) {
        snprintf(exe, sizeof exe, "%s/%s", b->copy_dir, s->exe_name ? s->exe_name : "");
    }
    if (s->lincheck_spec)   /* the copy is the program's: its harness is built there */
        grade_lincheck_unit(s, b->copy_dir, b->copy_dir, b->unit_dir, u);
    else
        explore_unit(s, b->jobs, exe, b->unit_dir, u->first, u->end, b->sh);
    b->sh->finished = 1;
    return 0;
}

static void check_boxed(void *ctx)
{
    struct boxed_unit *b = ctx;
    if (b->sh->finished && b->sh->unit.status == UNIT_GRADED)
        check_schedule(&b->sh->unit);
}

/* The sandbox's status is this process's: how the work inside ended. */
static int boxed_body(void *ctx, struct unit_shared *sh)
{
    struct boxed_unit *b = ctx;
    b->sh = sh;
    char err[512];
    int status = grade_sandbox_run(&b->plan, err, sizeof err);
    if (status < 0) {
        sh->unit.status = UNIT_MDAT_ERROR;
        snprintf(sh->unit.message, sizeof sh->unit.message, "%s", err);
        sh->finished = 1;
        return 3;
    }
    return status;
}

static void run_sandboxed(const struct grade_settings *s, int jobs, const char *unit_dir, const char *shard_tag,
                          struct grade_unit *u)
{
    struct boxed_unit *b = calloc(1, sizeof *b);
    if (!b || !realpath(unit_dir, b->unit_dir)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "cannot find %s: %s", unit_dir, strerror(errno));
        free(b);
        return;
    }
    snprintf(b->copy_dir, sizeof b->copy_dir, "%s/build%s", b->unit_dir, shard_tag);
    struct stat st;
    b->program = stat(s->submissions[u->submission], &st) == 0 && !S_ISDIR(st.st_mode);
    b->s = s;
    b->jobs = jobs;
    b->plan = (struct sandbox_plan){.settings = s, .submission = u->submission, .grader = (int)getpid(),
                                    .unit_dir = b->unit_dir,
                                    .copy_dir = b->copy_dir, .work = boxed_work, .before_copy_out = check_boxed,
                                    .ctx = b};
    run_isolated(s, true, boxed_body, b, u);
    free(b);
}

bool grade_run_unit(const struct grade_settings *s, int jobs, int submission, uint64_t first, uint64_t end,
                    const char *shard_tag, struct grade_unit *u)
{
    uint64_t t0 = now_ns();
    memset(u, 0, sizeof *u);
    u->submission = submission;
    u->first = first;
    u->end = end;
    u->status = UNIT_GRADED;
    const char *given = s->submissions[submission];
    char name[256], unit_dir[PATH_MAX], exe[PATH_MAX];
    grade_submission_name(given, submission, s->n_submissions, name, sizeof name);
    snprintf(unit_dir, sizeof unit_dir, "%s/%s", s->out_dir, name);
    snprintf(exe, sizeof exe, "%s", given);
    struct stat st;
    if (!make_directories(unit_dir)) {
        u->status = UNIT_MDAT_ERROR;
        snprintf(u->message, sizeof u->message, "cannot create %s: %s", unit_dir, strerror(errno));
    } else if (stat(given, &st) == 0 && S_ISDIR(st.st_mode) && !s->build_cmd) {
        /* cmd_grade makes sure a directory comes with --build or --exe. */
        snprintf(exe, sizeof exe, "%s/%s", given, s->exe_name ? s->exe_name : "");
    }
    if (u->status == UNIT_GRADED && grade_sandbox_usable(s)) {
        run_sandboxed(s, jobs, unit_dir, shard_tag, u);
    } else if (u->status == UNIT_GRADED) {
        char build_dir[PATH_MAX];
        snprintf(build_dir, sizeof build_dir, "%s", given);
        if (stat(given, &st) == 0 && S_ISDIR(st.st_mode) && s->build_cmd) {
            snprintf(build_dir, sizeof build_dir, "%s/build%s", unit_dir, shard_tag);
            build(s, given, build_dir, exe, sizeof exe, u);
        }
        if (u->status == UNIT_GRADED) {
            struct plain_unit p = {s, jobs, exe, unit_dir, build_dir};
            run_isolated(s, false, plain_body, &p, u);
        }
    }
    u->seconds = (double)(now_ns() - t0) / 1e9;
    return !stop_signal;
}
