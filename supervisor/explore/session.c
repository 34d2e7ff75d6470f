/* session: the control loop of `mdat attach`.
 *
 * One execution at a time runs with the interactive strategy; its chooser
 * callbacks are where the frontend is asked. A command either answers the
 * question (a thread to run, a waiter to wake), starts an automatic run
 * that answers the next questions without asking (forward along the
 * recorded path, one thread until it blocks, a strategy to the end), or
 * needs another execution (going back, a new watch, a loaded schedule): the
 * chooser then stops this one and session_run starts the next, which
 * replays the path's prefix silently up to the step wanted. */
#include "supervisor/model/source_model.h"
#include "supervisor/explore/session.h"
#include "supervisor/explore/explore.h"
#include "supervisor/launch/exec_template.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum {
    EVENTS_KEPT = 20000,            /* the log keeps the last ones; older are dropped in blocks */
    EVENTS_DROPPED = 5000,
    OUTPUT_KEPT = 64 * 1024,        /* tail of the program's output */
    DEFAULT_MAX_STEPS = 1000000,
    SAVED_TIMEOUT_SEC = 10,         /* what `mdat replay` allows the saved schedule */
};
/* Progress is shown only for work that is not instant, and not too often. */
#define PROGRESS_AFTER_NS 150000000ull
#define PROGRESS_EVERY_NS 80000000ull

/* Work done without asking the frontend. */
enum auto_mode {
    AUTO_NONE,
    AUTO_FORWARD,       /* follow the path up to auto_until */
    AUTO_RUN,           /* run auto_thread while it can (and is not at auto_line) */
    AUTO_DELEGATE,      /* another strategy chooses (the chooser is not called) */
};

struct session {
    struct program prog;
    char **argv;                    /* owned; argv[0] the program as given */
    int argc;
    struct strategy *strat;         /* interactive */
    struct strategy *auto_strat;    /* the strategy of SV_CONTINUE, owned */
    const struct session_frontend *fe;
    uint64_t max_steps, seed;
    int depth;
    bool tso;                       /* --memory-model tso, or what the loaded schedule says */
    /* What judges each step besides the engine (--races, --invariant). */
    struct detectors *detectors;
    struct schedule judged;         /* only its races and invariants are used */

    /* The path: choices made, and any recorded future. */
    struct schedule path;
    uint64_t reach;                 /* steps known along it */
    bool end_known;                 /* reach is where it ends, with end_failure */
    char end_failure[32];
    bool unsaved;
    size_t verified;                /* choices of this execution known to agree with the path */
    char schedule_file[PATH_MAX];

    /* The current execution. */
    struct exec_result res;
    bool have_res;
    struct trace_event *events;
    size_t n_events, cap_events;
    struct exec_state *latest;      /* after the last step */
    struct exec_state *before;      /* after the step before it */
    int out_fd;
    char *output;
    size_t output_len;
    off_t out_read;
    uint64_t target;                /* this execution replays silently up to here */
    bool reexecuting;
    char mode[48];

    enum auto_mode auto_mode;
    uint64_t auto_until;
    int auto_thread;
    unsigned auto_line;
    char auto_file[64];
    uint64_t work_started_ns, last_progress_ns;

    bool quit, rerun;
    uint64_t next_target;

    /* The fork server of a schedule recorded with page ownership (its
     * executions fork from it), else unused (pid 0). */
    struct exec_template tmpl;

    struct session_breakpoint breakpoints[SESSION_MAX_BREAKPOINTS];
    int n_breakpoints;
    char *watches[SESSION_MAX_WATCHES];
    int n_watches;
    char notice[512];
    bool notice_error;
};

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static void notice(struct session *s, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void notice(struct session *s, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->notice, sizeof s->notice, fmt, ap);
    va_end(ap);
    s->notice_error = error;
}

static bool is_candidate(const struct choice_point *cp, int id)
{
    for (size_t i = 0; cp && i < cp->n; i++)
        if (cp->threads[i] == id)
            return true;
    return false;
}

static const struct state_thread *thread_in(const struct exec_state *st, int id)
{
    for (int i = 0; st && i < st->n_threads; i++)
        if (st->threads[i].id == id)
            return &st->threads[i];
    return NULL;
}

/* ---------- the path ---------- */

static bool same_choice(struct choice a, struct choice b)
{
    return a.step == b.step && a.kind == b.kind && a.thread == b.thread;
}

/* Makes the path agree with what this execution chose (`made`): where they
 * differ, the path's future is given up for what was done. */
static void sync_path(struct session *s, const struct choice_list *made, uint64_t step)
{
    for (; s->verified < made->n; s->verified++) {
        size_t i = s->verified;
        if (i < s->path.choices.n && same_choice(choice_list_at(made, i), choice_list_at(&s->path.choices, i)))
            continue;
        choice_list_truncate(&s->path.choices, i);     /* the recorded future no longer applies */
        for (size_t k = i; k < made->n; k++) {
            struct choice c = choice_list_at(made, k);
            choice_list_add(&s->path.choices, c.step, c.kind, c.thread);
        }
        s->verified = made->n;
        s->reach = step;
        s->end_known = false;
        s->unsaved = true;
        break;
    }
    if (step > s->reach) {
        s->reach = step;
        if (s->end_known) {
            s->end_known = false;   /* went past a recorded end: cannot happen with the same binary */
            s->unsaved = true;
        }
    }
}

/* The thread (or waiter) the path chooses at this question; 0 if the path
 * does not say (unknown beyond reach, or it does not fit). */
static int recorded_choice(const struct session *s, const struct choice_point *cp, char kind)
{
    size_t next = s->verified;
    if (cp->step >= s->reach)
        return 0;
    struct choice c = next < s->path.choices.n ? choice_list_at(&s->path.choices, next) : (struct choice){0};
    if (next < s->path.choices.n && c.step == cp->step && c.kind == kind)
        return is_candidate(cp, c.thread) ? c.thread : 0;
    if (cp->n == 1 && cp->step < s->reach)
        return cp->threads[0];
    return 0;
}

/* ---------- automatic work ---------- */

static void stop_auto(struct session *s, uint64_t step)
{
    if (s->reexecuting)
        strategy_interactive_ask_from(s->strat, step);
    if (s->auto_mode == AUTO_DELEGATE)
        strategy_interactive_delegate(s->strat, NULL);
    s->auto_mode = AUTO_NONE;
    s->reexecuting = false;
}

static void start_work(struct session *s)
{
    s->work_started_ns = monotonic_ns();
    s->last_progress_ns = 0;
}

/* Tells the frontend how long work goes, and lets it cancel. */
static void progress(struct session *s, uint64_t step)
{
    if (!s->fe->progress)
        return;
    uint64_t now = monotonic_ns();
    if (now - s->work_started_ns < PROGRESS_AFTER_NS || now - s->last_progress_ns < PROGRESS_EVERY_NS)
        return;
    s->last_progress_ns = now;
    char what[96];
    uint64_t total = 0;
    if (s->reexecuting) {
        snprintf(what, sizeof what, "re-executing to step %" PRIu64, s->target);
        total = s->target;
    } else if (s->auto_mode == AUTO_FORWARD) {
        snprintf(what, sizeof what, "replaying to step %" PRIu64, s->auto_until);
        total = s->auto_until;
    } else if (s->auto_mode == AUTO_RUN) {
        snprintf(what, sizeof what, "running T%d", s->auto_thread);
    } else {
        snprintf(what, sizeof what, "running with %s", s->auto_strat ? s->auto_strat->ops->name : "?");
    }
    if (s->fe->progress(s->fe->ctx, what, step, total)) {
        stop_auto(s, step);
        notice(s, false, "stopped at step %" PRIu64 " (cancelled)", step);
    }
}

static const struct session_breakpoint *breakpoint_at(const struct session *s, const char *file, unsigned line)
{
    for (int i = 0; i < s->n_breakpoints; i++)
        if (s->breakpoints[i].line == line && strcmp(s->breakpoints[i].file, file) == 0)
            return &s->breakpoints[i];
    return NULL;
}

/* Where a thread's next operation is, as file and line; false if nowhere. */
static bool next_line(const struct exec_state *st, int id, const char **file, unsigned *line)
{
    const struct state_thread *t = thread_in(st, id);
    if (!t || !t->next.op[0] || !t->next.line)
        return false;
    *file = t->next.file;
    *line = t->next.line;
    return true;
}

/* During a run: the thread that just ran has come to a breakpoint's line
 * (or the line it was run to): its next operation is there, and the one
 * before was not (a line with several operations stops once). */
static void check_breakpoints(struct session *s, const struct trace_event *ev, const struct exec_state *before,
                              const struct exec_state *state)
{
    if (s->auto_mode != AUTO_RUN && s->auto_mode != AUTO_DELEGATE)
        return;
    const char *file, *was_file;
    unsigned line, was_line;
    if (!next_line(state, ev->thread, &file, &line))
        return;
    if (next_line(before, ev->thread, &was_file, &was_line) && was_line == line && strcmp(was_file, file) == 0)
        return;
    if (s->auto_mode == AUTO_RUN && s->auto_line && ev->thread == s->auto_thread && line == s->auto_line &&
        strcmp(file, s->auto_file) == 0) {
        stop_auto(s, ev->step);
        notice(s, false, "T%d reached %s:%u", ev->thread, file, line);
    } else if (breakpoint_at(s, file, line)) {
        stop_auto(s, ev->step);
        notice(s, false, "T%d reached breakpoint %s:%u", ev->thread, file, line);
    }
}

/* ---------- what the execution tells us ---------- */

static void read_output(struct session *s)
{
    char buf[8192];     /* smaller than OUTPUT_KEPT: each read fits */
    ssize_t n;
    while ((n = pread(s->out_fd, buf, sizeof buf, s->out_read)) > 0) {
        s->out_read += n;
        if (s->output_len + (size_t)n > OUTPUT_KEPT) {
            size_t drop = s->output_len + (size_t)n - OUTPUT_KEPT;
            memmove(s->output, s->output + drop, s->output_len - drop);
            s->output_len -= drop;
        }
        memcpy(s->output + s->output_len, buf, (size_t)n);
        s->output_len += (size_t)n;
    }
    s->output[s->output_len] = '\0';
}

static void on_event(void *ctx, const struct trace_event *ev, const struct exec_state *state)
{
    struct session *s = ctx;
    if (s->n_events == s->cap_events) {
        if (s->cap_events >= EVENTS_KEPT) {
            memmove(s->events, s->events + EVENTS_DROPPED, (s->n_events - EVENTS_DROPPED) * sizeof *s->events);
            s->n_events -= EVENTS_DROPPED;
        } else {
            s->cap_events = s->cap_events ? s->cap_events * 2 : 256;
            s->events = realloc(s->events, s->cap_events * sizeof *s->events);
            if (!s->events)
                abort();
        }
    }
    s->events[s->n_events++] = *ev;
    if (state) {
        exec_state_free(s->before);
        s->before = s->latest;
        s->latest = exec_state_copy(state);
        check_breakpoints(s, ev, s->before, state);
    }
    read_output(s);
    if (s->reexecuting && ev->step >= s->target)
        s->reexecuting = false;
    if (s->reexecuting || s->auto_mode != AUTO_NONE)
        progress(s, ev->step);
}

/* ---------- views ---------- */

/* The mode word for a finished execution ("exited 0", "deadlock", "crashed", ...). */
static void end_mode(const struct exec_result *res, char *buf, size_t len)
{
    if (res->kind == FAIL_CRASH)
        snprintf(buf, len, "crashed");
    else if (res->kind != FAIL_NONE)
        snprintf(buf, len, "%s", failure_kind_name(res->kind));
    else if (res->incomplete)
        snprintf(buf, len, "incomplete");
    else if (res->exited)
        snprintf(buf, len, "exited %d", res->exit_status);
    else
        snprintf(buf, len, "ended");
}

static void build_view(struct session *s, struct session_view *v, enum session_ask ask, const struct choice_point *cp)
{
    memset(v, 0, sizeof *v);
    v->program = s->prog.path;
    v->ask = ask;
    v->reach = s->reach;
    v->tso = s->tso;
    v->end_known = s->end_known;
    v->unsaved = s->unsaved;
    if (ask == ASK_ENDED) {
        v->step = s->res.steps;
        v->state = s->latest;
        v->previous = s->before;
        v->result = &s->res;
        end_mode(&s->res, s->mode, sizeof s->mode);
    } else {
        v->step = cp->step;
        v->candidates = cp->threads;
        v->n_candidates = cp->n;
        v->waker = cp->waker;
        v->recorded_next = recorded_choice(s, cp, ask == ASK_WAITER ? CHOICE_WAKE : CHOICE_THREAD);
        v->state = cp->state;
        if (cp->step > 0)
            v->previous = s->latest && s->latest->step == cp->step && ask == ASK_THREAD ? s->before : s->latest;
        snprintf(s->mode, sizeof s->mode, "%s", cp->step < s->reach ? "replaying" : "live");
    }
    if (v->reach < v->step)
        v->reach = v->step;
    v->mode = s->mode;
    v->events = s->events;
    v->n_events = s->n_events;
    v->output = s->output;
    v->output_len = s->output_len;
    v->breakpoints = s->breakpoints;
    v->n_breakpoints = s->n_breakpoints;
    v->watches = (const char *const *)s->watches;
    v->n_watches = s->n_watches;
    v->notice = s->notice;
    v->notice_is_error = s->notice_error;
    v->schedule_file = s->schedule_file;
}

/* ---------- commands ---------- */

enum { ASK_AGAIN = -1, STOP = 0 };

/* Ends this execution; the next one replays the path to `step` and asks there. */
static int rerun_at(struct session *s, uint64_t step)
{
    s->rerun = true;
    s->next_target = step;
    return STOP;
}

static bool save(struct session *s, const char *file)
{
    struct schedule out;
    schedule_init(&out);
    schedule_set_program(&out, s->prog.path, s->argv + 1, s->argc - 1);
    snprintf(out.sha256, sizeof out.sha256, "%s", s->prog.sha256);
    snprintf(out.strategy, sizeof out.strategy, "interactive");
    out.depth = s->depth;
    out.seed = s->seed;
    out.steps = s->reach;
    out.max_steps = s->max_steps;
    out.timeout_sec = SAVED_TIMEOUT_SEC;
    out.races = s->judged.races;
    out.tso = s->tso;
    schedule_set_invariants(&out, (const char *const *)s->judged.invariants, s->judged.n_invariants);
    snprintf(out.failure, sizeof out.failure, "%s", s->end_known ? s->end_failure : "none");
    choice_list_copy(&out.choices, &s->path.choices);   /* with how it observed memory */
    char err[512];

    bool ok = schedule_write(&out, file, err, sizeof err);
    schedule_free(&out);
    if (!ok) {
        notice(s, true, "%s", err);
        return false;
    }
    s->unsaved = false;
    snprintf(s->schedule_file, sizeof s->schedule_file, "%s", file);
    if (s->end_known)
        notice(s, false, "saved %s (%" PRIu64 " steps, %s): mdat replay %s", file, s->reach, s->end_failure, file);
    else
        notice(s, false, "saved %s: %" PRIu64 " steps so far, before the end (mdat attach --replay continues it; "
                         "mdat replay needs the run to its end)", file, s->reach);
    return true;
}

/* Takes a schedule file's choices as the path; false (notice set) if it is
 * not one of this program. */
static bool adopt_schedule(struct session *s, const char *file)
{
    struct schedule in;
    char err[512];
    if (!schedule_read(file, &in, err, sizeof err)) {
        notice(s, true, "%s", err);
        return false;
    }
    if (!schedule_binary_matches(&in, s->prog.sha256)) {
        notice(s, true, "%s was recorded with another binary (%s); attach to that program to open it", file,
               in.program ? in.program : "?");
        schedule_free(&in);
        return false;
    }
    /* A schedule replays only under the model it was found with. */
    bool model_changed = in.tso != s->tso;
    s->tso = in.tso;
    choice_list_copy(&s->path.choices, &in.choices);

    s->reach = in.steps;
    s->end_known = true;
    snprintf(s->end_failure, sizeof s->end_failure, "%s", in.failure);
    s->unsaved = false;
    snprintf(s->schedule_file, sizeof s->schedule_file, "%s", file);
    notice(s, false, "loaded %s: %zu choices, %" PRIu64 " steps (%s)%s", file, in.choices.n, in.steps, in.failure,
           !model_changed ? "" : s->tso ? ", under --memory-model tso" : ", under --memory-model sc");
    schedule_free(&in);
    return true;
}

static int delegate_rest(struct session *s, const struct choice_point *cp, enum session_ask ask, const char *name)
{
    strategy_free(s->auto_strat);
    s->auto_strat = strategy_by_name(name, s->depth, 0);
    if (!s->auto_strat) {
        notice(s, true, "unknown strategy \"%s\" (random or pct)", name);
        return ASK_AGAIN;
    }
    uint64_t estimate = s->reach > cp->step + 100 ? s->reach : cp->step + 1000;
    s->auto_strat->ops->begin(s->auto_strat, s->seed + cp->step, estimate);
    for (int i = 0; cp->state && i < cp->state->n_threads; i++)
        s->auto_strat->ops->thread_created(s->auto_strat, cp->state->threads[i].id);
    strategy_interactive_delegate(s->strat, s->auto_strat);
    s->auto_mode = AUTO_DELEGATE;
    start_work(s);
    size_t i = ask == ASK_WAITER ? s->auto_strat->ops->pick_waiter(s->auto_strat, cp)
                                 : s->auto_strat->ops->pick_thread(s->auto_strat, cp);
    return cp->threads[i < cp->n ? i : 0];
}

static void toggle_breakpoint(struct session *s, const struct session_command *cmd, const struct exec_state *st)
{
    char file[64];
    snprintf(file, sizeof file, "%s", cmd->text);
    if (!file[0]) {
        const struct state_thread *t = thread_in(st, cmd->thread);
        if (!t || !t->next.file[0]) {
            notice(s, true, "no source file to put a breakpoint in: give FILE:LINE");
            return;
        }
        snprintf(file, sizeof file, "%s", t->next.file);
    }
    for (int i = 0; i < s->n_breakpoints; i++) {
        if (s->breakpoints[i].line == cmd->line && strcmp(s->breakpoints[i].file, file) == 0) {
            s->breakpoints[i] = s->breakpoints[--s->n_breakpoints];
            notice(s, false, "breakpoint %s:%u removed", file, cmd->line);
            return;
        }
    }
    if (cmd->line == 0 || s->n_breakpoints == SESSION_MAX_BREAKPOINTS) {
        notice(s, true, cmd->line ? "at most %d breakpoints" : "breakpoints need a line number", SESSION_MAX_BREAKPOINTS);
        return;
    }
    struct session_breakpoint *b = &s->breakpoints[s->n_breakpoints++];
    snprintf(b->file, sizeof b->file, "%s", file);
    b->line = cmd->line;
    notice(s, false, "breakpoint at %s:%u (r and c stop when a thread reaches it)", file, cmd->line);
}

/* -T: T's oldest buffered store can be flushed. */
static bool can_flush(struct session *s, const struct choice_point *cp, enum session_ask ask, int id)
{
    if (is_candidate(cp, id))
        return true;
    if (!s->tso)
        notice(s, true, "stores are not buffered under --memory-model sc: there is nothing to flush");
    else if (ask == ASK_WAITER)
        notice(s, true, "first choose which waiter wakes");
    else if (!thread_in(cp->state, -id))
        notice(s, true, "there is no thread T%d", -id);
    else
        notice(s, true, "T%d has no buffered store to flush", -id);
    return false;
}

static bool can_run(struct session *s, const struct choice_point *cp, enum session_ask ask, int id)
{
    if (id < 0)
        return can_flush(s, cp, ask, id);
    if (is_candidate(cp, id))
        return true;
    const struct state_thread *t = thread_in(cp->state, id);
    if (!t)
        notice(s, true, "there is no thread T%d", id);
    else if (ask == ASK_WAITER)
        notice(s, true, "T%d is not one of the waiters this wake-up can release", id);
    else if (t->status == THREAD_EXITED)
        notice(s, true, "T%d has exited", id);
    else
        notice(s, true, "T%d cannot run: %s", id, t->waiting_on[0] ? t->waiting_on : thread_status_name(t->status));
    return false;
}

/* Obeys one command. Returns the thread to run (or waiter to wake), STOP to
 * end this execution, or ASK_AGAIN. cp is NULL at ASK_ENDED. */
static int obey(struct session *s, const struct session_command *cmd, const struct choice_point *cp,
                enum session_ask ask)
{
    uint64_t now = ask == ASK_ENDED ? s->res.steps : cp->step;
    bool ended = ask == ASK_ENDED;
    switch (cmd->verb) {
    case SV_STEP:
        if (ended)
            break;
        return can_run(s, cp, ask, cmd->thread) ? cmd->thread : ASK_AGAIN;
    case SV_RUN:
        if (ended)
            break;
        if (ask == ASK_WAITER) {
            notice(s, true, "first choose which waiter wakes");
            return ASK_AGAIN;
        }
        if (cmd->thread < 0) {
            notice(s, true, "a store buffer does not run: flush its stores one at a time");
            return ASK_AGAIN;
        }
        if (!can_run(s, cp, ask, cmd->thread))
            return ASK_AGAIN;
        s->auto_mode = AUTO_RUN;
        s->auto_thread = cmd->thread;
        s->auto_line = cmd->line;
        snprintf(s->auto_file, sizeof s->auto_file, "%s", cmd->text);
        if (cmd->line && !s->auto_file[0]) {
            const struct state_thread *t = thread_in(cp->state, cmd->thread);
            snprintf(s->auto_file, sizeof s->auto_file, "%s", t ? t->next.file : "");
        }
        start_work(s);
        return cmd->thread;
    case SV_CONTINUE:
        if (ended)
            break;
        return delegate_rest(s, cp, ask, cmd->text);
    case SV_GOTO: {
        uint64_t to = cmd->step;
        if (to > s->reach) {
            if (s->reach <= now) {
                notice(s, true, "nothing is recorded after step %" PRIu64 ": choose a thread to go on", now);
                return ASK_AGAIN;
            }
            to = s->reach;
        }
        if (to == now && ask != ASK_WAITER)
            return ASK_AGAIN;
        if (to <= now)
            return rerun_at(s, to);
        s->auto_mode = AUTO_FORWARD;
        s->auto_until = to;
        start_work(s);
        int next = recorded_choice(s, cp, ask == ASK_WAITER ? CHOICE_WAKE : CHOICE_THREAD);
        if (next)
            return next;
        s->auto_mode = AUTO_NONE;
        notice(s, true, "the recorded schedule has no choice for step %" PRIu64, now + 1);
        return ASK_AGAIN;
    }
    case SV_SAVE:
        save(s, cmd->text);
        return ASK_AGAIN;
    case SV_LOAD:
        if (!adopt_schedule(s, cmd->text))
            return ASK_AGAIN;
        return rerun_at(s, 0);
    case SV_WATCH_ADD:
        if (s->n_watches == SESSION_MAX_WATCHES) {
            notice(s, true, "at most %d watches", SESSION_MAX_WATCHES);
            return ASK_AGAIN;
        }
        if (!cmd->text[0])
            return ASK_AGAIN;
        s->watches[s->n_watches++] = xstrdup(cmd->text);
        notice(s, false, "watching %s", cmd->text);
        return rerun_at(s, now);
    case SV_WATCH_REMOVE:
        if (cmd->index < 0 || cmd->index >= s->n_watches) {
            notice(s, true, "no watch number %d", cmd->index + 1);
            return ASK_AGAIN;
        }
        notice(s, false, "no longer watching %s", s->watches[cmd->index]);
        free(s->watches[cmd->index]);
        memmove(&s->watches[cmd->index], &s->watches[cmd->index + 1],
                (size_t)(s->n_watches - cmd->index - 1) * sizeof *s->watches);
        s->n_watches--;
        return rerun_at(s, now);
    case SV_BREAK_TOGGLE:
        toggle_breakpoint(s, cmd, ended ? s->latest : cp->state);
        return ASK_AGAIN;
    case SV_QUIT:
        s->quit = true;
        return STOP;
    }
    notice(s, true, "the program has ended: go back (left arrow, g, Home), save (s) or quit (q)");
    return ASK_AGAIN;
}

/* Answers without asking while automatic work goes on; 0 when the frontend
 * has to be asked. */
static int auto_answer(struct session *s, const struct choice_point *cp, enum session_ask ask)
{
    switch (s->auto_mode) {
    case AUTO_NONE:
        return 0;
    case AUTO_DELEGATE:         /* asked again: the run was cancelled or hit a breakpoint */
        s->auto_mode = AUTO_NONE;
        return 0;
    case AUTO_FORWARD: {
        if (cp->step >= s->auto_until) {
            s->auto_mode = AUTO_NONE;
            return 0;
        }
        int next = recorded_choice(s, cp, ask == ASK_WAITER ? CHOICE_WAKE : CHOICE_THREAD);
        if (!next) {
            s->auto_mode = AUTO_NONE;
            notice(s, true, "the recorded schedule does not go on at step %" PRIu64 ": choose from here", cp->step);
        }
        return next;
    }
    case AUTO_RUN: {
        if (ask == ASK_WAITER)
            return 0;           /* a person chooses the waiter; the run goes on after */
        const struct state_thread *t = thread_in(cp->state, s->auto_thread);
        if (!is_candidate(cp, s->auto_thread)) {
            s->auto_mode = AUTO_NONE;
            if (t && t->status == THREAD_EXITED)
                notice(s, false, "T%d has exited", s->auto_thread);
            else if (t)
                notice(s, false, "T%d blocked: %s", s->auto_thread,
                       t->waiting_on[0] ? t->waiting_on : thread_status_name(t->status));
            return 0;
        }
        return s->auto_thread;
    }
    }
    return 0;
}

/* Shows the frontend the view of this question and obeys its command. */
static int ask_frontend(struct session *s, const struct choice_point *cp, enum session_ask what)
{
    struct session_view v;
    build_view(s, &v, what, cp);
    struct session_command cmd;
    memset(&cmd, 0, sizeof cmd);
    s->fe->decide(s->fe->ctx, &v, &cmd);
    s->notice[0] = '\0';
    s->notice_error = false;
    return obey(s, &cmd, cp, what);
}

static int ask(struct session *s, const struct choice_point *cp, enum session_ask what)
{
    s->reexecuting = false;
    if (what == ASK_THREAD && cp->state && (!s->latest || s->latest->step != cp->step)) {
        /* No step has reported this state (the first question): keep it as
         * the picture the next step is compared with. */
        exec_state_free(s->before);
        s->before = s->latest;
        s->latest = exec_state_copy(cp->state);
    }
    sync_path(s, strategy_interactive_made(s->strat), cp->step);
    int id = auto_answer(s, cp, what);
    if (id)
        return id;
    while ((id = ask_frontend(s, cp, what)) == ASK_AGAIN)
        ;
    return id;
}

static int choose_thread(void *ctx, const struct choice_point *cp)
{
    return ask(ctx, cp, ASK_THREAD);
}

static int choose_waiter(void *ctx, const struct choice_point *cp)
{
    return ask(ctx, cp, ASK_WAITER);
}

/* ---------- executions ---------- */

static void reset_execution(struct session *s)
{
    if (s->have_res)
        exec_result_free(&s->res);
    s->have_res = false;
    s->n_events = 0;
    exec_state_free(s->latest);
    exec_state_free(s->before);
    s->latest = s->before = NULL;
    s->output_len = 0;
    s->output[0] = '\0';
    s->out_read = 0;
    if (ftruncate(s->out_fd, 0) != 0) {
        /* a memfd always truncates */
    }
    lseek(s->out_fd, 0, SEEK_SET);
    s->verified = 0;
    s->auto_mode = AUTO_NONE;
    s->rerun = false;
}

/* The execution ran to its end: its choices are the path, complete. */
static void adopt_end(struct session *s)
{
    sync_path(s, &s->res.choices, s->res.steps);
    if (s->path.choices.n > s->res.choices.n) {
        choice_list_truncate(&s->path.choices, s->res.choices.n);
        s->unsaved = true;
    }
    /* A file saved before the end lacks it; a path without any choice is
     * the program's only schedule and nothing to lose. */
    bool news = !s->end_known || s->reach != s->res.steps ||
                strcmp(s->end_failure, failure_kind_name(s->res.kind)) != 0;
    if (news && s->path.choices.n > 0)
        s->unsaved = true;
    s->reach = s->res.steps;
    s->end_known = true;
    snprintf(s->end_failure, sizeof s->end_failure, "%s", failure_kind_name(s->res.kind));
}

static void ask_at_end(struct session *s)
{
    while (!s->quit && !s->rerun)
        ask_frontend(s, NULL, ASK_ENDED);
}

/* The replayed prefix stopped fitting at the last step reached: keep what
 * fitted and let the person choose from there. */
static void recover_divergence(struct session *s)
{
    uint64_t at = s->n_events ? s->events[s->n_events - 1].step : 0;
    size_t keep = 0;
    while (keep < s->path.choices.n && choice_list_at(&s->path.choices, keep).step < at)
        keep++;
    choice_list_truncate(&s->path.choices, keep);
    s->reach = at;
    s->end_known = false;
    s->unsaved = true;
    notice(s, true, "the recorded schedule no longer fits (%s): you choose from step %" PRIu64,
           s->strat->divergence, at);
    s->next_target = at;
}

/* A schedule recorded observing only shared pages (page ownership) replays
 * only so: executions fork from a fork server prepared for it. A session
 * of one's own observes every access. */
static bool observe_as_recorded(struct session *s, struct exec_config *cfg, int devnull, char *err, size_t errlen)
{
    enum pages_mode pages = s->path.choices.pages;
    if (pages == PAGES_OFF)
        return true;
    if (!s->tmpl.pid) {
        struct exec_template_request req = {
            .path = s->prog.path, .argv = s->argv, .stdin_fd = devnull, .stdout_fd = s->out_fd,
            .stderr_fd = s->out_fd, .code = s->prog.code, .follow_memory = true,
            .timeout_sec = SAVED_TIMEOUT_SEC, .own_pages = true,
        };
        bool not_started;
        if (!exec_template_start(&s->tmpl, &req, &not_started, err, errlen))
            return false;
        if (!s->tmpl.pages) {
            snprintf(err, errlen, "the schedule observes only shared pages, which needs protection keys this "
                                  "machine does not offer");
            return false;
        }
    }
    cfg->tmpl = &s->tmpl;
    cfg->own_pages = pages == PAGES_OWN;
    cfg->observed = s->path.choices.observed.at;
    cfg->n_observed = s->path.choices.observed.n;
    cfg->read_shared = s->path.choices.read_shared.at;
    cfg->n_read_shared = s->path.choices.read_shared.n;
    return true;
}

bool session_run(struct session *s, const struct session_frontend *fe, char *err, size_t errlen)
{

    s->fe = fe;
    s->next_target = 0;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    bool ok = true;
    while (!s->quit) {
        reset_execution(s);
        s->target = s->next_target;
        s->reexecuting = s->target > 0;
        start_work(s);
        strategy_interactive_rewind(s->strat, &s->path.choices, s->target);
        struct exec_config cfg = {
            .exe = s->prog.debug,
            .code = s->prog.code,
            .path = s->prog.path,
            .argv = s->argv,
            .strategy = s->strat,
            .max_steps = s->max_steps,
            /* The clock stops while a person decides (execution.c): this
             * limits the program's own time, so a spin is still caught. */
            .timeout_sec = SAVED_TIMEOUT_SEC,
            .stdin_fd = devnull,
            .stdout_fd = s->out_fd,
            .stderr_fd = s->out_fd,
            .on_event = on_event,
            .want_state = true,
            .detect_livelock = true,
            .judge_spins = s->path.choices.spins_judged,
            .spin_preference = true,
            .watches = (const char *const *)s->watches,

            .n_watches = s->n_watches,
            .event_ctx = s,
            .model = &source_model_ops,
            .memory_model = s->tso ? MEMORY_TSO : MEMORY_SC,
        };
        struct exec_listener listeners[DETECT_MAX_LISTENERS];
        cfg.listeners = listeners;
        cfg.n_listeners = detectors_listeners(s->detectors, 0, listeners);
        if (!observe_as_recorded(s, &cfg, devnull, err, errlen)) {
            ok = false;
            break;
        }
        bool ran = execution_run(&cfg, &s->res);
        s->have_res = true;
        if (ran && s->res.restart) {
            /* A path of its own, where threads share pages the recorded one
             * did not: observed from the start, it runs again. */
            if (s->res.restart == RESTART_OBSERVE_ALL)
                s->path.choices.pages = PAGES_OBSERVE_ALL;
            for (size_t i = 0; i < s->res.restart_pages.n; i++)
                page_list_add(&s->path.choices.observed, s->res.restart_pages.at[i]);
            for (size_t i = 0; i < s->res.restart_read_shared.n; i++)
                page_list_add(&s->path.choices.read_shared, s->res.restart_read_shared.at[i]);
            s->next_target = s->target;
            continue;
        }

        read_output(s);
        if (!ran) {
            if (s->strat->diverged) {
                recover_divergence(s);
                continue;
            }
            snprintf(err, errlen, "%s", s->res.error_message[0] ? s->res.error_message : "the execution failed");
            ok = false;
            break;
        }
        if (s->res.stopped) {
            if (!s->rerun && !s->quit)
                s->next_target = s->res.steps;  /* stopped for no reason we know: stay */
            continue;
        }
        adopt_end(s);
        s->auto_mode = AUTO_NONE;
        ask_at_end(s);
    }
    if (devnull >= 0)
        close(devnull);
    return ok;
}

/* ---------- setup ---------- */

struct session *session_open(const struct session_options *opt, char *err, size_t errlen)
{
    struct session *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    schedule_init(&s->path);
    s->path.choices.spins_judged = true;    /* a path of its own; a loaded schedule says */
    s->out_fd = -1;

    s->max_steps = opt->max_steps ? opt->max_steps : DEFAULT_MAX_STEPS;
    s->seed = opt->seed;
    s->depth = opt->depth ? opt->depth : 3;
    s->tso = opt->tso;
    struct schedule sched;
    bool have_sched = false;
    if (opt->replay_file) {
        if (!schedule_read(opt->replay_file, &sched, err, errlen)) {
            free(s);
            return NULL;
        }
        have_sched = true;
        if (opt->memory_model_given && sched.tso != opt->tso) {
            snprintf(err, errlen, "%s was recorded with --memory-model %s and replays only under it, not %s",
                     opt->replay_file, sched.tso ? "tso" : "sc", opt->tso ? "tso" : "sc");
            schedule_free(&sched);
            schedule_free(&s->path);
            free(s);
            return NULL;
        }
    }
    const char *program = opt->argc > 0 ? opt->argv[0] : have_sched ? sched.program : NULL;
    if (!program || !program_load(&s->prog, program, err, errlen)) {
        if (!program)
            snprintf(err, errlen, "no program given");
        if (have_sched)
            schedule_free(&sched);
        schedule_free(&s->path);
        free(s);
        return NULL;
    }
    if (opt->argc > 0) {
        s->argc = opt->argc;
        s->argv = calloc((size_t)s->argc + 1, sizeof *s->argv);
        for (int i = 0; i < s->argc; i++)
            s->argv[i] = xstrdup(opt->argv[i]);
    } else {
        s->argc = sched.n_args + 1;
        s->argv = calloc((size_t)s->argc + 1, sizeof *s->argv);
        s->argv[0] = xstrdup(sched.program);
        for (int i = 0; i < sched.n_args; i++)
            s->argv[i + 1] = xstrdup(sched.args[i]);
    }
    schedule_init(&s->judged);
    if (have_sched && !opt->detect_given) {
        s->judged.races = sched.races;
        schedule_set_invariants(&s->judged, (const char *const *)sched.invariants, sched.n_invariants);
    } else {
        s->judged.races = opt->detect.races;
        schedule_set_invariants(&s->judged, opt->detect.invariants, opt->detect.n_invariants);
    }
    if (have_sched)
        schedule_free(&sched);
    struct detect_options detect = {s->judged.races, (const char *const *)s->judged.invariants,
                                    s->judged.n_invariants};
    s->detectors = detectors_new(&detect, s->prog.debug, err, errlen);
    if (!s->detectors) {
        session_close(s);
        return NULL;
    }
    for (int i = 0; i < opt->n_watches && s->n_watches < SESSION_MAX_WATCHES; i++) {
        char why[200];
        if (!debuginfo_check_object(s->prog.debug, opt->watches[i], why, sizeof why)) {
            snprintf(err, errlen, "--watch '%s': %s", opt->watches[i], why);
            session_close(s);
            return NULL;
        }
        s->watches[s->n_watches++] = xstrdup(opt->watches[i]);
    }
    s->out_fd = memfd_create("mdat-attach-output", MFD_CLOEXEC);
    s->output = malloc(OUTPUT_KEPT + 1);
    if (s->out_fd < 0 || !s->output) {
        snprintf(err, errlen, "cannot capture the program's output: %s", strerror(errno));
        session_close(s);
        return NULL;
    }
    s->output[0] = '\0';
    struct chooser chooser = {choose_thread, choose_waiter, s};
    s->strat = strategy_interactive_new(&chooser);
    if (opt->replay_file && !adopt_schedule(s, opt->replay_file)) {
        snprintf(err, errlen, "%s", s->notice);
        session_close(s);
        return NULL;
    }
    return s;
}

void session_close(struct session *s)
{
    if (!s)
        return;
    if (s->have_res)
        exec_result_free(&s->res);
    if (s->tmpl.pid)
        exec_template_stop(&s->tmpl);
    strategy_free(s->strat);

    strategy_free(s->auto_strat);
    schedule_free(&s->path);
    detectors_free(s->detectors);
    schedule_free(&s->judged);
    free(s->events);
    exec_state_free(s->latest);
    exec_state_free(s->before);
    if (s->out_fd >= 0)
        close(s->out_fd);
    free(s->output);
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    for (int i = 0; i < s->n_watches; i++)
        free(s->watches[i]);
    if (s->prog.debug)
        program_free(&s->prog);
    free(s);
}

/* A readable file for DWARF's name: as is, next to the program, in the
 * current directory. */
static bool find_source(const char *program, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s", name);
    if (name[0] == '/' || access(path, R_OK) == 0)
        return access(path, R_OK) == 0;
    const char *slash = strrchr(program, '/');
    int dir = slash ? (int)(slash - program) : 0;
    snprintf(path, len, "%.*s/%s", dir, program, name);
    if (access(path, R_OK) == 0)
        return true;
    const char *base = strrchr(name, '/');
    if (base) {
        snprintf(path, len, "%.*s/%s", dir, program, base + 1);
        if (access(path, R_OK) == 0)
            return true;
    }
    snprintf(path, len, "%s", name);
    return false;
}

bool session_source_of(const struct session *s, uint64_t pc, char *path, size_t len, unsigned *line)
{
    *line = 0;
    path[0] = '\0';
    if (!pc || !code_map_in_exe(s->prog.code, pc))
        return false;
    struct src_loc loc;
    if (!debuginfo_code_location(s->prog.debug, pc - code_map_bias(s->prog.code), &loc) || !loc.file || !loc.line)
        return false;
    *line = loc.line;
    find_source(s->prog.path, loc.file, path, len);
    return true;
}

bool session_source_named(const struct session *s, const char *file, char *path, size_t len)
{
    for (size_t i = s->n_events; i-- > 0;) {
        const struct trace_event *e = &s->events[i];
        unsigned line;
        if (e->pc && strcmp(e->file, file) == 0 && session_source_of(s, e->pc, path, len, &line))
            return access(path, R_OK) == 0;
    }
    return find_source(s->prog.path, file, path, len);
}
