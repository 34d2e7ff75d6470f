/* tui_takeover: stepping the threads of a held process, one at a time
 * (see tui_takeover.h). Owns the hold's lifetime on screen: the report
 * read again after each step, the log of steps, the text trace they are
 * saved as, and letting go on every way out but SIGKILL (after which the
 * kernel lets the threads go). Running a step is foreign_step.c's; the
 * report's text is attach_print.c's. */
#include <stdio.h>

#include "supervisor/inspect/foreign_step.h"
#include "ui/cli/attach_print.h"
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

static void reread(struct takeover *tk)
{
    char err[600];
    if (tk->have_report)
        foreign_report_free(&tk->report);
    tk->have_report = foreign_code_refresh(&tk->code->code, tk->proc.proc_tid, tk->proc.mem_fd, tk->proc.exe, err,
                                           sizeof err) &&
                      foreign_report_build(&tk->proc, &tk->code->code, &tk->report, err, sizeof err);
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
    }
}

/* s: to the next system call; u: back to the user's code. */
static void step_selected(struct takeover *tk, bool to_user_code)
{
    size_t i = tk->selected;
    int number = thread_number(tk, i);
    const struct foreign_thread_view *before = view_of(tk, tk->proc.threads[i].tid);
    if (!steppable(tk, i)) {
        snprintf(tk->message, sizeof tk->message, "T%d cannot step: it has ended", number);
        return;
    }
    if (before && before->stuck) {
        char wait[300];
        foreign_wait_text(&tk->report, before, wait, sizeof wait);
        snprintf(tk->message, sizeof tk->message,
                 "T%d cannot step: it waits on %s, and runs only when another thread lets it", number, wait);
        return;
    }
    struct foreign_step s;
    char err[300];
    bool ran = to_user_code ? foreign_step_to_user(&tk->proc, i, &tk->code->code, USER_STEP_WAIT_MS, &s, err, sizeof err)
                            : foreign_step_thread(&tk->proc, i, STEP_WAIT_MS, &s, err, sizeof err);
    if (!ran) {
        snprintf(tk->message, sizeof tk->message, "T%d: %s", number, err);
        return;
    }
    char what[400];
    step_text(tk, &s, what, sizeof what);
    if (s.end == FSTEP_REFUSED) {
        snprintf(tk->message, sizeof tk->message, "T%d cannot step: %s", number, what);
        return;
    }
    reread(tk);
    const struct foreign_thread_view *after = view_of(tk, tk->proc.threads[i].tid);
    char line[700], wait[300] = "";
    if (after && s.end != FSTEP_ENDED)
        foreign_wait_text(&tk->report, after, wait, sizeof wait);
    snprintf(line, sizeof line, "step %zu  T%d  %s%s%s%s%s", tk->n_log + 1, number, what,
             after && s.end != FSTEP_ENDED && after->location[0] ? "  at " : "",
             after && s.end != FSTEP_ENDED ? after->location : "", wait[0] ? "  waits on " : "", wait);
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
    fprintf(f, "# a step (s) runs one thread to its next system call (or to the return of the call it entered);\n");
    fprintf(f, "# a step u runs it one instruction at a time until it is back in the user's code;\n");
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
    n = snprintf(line, sizeof line,
                 "s runs the selected thread to its next system call (or the return of the one it entered); "
                 "u, one instruction at a time back to the user's code");
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
        n = snprintf(line, sizeof line, "steps taken: %zu", tk->n_log);
        tui_term_line(log_top, line, (size_t)n, A_BOLD);
        for (size_t i = tk->n_log - shown; i < tk->n_log; i++)
            tui_term_line(++log_top, tk->log[i], strlen(tk->log[i]), A_NORMAL);
    }
    tui_term_line(rows - 2, tk->message, strlen(tk->message), A_BOLD);
    static const char keys[] =
        "s step  u to user code  Tab/1-9 thread  w save steps  g let go (live view)  q quit (let go)  b replay";
    tui_term_line(rows - 1, keys, strlen(keys), A_REVERSE);
    refresh();
}

static void select_next(struct takeover *tk, int direction)
{
    size_t n = tk->proc.n_threads;
    for (size_t k = 1; k <= n; k++) {
        size_t i = (tk->selected + (direction > 0 ? k : n * k - k)) % n;
        if (steppable(tk, i)) {
            tk->selected = i;
            return;
        }
    }
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
        step_selected(tk, false);
        break;
    case 'u':
        step_selected(tk, true);
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
            snprintf(tk->message, sizeof tk->message, "%zu steps saved in %s", tk->n_log, path);
        else
            snprintf(tk->message, sizeof tk->message, "cannot write %s: %s", path, strerror(errno));
        break;
    case 'r':
        reread(tk);
        break;
    case 'b':
    case 'B':
    case 'R':
        snprintf(tk->message, sizeof tk->message, "%s", NO_REPLAY);
        break;
    default:
        if (key >= '1' && key <= '9') {
            size_t i = (size_t)(key - '1');
            if (i < tk->proc.n_threads && steppable(tk, i))
                tk->selected = i;
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
    select_next(&tk, 1);
    reread(&tk);
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
        snprintf(message, len, "let go of %d; the %zu steps taken are in %s", (int)pid, tk.n_log, path);
    if (!foreign_detach(&tk.proc, err, sizeof err))
        snprintf(message, len, "%s", err);
    *sig = stop_signal;
    restore_stops(saved);
    free_takeover(&tk);
    return end;
}
