/* tui_live: `mdat attach -p PID` without --print: the live view of a
 * running process mdat did not start.
 *
 * Owns the refreshing screen: every refresh takes one look at the process
 * (ui/cli/attach_look.h: attach, read, let go, in milliseconds) and shows
 * the report --print would print (threads, user lines, waits, sync
 * objects, the wait cycle, the verdict in one line, a livelock when the
 * running threads' watch finds one: at most LIVE_WATCH_MS a look, so that
 * the view never freezes for long). The process is never
 * held between looks, so quitting, or mdat being killed, leaves it as it
 * was. Key t takes over the schedule (tui_takeover.c: every thread held,
 * stepped one at a time); the step key says so. Reading the process is
 * supervisor/inspect/'s; the report's text is ui/cli/attach_print.c's. */
#include <stdio.h>

#include "ui/cli/attach_look.h"
#include "ui/cli/attach_print.h"
#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/live/tui_live.h"
#include "ui/live/tui_takeover.h"
#include "ui/term/tui_term.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A look watches running threads for a livelock at most LIVE_WATCH_MS
 * (when --livelock allows it), so that the view answers keys. */
enum { LIVE_REFRESH_MS = 2000, LIVE_MAX_TEXT = 1 << 20, LIVE_WATCH_MS = 1000 };

static const char STEP_TAKE_OVER[] =
    "the view only reads the process, which runs as it was: take over (t) to hold its threads and step them";
static const char NO_REPLAY[] =
    "no replay or step back from an attach point: what the process did before mdat attached is unknown";

struct live_view {
    pid_t pid;
    int watch_ms;           /* each look's livelock watch, 0 none */
    struct attach_code code;
    char *text;             /* the last report as --print prints it, "" before one */
    char verdict[1600];     /* its one-line verdict */
    bool stuck;
    char error[700];        /* why the last look failed, "" when it did not */
    bool gone;              /* the process ended: nothing more to look at */
    char message[200];      /* the answer to the last key */
    time_t looked_at;
    int first_line;         /* scrolled by */
    int stop_signal;        /* a terminating signal came during a take-over */
};

/* One look: the report as text, or why there is none. */
static void live_look(struct live_view *v)
{
    struct foreign_report report;
    bool detach_failed;
    char err[600];
    bool built = attach_look(v->pid, &v->code, v->watch_ms, &report, &detach_failed, err, sizeof err);
    if (built)
        v->looked_at = time(NULL);
    if (!built || detach_failed)
        snprintf(v->error, sizeof v->error, "%s", err);
    else
        v->error[0] = '\0';
    if (!built) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int)v->pid);
        v->gone = access(path, F_OK) != 0;
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        attach_print_text(f, &report);
        fclose(f);
    }
    if (buf && len < LIVE_MAX_TEXT) {
        free(v->text);
        v->text = buf;
    } else {
        free(buf);
    }
    snprintf(v->verdict, sizeof v->verdict, "%s", report.verdict_text);
    v->stuck = foreign_report_stuck(&report);
    foreign_report_free(&report);
}

static void live_draw(const struct live_view *v)
{
    int rows = getmaxy(stdscr);
    erase();
    char line[512];
    struct tm tm;
    localtime_r(&v->looked_at, &tm);
    int n = snprintf(line, sizeof line, "mdat attach -p %d  live view, read at %02d:%02d:%02d (every %d s)",
                     (int)v->pid, tm.tm_hour, tm.tm_min, tm.tm_sec, LIVE_REFRESH_MS / 1000);
    tui_term_line(0, line, (size_t)n, A_REVERSE);
    int row = 1;
    if (v->gone) {
        n = snprintf(line, sizeof line, "process %d has ended", (int)v->pid);
        tui_term_line(row++, line, (size_t)n, A_BOLD);
    } else if (v->error[0]) {
        /* What is shown below is the last read that worked (its time above). */
        snprintf(line, sizeof line, "cannot read it now: %.400s", v->error);
        tui_term_line(row++, line, strlen(line), A_BOLD);
    }
    /* The report, the verdict line in bold; scrolled by first_line. */
    const char *p = v->text ? v->text : "";
    for (int skip = v->first_line; skip > 0 && *p; skip--) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    while (*p && row < rows - 2) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool verdict = v->verdict[0] && len == strlen(v->verdict) && strncmp(p, v->verdict, len) == 0;
        tui_term_line(row++, p, len, verdict ? A_BOLD : A_NORMAL);
        p = nl ? nl + 1 : p + len;
    }
    tui_term_line(rows - 2, v->message, strlen(v->message), A_BOLD);
    static const char keys[] = "q quit (detach)  r read again  Up/Down scroll  t take over (hold, step)  b replay";
    tui_term_line(rows - 1, keys, strlen(keys), A_REVERSE);
    refresh();
}

/* Holds the process until the user lets go; false to quit mdat. */
static bool take_over(struct live_view *v)
{
    int sig = 0;
    enum takeover_end end = tui_takeover_run(v->pid, &v->code, &sig, v->message, sizeof v->message);
    if (end == TAKEOVER_SIGNALLED) {
        v->stop_signal = sig;
        return false;
    }
    /* A last look, let go: what the steps left (a deadlock they made)
     * decides mdat's exit status, as a look does. */
    live_look(v);
    return end != TAKEOVER_QUIT;
}

/* Answers one key; false to quit. */
static bool live_key(struct live_view *v, int key)
{
    v->message[0] = '\0';
    switch (key) {
    case 'q':
    case 'Q':
        return false;
    case 't':
    case 'T':
        if (v->gone)
            snprintf(v->message, sizeof v->message, "process %d has ended: nothing to take over", (int)v->pid);
        else
            return take_over(v);
        break;
    case 'r':
        live_look(v);
        break;
    case KEY_UP:
    case 'k':
        if (v->first_line > 0)
            v->first_line--;
        break;
    case KEY_DOWN:
    case 'j':
        v->first_line++;
        break;
    case 's':
    case 'n':
    case ' ':
    case '\n':
    case KEY_ENTER:
        snprintf(v->message, sizeof v->message, "%s", STEP_TAKE_OVER);
        break;
    case 'b':
    case 'B':
    case 'R':
    case KEY_LEFT:
        snprintf(v->message, sizeof v->message, "%s", NO_REPLAY);
        break;
    default:
        break;
    }
    return true;
}

int tui_live_run(const char *pid_text, int watch_ms)
{
    struct live_view v = {.watch_ms = watch_ms < LIVE_WATCH_MS ? watch_ms : LIVE_WATCH_MS};
    if (!attach_parse_pid(pid_text, &v.pid))
        return cli_usage_error("attach", "-p wants a process id (a positive number), not \"%s\"", pid_text);
    /* The first look before the screen: a process that cannot be read is
     * said in one line on stderr, as --print says it. */
    live_look(&v);
    if (!v.text) {
        fprintf(stderr, "mdat attach: %s\n", v.error);
        attach_code_free(&v.code);
        return EXIT_CANNOT_RUN;
    }
    char err[600];
    if (!tui_term_open(err, sizeof err)) {
        fprintf(stderr, "mdat attach: %s\n", err);
        free(v.text);
        attach_code_free(&v.code);
        return EXIT_CANNOT_RUN;
    }
    struct timespec last;
    clock_gettime(CLOCK_MONOTONIC, &last);
    for (;;) {
        live_draw(&v);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long waited = (now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000;
        int key = tui_term_key(waited >= LIVE_REFRESH_MS ? 0 : (int)(LIVE_REFRESH_MS - waited));
        if (key == TUI_KEY_TIMEOUT) {
            if (!v.gone)
                live_look(&v);
            clock_gettime(CLOCK_MONOTONIC, &last);
            continue;
        }
        if (!live_key(&v, key))
            break;
    }
    tui_term_close();
    if (v.message[0] && !v.stop_signal)
        printf("mdat attach: %s\n", v.message);  /* where a take-over's steps were saved */
    bool stuck = v.stuck && !v.gone;
    free(v.text);
    attach_code_free(&v.code);
    if (v.stop_signal) {
        fflush(NULL);
        return 128 + v.stop_signal;     /* let go first, then ended as the signal asked */
    }
    return stuck ? EXIT_FAILURE_FOUND : EXIT_NO_FAILURE;
}
