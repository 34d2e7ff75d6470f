/* tui_takeover: stepping the threads of a held process, one at a time
 * (see tui_takeover.h). Owns the hold's lifetime on screen: the report
 * read again after each step, the log of steps, the text trace they are
 * saved as, and letting go on every way out but SIGKILL (after which the
 * kernel lets the threads go). Running a step is foreign_step.c's; the
 * report's text is attach_print.c's. */
#include <stdio.h>

#include "supervisor/inspect/foreign_livelock.h"
#include "supervisor/inspect/foreign_step.h"
#include "supervisor/inspect/foreign_visible.h"
#include "ui/cli/attach_print.h"
#include "ui/render/trace_log.h"
#include "ui/live/tui_takeover.h"
#include "ui/term/tui_term.h"

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long a step may take before its thread is said to wait in the
 * kernel; long enough for a call that only takes time (a short sleep, a
 * write to a terminal). */
enum { STEP_WAIT_MS = 300, KEY_POLL_MS = 200, LOG_SHOWN = 8 };
/* Single steps cost a stop each: a way back out of a library call (a lock
 * taken, a write) takes tens to thousands of instructions. */
enum { USER_STEP_WAIT_MS = 2000 };
/* Key l: how long the threads that can run are watched for a livelock. */
enum { LIVELOCK_WATCH_MS = 1000 };

/* What a key asks of the selected thread. */
enum step_kind {
    STEP_VISIBLE,       /* s: to its next visible operation, carried out */
    STEP_SYSCALL,       /* c: to its next system call (or the return of the one it entered) */
    STEP_TO_USER,       /* u: one instruction at a time back to the user's code */
};

static const char NO_REPLAY[] =
    "no replay or step back from an attach point: what the process did before mdat attached is unknown";

struct takeover {
    pid_t pid;
    struct attach_code *code;
    struct foreign_process proc;
    struct foreign_report report;
    bool have_report;
    char *text;             /* the report as --print prints it */
    size_t selected;        /* index into proc.threads */
    char **log;
    size_t n_log;
    size_t n_steps;         /* the log's step lines (it also holds verdicts) */
    int last_thread;        /* the thread of the last step, for the trace's '*' */
    bool visible_steps;     /* breakpoints can be planted: s steps to visible operations */
    char message[600];
    char began[16];         /* HH:MM:SS */
};

static volatile sig_atomic_t stop_signal;

static void note_stop(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

static const int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};

/* While the threads are held, a terminating signal lets them go first. */
static void catch_stops(struct sigaction saved[3])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = note_stop;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    for (int i = 0; i < 3; i++)
        sigaction(stop_signals[i], &sa, &saved[i]);
}

static void restore_stops(const struct sigaction saved[3])
{
    for (int i = 0; i < 3; i++)
        sigaction(stop_signals[i], &saved[i], NULL);
}

static const struct foreign_thread_view *view_of(const struct takeover *tk, pid_t tid)
{
    for (size_t i = 0; tk->have_report && i < tk->report.n_threads; i++)
        if (tk->report.threads[i].tid == tid)
            return &tk->report.threads[i];
    return NULL;
}

/* The report read again; watch_ms > 0: with a livelock watch of the
 * threads that can run (they run, in turn, for at most that long). */
static void reread(struct takeover *tk, int watch_ms)
{
    char err[600];
    if (tk->have_report)
        foreign_report_free(&tk->report);
    tk->have_report = foreign_code_refresh(&tk->code->code, tk->proc.proc_tid, tk->proc.mem_fd, tk->proc.exe, err,
                                           sizeof err) &&
                      foreign_report_build(&tk->proc, &tk->code->code, &tk->report, err, sizeof err);
    if (tk->have_report && watch_ms > 0)
        foreign_livelock_watch(&tk->proc, &tk->code->code, &tk->report, watch_ms);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        if (tk->have_report)
            attach_print_text(f, &tk->report);
        else
            fprintf(f, "cannot read the process now: %s\n", err);
        fclose(f);
    }
    free(tk->text);
    tk->text = buf;
}

static void add_log(struct takeover *tk, const char *line)
{
    char **grown = realloc(tk->log, (tk->n_log + 1) * sizeof *grown);
    if (!grown)
        return;
    tk->log = grown;
    tk->log[tk->n_log++] = strdup(line);
}

static int thread_number(const struct takeover *tk, size_t i)
{
    return foreign_thread_number(&tk->proc, tk->proc.threads[i].tid);
}

static bool steppable(const struct takeover *tk, size_t i)
{
    return tk->proc.threads[i].seized && tk->proc.threads[i].stopped;
}

/* "write returns 5", "futex returns -EAGAIN". */
static void returns_text(long nr, int64_t result, char *buf, size_t len)
{
    char name[64];
    foreign_syscall_name(nr, name, sizeof name);
    if (result < 0 && result > -4096) {
        const char *e = strerrorname_np((int)-result);
        snprintf(buf, len, "%s returns -%s", name, e ? e : "?");
    } else {
        snprintf(buf, len, "%s returns %lld", name, (long long)result);
    }
}

/* What a step did, in words: "enters futex(0x..., 0x80, 0x2)". */
static void step_text(const struct takeover *tk, const struct foreign_step *s, char *buf, size_t len)
{
    char name[64], ran[120] = "";
    foreign_syscall_name(s->nr, name, sizeof name);
    if (s->ran_call) {
        returns_text(s->ran_nr, s->ran_result, ran, sizeof ran - 2);
        strcat(ran, ", ");
    }
    switch (s->end) {
    case FSTEP_NEW_THREAD: {
        int made = foreign_thread_number(&tk->proc, s->new_tid);
        if (made)
            snprintf(buf, len, "%s makes thread T%d (tid %d), held before its first instruction", name, made,
                     (int)s->new_tid);
        else
            snprintf(buf, len, "%s makes thread %d, which mdat could not hold: %s", name, (int)s->new_tid, s->why);
        break;
    }
    case FSTEP_USER_CODE:
        snprintf(buf, len, "%sback in the user's code after %lu instruction%s", ran, s->instructions,
                 s->instructions == 1 ? "" : "s");
        break;
    case FSTEP_ENTERED:
        snprintf(buf, len, "enters %s(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx)", name,
                 (unsigned long long)s->args[0], (unsigned long long)s->args[1], (unsigned long long)s->args[2],
                 (unsigned long long)s->args[3], (unsigned long long)s->args[4], (unsigned long long)s->args[5]);
        break;
    case FSTEP_RETURNED:
        returns_text(s->nr, s->result, buf, len);
        break;
    case FSTEP_SIGNAL: {
        const char *sig = sigabbrev_np(s->signal);
        snprintf(buf, len, "SIG%s comes first: the thread takes it at its next step", sig ? sig : "?");
        break;
    }
    case FSTEP_ENDED:
        snprintf(buf, len, "ends");
        break;
    case FSTEP_BLOCKED:
        if (s->instructions && s->nr < 0)
            snprintf(buf, len, "%sstill outside the user's code after %lu instructions (held again where it is)", ran,
                     s->instructions);
        else
            snprintf(buf, len, "%swaits in the kernel%s%s (blocked: held again where it waits)", ran,
                     s->nr >= 0 ? " in " : "", s->nr >= 0 ? name : "");
        break;
    case FSTEP_REFUSED:
        snprintf(buf, len, "%s", s->why);
        break;
    case FSTEP_VISIBLE:
        snprintf(buf, len, "%s %s", s->op.op, s->op.object);
        break;
    }
}

/* Held, and not waiting on something only another thread can end. */
static bool selectable(const struct takeover *tk, size_t i)
{
    const struct foreign_thread_view *v = view_of(tk, tk->proc.threads[i].tid);
    return steppable(tk, i) && !(v && v->stuck);
}

static void select_next(struct takeover *tk, int direction)
{
    size_t n = tk->proc.n_threads;
    for (size_t k = 1; k <= n; k++) {
        size_t i = (tk->selected + (direction > 0 ? k : n * k - k)) % n;
        if (selectable(tk, i)) {
            tk->selected = i;
            return;
        }
    }
}

/* Why thread i cannot step, in tk->message; false when it can. */
static bool refuse_step(struct takeover *tk, size_t i)
{
    int number = thread_number(tk, i);
    const struct foreign_thread_view *before = view_of(tk, tk->proc.threads[i].tid);
    if (!steppable(tk, i)) {
        snprintf(tk->message, sizeof tk->message, "T%d cannot step: it has ended", number);
        return true;
    }
    if (before && before->stuck) {
        char wait[300];
        foreign_wait_text(&tk->report, before, wait, sizeof wait);
        snprintf(tk->message, sizeof tk->message,
                 "T%d cannot step: it waits on %s, and runs only when another thread lets it", number, wait);
        return true;
    }
    return false;
}

static bool run_step(struct takeover *tk, size_t i, enum step_kind kind, struct foreign_step *s, char *err, size_t len)
{
    switch (kind) {
    case STEP_VISIBLE:
        return foreign_step_visible(&tk->proc, i, &tk->code->code, STEP_WAIT_MS, s, err, len);
    case STEP_TO_USER:
        return foreign_step_to_user(&tk->proc, i, &tk->code->code, USER_STEP_WAIT_MS, s, err, len);
    case STEP_SYSCALL:
        break;
    }
    return foreign_step_thread(&tk->proc, i, STEP_WAIT_MS, s, err, len);
}

/* The step as a line of a run's trace ("     3 * T2   lock lock_b
 * deadlock.c:21 worker  -> blocks on mutex lock_b held by T3"): a
 * visible operation as the trace tells it, anything else in words. */
static void step_line(const struct takeover *tk, size_t i, const struct foreign_step *s, char *line, size_t len)
{
    int number = thread_number(tk, i);
    struct trace_event ev;
    memset(&ev, 0, sizeof ev);
    if (s->has_op && (s->end == FSTEP_VISIBLE || s->end == FSTEP_BLOCKED)) {
        ev = s->op;
    } else {
        /* In words: the first as the operation ("enters", "ends"), the rest its object. */
        char what[400];
        step_text(tk, s, what, sizeof what);
        size_t verb = strcspn(what, " ");
        if (verb >= sizeof ev.op)
            verb = 0;
        snprintf(ev.op, sizeof ev.op, "%.*s", (int)verb, what);
        snprintf(ev.object, sizeof ev.object, "%s", what + verb + (what[verb] == ' '));
    }
    ev.step = tk->n_steps + 1;
    ev.thread = number;
    ev.switched = tk->last_thread != 0 && tk->last_thread != number;
    const struct foreign_thread_view *after = view_of(tk, tk->proc.threads[i].tid);
    bool alive = after && s->end != FSTEP_ENDED;
    if (!ev.where[0] && alive)
        snprintf(ev.where, sizeof ev.where, "%s", after->location);
    char wait[300] = "";
    if (alive && (s->end == FSTEP_BLOCKED || after->wait.kind != FWAIT_NONE))
        foreign_wait_text(&tk->report, after, wait, sizeof wait);
    if (wait[0])
        snprintf(ev.outcome, sizeof ev.outcome, "%s %s", after->stuck ? "blocks on" : "waits on", wait);
    else if (s->end == FSTEP_BLOCKED && s->has_op)
        snprintf(ev.outcome, sizeof ev.outcome, "blocks (held again where it waits)");
    else if (s->end == FSTEP_ENDED && s->has_op)
        snprintf(ev.outcome, sizeof ev.outcome, "ends");
    trace_log_format(&ev, line, len);
}

static void step_selected(struct takeover *tk, enum step_kind kind)
{
    size_t i = tk->selected;
    int number = thread_number(tk, i);
    if (refuse_step(tk, i))
        return;
    if (kind == STEP_VISIBLE && !tk->visible_steps)
        kind = STEP_SYSCALL;
    struct foreign_step s;
    char err[300];
    if (!run_step(tk, i, kind, &s, err, sizeof err)) {
        snprintf(tk->message, sizeof tk->message, "T%d: %s", number, err);
        return;
    }
    if (s.end == FSTEP_REFUSED) {
        char what[400];
        step_text(tk, &s, what, sizeof what);
        snprintf(tk->message, sizeof tk->message, "T%d cannot step: %s", number, what);
        return;
    }
    bool was_stuck = tk->have_report && foreign_report_stuck(&tk->report);
    reread(tk, 0);
    char line[TRACE_LOG_LINE_MAX];
    step_line(tk, i, &s, line, sizeof line);
    add_log(tk, line);
    tk->n_steps++;
    tk->last_thread = number;
    snprintf(tk->message, sizeof tk->message, "%s", line);
    /* The step that made the program stuck: its verdict goes in the log. */
    if (tk->have_report && foreign_report_stuck(&tk->report) && !was_stuck) {
        add_log(tk, tk->report.verdict_text);
        snprintf(tk->message, sizeof tk->message, "%s", tk->report.verdict_text);
    }
    if (!selectable(tk, tk->selected))
        select_next(tk, 1);
}

/* l: the threads that can run watched for a livelock, as the live view does. */
static void watch_livelock(struct takeover *tk)
{
    reread(tk, LIVELOCK_WATCH_MS);
    if (!tk->have_report) {
        snprintf(tk->message, sizeof tk->message, "cannot read the process now");
        return;
    }
    const struct foreign_livelock *l = &tk->report.livelock;
    char said[1600];
    if (tk->report.verdict == FVERDICT_LIVELOCK)
        snprintf(said, sizeof said, "%s", tk->report.verdict_text);
    else if (!l->watched)
        snprintf(said, sizeof said, "not watched: a thread waits on something another could end, or none can run");
    else if (l->why_not[0])
        snprintf(said, sizeof said, "no livelock told: %s", l->why_not);
    else
        snprintf(said, sizeof said, "no livelock: the threads did not come back to a state seen before (%lu instructions)",
                 l->instructions);
    char line[TRACE_LOG_LINE_MAX];
    snprintf(line, sizeof line, "livelock watch (the threads that can run ran in turn, up to %d ms): %s",
             LIVELOCK_WATCH_MS, said);
    add_log(tk, line);
    snprintf(tk->message, sizeof tk->message, "%s", line);
}

/* The steps taken, as a text trace in the current directory. */
static bool save_steps(struct takeover *tk, char *path, size_t len)
{
    snprintf(path, len, "mdat-attach-%d.steps", (int)tk->pid);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "# mdat attach -p %d (%s): the steps taken over from %s\n", (int)tk->pid, tk->proc.exe, tk->began);
    fprintf(f, "# a step (s) runs one thread through its next visible operation (an access of the user's code to\n");
    fprintf(f, "# shared memory, an atomic, a modeled call, a futex, a sleep), told as mdat run's traces tell it;\n");
    fprintf(f, "# c runs it to its next system call; u one instruction at a time back to the user's code\n");
    fprintf(f, "# there is no replay from an attach point: what the process did before mdat attached is unknown\n");
    for (size_t i = 0; i < tk->n_log; i++)
        fprintf(f, "%s\n", tk->log[i]);
    return fclose(f) == 0;
}

static void draw(const struct takeover *tk)
{
    int rows = getmaxy(stdscr);
    erase();
    char line[700];
    int n = snprintf(line, sizeof line, "mdat attach -p %d  TAKEN OVER since %s: every thread held, T%d selected",
                     (int)tk->pid, tk->began, thread_number(tk, tk->selected));
    tui_term_line(0, line, (size_t)n, A_REVERSE);
    if (tk->visible_steps)
        n = snprintf(line, sizeof line,
                     "s runs the selected thread through its next visible operation; c to its next system call; "
                     "u, one instruction at a time back to the user's code");
    else
        n = snprintf(line, sizeof line,
                     "no breakpoint can be planted in this program: s and c run the selected thread to its next "
                     "system call; u, one instruction at a time back to the user's code");
    tui_term_line(1, line, (size_t)n, A_DIM);
    size_t shown = tk->n_log < LOG_SHOWN ? tk->n_log : LOG_SHOWN;
    int log_top = rows - 3 - (int)shown - 1;
    int row = 2;
    const char *p = tk->text ? tk->text : "";
    while (*p && row < log_top) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        tui_term_line(row++, p, len, A_NORMAL);
        p = nl ? nl + 1 : p + len;
    }
    if (log_top > 2) {
        n = snprintf(line, sizeof line, "steps taken: %zu", tk->n_steps);
        tui_term_line(log_top, line, (size_t)n, A_BOLD);
        for (size_t i = tk->n_log - shown; i < tk->n_log; i++)
            tui_term_line(++log_top, tk->log[i], strlen(tk->log[i]), A_NORMAL);
    }
    tui_term_line(rows - 2, tk->message, strlen(tk->message), A_BOLD);
    static const char keys[] =
        "s step  c to system call  u to user code  Tab/1-9 thread  l livelock watch  w save steps  g let go (live view)  "
        "q quit (let go)  b replay";
    tui_term_line(rows - 1, keys, strlen(keys), A_REVERSE);
    refresh();
}

/* Answers one key; false when the user lets go (*end says how). */
static bool on_key(struct takeover *tk, int key, enum takeover_end *end)
{
    tk->message[0] = '\0';
    char path[PATH_MAX];
    switch (key) {
    case 'q':
    case 'Q':
        *end = TAKEOVER_QUIT;
        return false;
    case 'g':
        *end = TAKEOVER_BACK;
        return false;
    case 's':
    case 'n':
    case ' ':
    case '\n':
    case KEY_ENTER:
        step_selected(tk, STEP_VISIBLE);
        break;
    case 'c':
        step_selected(tk, STEP_SYSCALL);
        break;
    case 'u':
        step_selected(tk, STEP_TO_USER);
        break;
    case 'l':
        watch_livelock(tk);
        break;
    case '\t':
    case KEY_RIGHT:
        select_next(tk, 1);
        break;
    case KEY_BTAB:
    case KEY_LEFT:
        select_next(tk, -1);
        break;
    case 'w':
        if (save_steps(tk, path, sizeof path))
            snprintf(tk->message, sizeof tk->message, "%zu steps saved in %s", tk->n_steps, path);
        else
            snprintf(tk->message, sizeof tk->message, "cannot write %s: %s", path, strerror(errno));
        break;
    case 'r':
        reread(tk, 0);
        break;
    case 'b':
    case 'B':
    case 'R':
        snprintf(tk->message, sizeof tk->message, "%s", NO_REPLAY);
        break;
    default:
        if (key >= '1' && key <= '9') {
            size_t i = (size_t)(key - '1');
            if (i < tk->proc.n_threads && selectable(tk, i))
                tk->selected = i;
            else if (i < tk->proc.n_threads)
                refuse_step(tk, i);
            else
                snprintf(tk->message, sizeof tk->message, "there is no held thread T%c", key);
        }
        break;
    }
    return true;
}

static void free_takeover(struct takeover *tk)
{
    if (tk->have_report)
        foreign_report_free(&tk->report);
    free(tk->text);
    for (size_t i = 0; i < tk->n_log; i++)
        free(tk->log[i]);
    free(tk->log);
    foreign_free(&tk->proc);
}

enum takeover_end tui_takeover_run(pid_t pid, struct attach_code *code, int *sig, char *message, size_t len)
{
    struct takeover tk = {.pid = pid, .code = code};
    struct sigaction saved[3];
    catch_stops(saved);
    char err[600];
    if (!code->loaded || !foreign_attach(pid, &tk.proc, err, sizeof err)) {
        restore_stops(saved);
        snprintf(message, len, "cannot take over: %s", code->loaded ? err : "the program's code could not be read");
        return TAKEOVER_FAILED;
    }
    bool group_stopped = true;
    for (size_t i = 0; i < tk.proc.n_threads; i++)
        group_stopped &= tk.proc.threads[i].proc_state == 'T' || !tk.proc.threads[i].seized;
    if (group_stopped) {
        foreign_detach(&tk.proc, err, sizeof err);
        restore_stops(saved);
        free_takeover(&tk);
        snprintf(message, len, "cannot take over: the process is stopped (SIGSTOP); continue it first (kill -CONT %d)",
                 (int)pid);
        return TAKEOVER_FAILED;
    }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(tk.began, sizeof tk.began, "%H:%M:%S", &tm);
    size_t sites, entries;
    tk.visible_steps = foreign_visible_places(&code->code, &sites, &entries) > 0;
    reread(&tk, 0);
    select_next(&tk, 1);
    snprintf(tk.message, sizeof tk.message, "every thread of %d held: pick one (Tab, 1-9) and step it (s)", (int)pid);
    enum takeover_end end = TAKEOVER_QUIT;
    for (;;) {
        if (stop_signal) {
            end = TAKEOVER_SIGNALLED;
            break;
        }
        draw(&tk);
        int key = tui_term_key(KEY_POLL_MS);
        if (key != TUI_KEY_TIMEOUT && !on_key(&tk, key, &end))
            break;
    }
    char path[PATH_MAX];
    message[0] = '\0';
    if (tk.n_log > 0 && save_steps(&tk, path, sizeof path))
        snprintf(message, len, "let go of %d; the %zu steps taken are in %s", (int)pid, tk.n_steps, path);
    if (!foreign_detach(&tk.proc, err, sizeof err))
        snprintf(message, len, "%s", err);
    *sig = stop_signal;
    restore_stops(saved);
    free_takeover(&tk);
    return end;
}
