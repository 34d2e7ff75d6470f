/* tui_frontend: keys to commands, and the picture kept between them.
 *
 * The selection follows the schedule when one is being replayed (so that
 * Right walks through a saved failure), otherwise it stays on the thread
 * the person chose while that thread can run. Prompts (go to step, save,
 * breakpoint, watch) are edited on the message line. */
#include "ui/tui/tui_frontend.h"
#include "supervisor/explore/schedule_captions.h"
#include "ui/cli/cli.h"
#include "ui/tui/tui_draw.h"
#include "ui/tui/tui_keys.h"
#include "ui/tui/tui_screen.h"
#include "ui/tui/tui_source.h"
#include "ui/term/tui_term.h"

#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { KEY_BACKSPACE_ASCII = 127, KEY_CTRL_H = 8, KEY_CTRL_U = 21 };

struct tui_frontend {
    struct session_frontend iface;
    const struct session *session;
    const struct tui_theme *theme;
    struct tui_source_cache sources;
    struct tui_screen screen;
    struct tui_ui ui;
    char source_path[PATH_MAX];     /* the file shown last */
    bool demo, playing;
    int delay_ms;
    bool asked_before;
    uint64_t last_step;
    enum session_ask last_ask;
    char message[600];
    bool have_message, message_error;
    bool notice_dismissed;
    /* The captions of the schedule followed (schedule_captions.h), read
     * again when another file is loaded. */
    struct schedule_captions captions;
    char captions_file[PATH_MAX];
    char caption[SCHEDULE_CAPTION_TEXT + 32];
    /* The cause steps of the failure this path ended in, once its end was
     * shown: marked in the log when the person walks back along the same
     * path (same file, same length, its end known). */
    uint64_t cause_steps[EXEC_CAUSE_STEPS];
    int n_cause_steps;
    uint64_t cause_reach;
    char cause_file[PATH_MAX];
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void say(struct tui_frontend *f, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct tui_frontend *f, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    f->have_message = true;
    f->message_error = error;
}

/* ---------- selection and source ---------- */

static void default_selection(struct tui_frontend *f, const struct session_view *v)
{
    bool fresh = !f->asked_before || v->step != f->last_step || v->ask != f->last_ask;
    f->asked_before = true;
    f->last_step = v->step;
    f->last_ask = v->ask;
    if (!fresh)
        return;
    f->ui.log_back = 0;
    if (v->ask == ASK_ENDED) {
        if (!tui_view_thread(v, f->ui.selected) && v->state && v->state->n_threads)
            f->ui.selected = v->state->threads[0].id;
        return;
    }
    if (v->recorded_next)
        f->ui.selected = v->recorded_next < 0 ? -v->recorded_next : v->recorded_next;  /* -T: T's buffer */
    else if (!tui_view_candidate(v, f->ui.selected) && v->n_candidates)
        f->ui.selected = v->candidates[0];
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The file and line where the selected thread stands; an exited thread
 * leaves the last file shown. */
static void find_source(struct tui_frontend *f, const struct session_view *v)
{
    f->ui.source_line = 0;
    const struct state_thread *t = tui_view_thread(v, f->ui.selected);
    char path[PATH_MAX], file[64];
    unsigned line;
    if (t && t->status != THREAD_EXITED && session_source_of(f->session, t->next.pc, path, sizeof path, &line)) {
        snprintf(f->source_path, sizeof f->source_path, "%s", path);
        f->ui.source_line = line;
    } else if (t && tui_thread_line(t, file, sizeof file, &line)) {
        if (!f->source_path[0] || strcmp(base_name(f->source_path), file) != 0) {
            session_source_named(f->session, file, path, sizeof path);
            snprintf(f->source_path, sizeof f->source_path, "%s", path);
        }
        f->ui.source_line = line;
    }
    f->ui.source = f->source_path[0] ? tui_source_get(&f->sources, f->source_path) : NULL;
}

/* ---------- drawing ---------- */

/* "step 12: T3 takes the last item", the caption in force at this step. */
static const char *caption_of(struct tui_frontend *f, const struct session_view *v)
{
    const char *file = v->schedule_file ? v->schedule_file : "";
    if (strcmp(file, f->captions_file) != 0) {
        schedule_captions_free(&f->captions);
        schedule_captions_read(file[0] ? file : NULL, &f->captions);
        snprintf(f->captions_file, sizeof f->captions_file, "%s", file);
    }
    const struct schedule_caption *c = schedule_caption_at(&f->captions, v->step);
    if (!c)
        return NULL;
    snprintf(f->caption, sizeof f->caption, "step %" PRIu64 ": %s", c->step, c->text);
    return f->caption;
}

/* Remembers the cause steps the end of a failure showed; hands them to the
 * log while the view walks the same path again. */
static void follow_cause(struct tui_frontend *f, const struct session_view *v)
{
    const char *file = v->schedule_file ? v->schedule_file : "";
    bool same = v->end_known && v->reach == f->cause_reach && strcmp(file, f->cause_file) == 0;
    f->ui.cause_steps = same && v->ask != ASK_ENDED ? f->cause_steps : NULL;
    f->ui.n_cause_steps = f->ui.cause_steps ? f->n_cause_steps : 0;
}

static void keep_cause(struct tui_frontend *f, const struct session_view *v)
{
    if (v->ask != ASK_ENDED || !v->end_known)
        return;
    f->n_cause_steps = f->screen.n_cause;
    for (int i = 0; i < f->screen.n_cause; i++)
        f->cause_steps[i] = v->events[f->screen.cause[i]].step;
    f->cause_reach = v->reach;
    snprintf(f->cause_file, sizeof f->cause_file, "%s", v->schedule_file ? v->schedule_file : "");
}

static void draw(struct tui_frontend *f, const struct session_view *v)
{
    default_selection(f, v);
    find_source(f, v);
    follow_cause(f, v);
    f->ui.caption = caption_of(f, v);
    f->ui.message = f->have_message ? f->message : NULL;
    f->ui.message_error = f->message_error;
    f->ui.message_cursor = -1;
    f->ui.hint_context = v->ask == ASK_WAITER ? HINT_WAITER
                         : f->demo            ? HINT_DEMO
                         : v->ask == ASK_ENDED ? HINT_ENDED
                                               : HINT_STEPPING;
    f->ui.demo = f->demo ? (f->playing ? "playing (Space pauses)" : "paused (Space plays)") : NULL;
    struct session_view shown = *v;
    if (f->notice_dismissed)
        shown.notice = "";
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    tui_screen_build(&f->screen, cols, rows, &shown, &f->ui);
    keep_cause(f, v);
    tui_draw_screen(&f->screen);
}

/* ---------- prompts ---------- */

/* Edits a line on the message row; false when the person pressed Esc. */
static bool prompt(struct tui_frontend *f, const struct session_view *v, const char *question, const char *initial,
                   char *out, size_t len)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", initial ? initial : "");
    for (;;) {
        say(f, false, "%s%s", question, buf);
        draw(f, v);
        /* The cursor at the end of the answer. */
        f->ui.message_cursor = tui_width(question) + tui_width(buf);
        if (!f->screen.layout.too_small)
            move(f->screen.layout.message.y, f->ui.message_cursor < f->screen.cols ? f->ui.message_cursor : 0);
        refresh();
        int key = tui_term_key(-1);
        size_t l = strlen(buf);
        if (key == '\n' || key == '\r' || key == KEY_ENTER) {
            f->have_message = false;
            snprintf(out, len, "%s", buf);
            return true;
        }
        if (key == TUI_KEY_ESC) {
            f->have_message = false;
            return false;
        }
        if (key == KEY_BACKSPACE || key == KEY_BACKSPACE_ASCII || key == KEY_CTRL_H) {
            while (l > 0 && (buf[l - 1] & 0xc0) == 0x80)
                l--;        /* the continuation bytes of a UTF-8 character */
            if (l > 0)
                l--;
            buf[l] = '\0';
        } else if (key == KEY_CTRL_U) {
            buf[0] = '\0';
        } else if (key >= ' ' && key < 256 && key != KEY_BACKSPACE_ASCII && l + 1 < sizeof buf) {
            buf[l] = (char)key;
            buf[l + 1] = '\0';
        }
    }
}

/* Shows a question and returns the key that answered it. */
static int ask_key(struct tui_frontend *f, const struct session_view *v, const char *question)
{
    say(f, false, "%s", question);
    for (;;) {
        draw(f, v);
        int key = tui_term_key(-1);
        if (key != KEY_RESIZE) {
            f->have_message = false;
            return key;
        }
    }
}

/* A number typed at a prompt, blanks around it allowed. */
static bool parse_u64(const char *s, uint64_t *out)
{
    char buf[64];
    while (*s == ' ')
        s++;
    snprintf(buf, sizeof buf, "%s", s);
    size_t l = strlen(buf);
    while (l > 0 && buf[l - 1] == ' ')
        buf[--l] = '\0';
    return cli_parse_u64(buf, out);
}

/* "LINE" or "FILE:LINE" (FILE a base name; "" when not given). */
static bool parse_line(const char *s, char *file, size_t len, unsigned *line)
{
    const char *colon = strrchr(s, ':');
    uint64_t n;
    file[0] = '\0';
    if (colon) {
        snprintf(file, len, "%.*s", (int)(colon - s), s);
        snprintf(file, len, "%s", base_name(file));
        s = colon + 1;
    }
    if (!parse_u64(s, &n) || n == 0 || n > UINT32_MAX)
        return false;
    *line = (unsigned)n;
    return true;
}

/* ---------- keys ---------- */

static void show_help(struct tui_frontend *f)
{
    int first = 0;
    for (;;) {
        int n = tui_draw_help(f->ui.glyphs, first);
        int key = tui_term_key(-1);
        if (key == KEY_UP || key == 'k')
            first = first > 0 ? first - 1 : 0;
        else if (key == KEY_DOWN || key == 'j')
            first = first + 1 < n ? first + 1 : first;
        else if (key != KEY_RESIZE)
            break;
    }
    tui_draw_invalidate();
}

static void move_selection(struct tui_frontend *f, const struct session_view *v, int delta)
{
    int ids[256], n = 0;
    if (v->ask == ASK_WAITER)
        for (size_t i = 0; i < v->n_candidates && n < 256; i++)
            ids[n++] = v->candidates[i];
    else
        for (int i = 0; v->state && i < v->state->n_threads && n < 256; i++)
            ids[n++] = v->state->threads[i].id;
    if (n == 0)
        return;
    int at = 0;
    for (int i = 0; i < n; i++)
        if (ids[i] == f->ui.selected)
            at = i;
    at += delta;
    at = at < 0 ? 0 : at >= n ? n - 1 : at;
    f->ui.selected = ids[at];
}

static void default_save_name(const struct session_view *v, char *buf, size_t len)
{
    if (v->schedule_file[0]) {
        snprintf(buf, len, "%s", v->schedule_file);
        return;
    }
    const char *name = base_name(v->program);
    if (v->end_known && v->ask == ASK_ENDED && v->result && v->result->kind != FAIL_NONE)
        snprintf(buf, len, "%s-%s.sched", name, failure_kind_name(v->result->kind));
    else
        snprintf(buf, len, "%s-step%" PRIu64 ".sched", name, v->reach);
}

static bool go_to(struct tui_frontend *f, const struct session_view *v, uint64_t step, struct session_command *cmd)
{
    cmd->verb = SV_GOTO;
    cmd->step = step;
    return true;
}

/* Handles one key; true when it made a command for the session. */
static bool on_key(struct tui_frontend *f, const struct session_view *v, int key, struct session_command *cmd)
{
    char answer[PATH_MAX], question[256], initial[PATH_MAX];
    enum tui_action action = tui_action_of_key(key);
    const struct state_thread *sel = tui_view_thread(v, f->ui.selected);
    switch (action) {
    case TA_STEP_THREAD:
        cmd->verb = SV_STEP;
        cmd->thread = key - '0';
        if (tui_view_thread(v, cmd->thread))
            f->ui.selected = cmd->thread;   /* the source pane follows the thread just stepped */
        return true;
    case TA_STEP_SELECTED:
        if (f->demo && v->step < v->reach && v->ask != ASK_ENDED)
            return go_to(f, v, v->step + 1, cmd);
        cmd->verb = SV_STEP;
        cmd->thread = f->ui.selected;
        /* Along a recording that flushes the selected thread's store next,
         * stepping it is that flush. */
        if (v->recorded_next < 0 && -v->recorded_next == f->ui.selected)
            cmd->thread = v->recorded_next;
        return true;
    case TA_FLUSH:
        if (!v->tso) {
            say(f, true, "stores are not buffered under --memory-model sc: there is nothing to flush");
            return false;
        }
        cmd->verb = SV_STEP;
        cmd->thread = -f->ui.selected;
        return true;
    case TA_SELECT_PREV:
    case TA_SELECT_NEXT:
        move_selection(f, v, action == TA_SELECT_PREV ? -1 : 1);
        return false;
    case TA_BACK:
        if (v->ask == ASK_WAITER)
            return go_to(f, v, v->step, cmd);
        if (v->step == 0) {
            say(f, true, "already at step 0");
            return false;
        }
        return go_to(f, v, v->step - 1, cmd);
    case TA_GOTO:
        snprintf(question, sizeof question, "go to step (0-%" PRIu64 "): ", v->reach);
        if (prompt(f, v, question, "", answer, sizeof answer)) {
            uint64_t n;
            if (parse_u64(answer, &n))
                return go_to(f, v, n, cmd);
            say(f, true, "\"%s\" is not a step number", answer);
        }
        return false;
    case TA_START:
        return go_to(f, v, 0, cmd);
    case TA_END:
        if (v->reach > v->step)
            return go_to(f, v, v->reach, cmd);
        say(f, true, "nothing recorded after this step (c runs on to the end with PCT)");
        return false;
    case TA_RUN_BLOCKS:
        cmd->verb = SV_RUN;
        cmd->thread = f->ui.selected;
        return true;
    case TA_RUN_TO_LINE:
        snprintf(question, sizeof question, "run T%d until it reaches line (LINE or FILE:LINE): ", f->ui.selected);
        if (prompt(f, v, question, "", answer, sizeof answer)) {
            if (parse_line(answer, cmd->text, sizeof cmd->text, &cmd->line)) {
                cmd->verb = SV_RUN;
                cmd->thread = f->ui.selected;
                return true;
            }
            say(f, true, "\"%s\" is not LINE or FILE:LINE", answer);
        }
        return false;
    case TA_CONTINUE_PCT:
    case TA_CONTINUE_RANDOM:
        cmd->verb = SV_CONTINUE;
        snprintf(cmd->text, sizeof cmd->text, "%s", action == TA_CONTINUE_PCT ? "pct" : "random");
        return true;
    case TA_WATCH_ADD:
        if (prompt(f, v, "watch (a variable or expression): ", "", answer, sizeof answer) && answer[0]) {
            cmd->verb = SV_WATCH_ADD;
            snprintf(cmd->text, sizeof cmd->text, "%s", answer);
            return true;
        }
        return false;
    case TA_WATCH_REMOVE: {
        if (v->n_watches == 0) {
            say(f, true, "no watches (w adds one)");
            return false;
        }
        snprintf(question, sizeof question, "remove watch number (1-%d): ", v->n_watches);
        snprintf(initial, sizeof initial, "%d", v->n_watches);
        uint64_t n;
        if (prompt(f, v, question, initial, answer, sizeof answer)) {
            if (parse_u64(answer, &n) && n >= 1 && n <= (uint64_t)v->n_watches) {
                cmd->verb = SV_WATCH_REMOVE;
                cmd->index = (int)n - 1;
                return true;
            }
            say(f, true, "no watch number %s", answer);
        }
        return false;
    }
    case TA_BREAKPOINT:
        initial[0] = '\0';
        if (sel && sel->next.line)
            snprintf(initial, sizeof initial, "%s:%u", sel->next.file, sel->next.line);
        if (prompt(f, v, "breakpoint on/off at (LINE or FILE:LINE): ", initial, answer, sizeof answer)) {
            if (parse_line(answer, cmd->text, sizeof cmd->text, &cmd->line)) {
                cmd->verb = SV_BREAK_TOGGLE;
                cmd->thread = f->ui.selected;
                if (!cmd->text[0] && f->ui.source)
                    snprintf(cmd->text, sizeof cmd->text, "%s", f->ui.source->name);
                return true;
            }
            say(f, true, "\"%s\" is not LINE or FILE:LINE", answer);
        }
        return false;
    case TA_SAVE: {
        default_save_name(v, initial, sizeof initial);
        if (!prompt(f, v, "save schedule to: ", initial, answer, sizeof answer) || !answer[0])
            return false;
        struct stat st;
        if (stat(answer, &st) == 0 && strcmp(answer, v->schedule_file) != 0) {
            snprintf(question, sizeof question, "%s exists: replace it? (y/n) ", answer);
            if (ask_key(f, v, question) != 'y')
                return false;
        }
        cmd->verb = SV_SAVE;
        snprintf(cmd->text, sizeof cmd->text, "%s", answer);
        return true;
    }
    case TA_LOAD:
        if (prompt(f, v, "load schedule: ", v->schedule_file, answer, sizeof answer) && answer[0]) {
            cmd->verb = SV_LOAD;
            snprintf(cmd->text, sizeof cmd->text, "%s", answer);
            return true;
        }
        return false;
    case TA_OUTPUT:
        /* From what is on the screen: a wide layout shows it by itself. */
        f->ui.show_output = f->screen.layout.output.h == 0;
        f->ui.output_auto = false;
        return false;
    case TA_THEME:
        f->theme = tui_theme_next(f->theme);
        tui_draw_theme(f->theme);
        say(f, false, "theme: %s (t for the next)", f->theme->name);
        return false;
    case TA_LOG_UP:
    case TA_LOG_DOWN: {
        int page = tui_rect_content(&f->screen.layout.log) - 1;
        if (page < 1)
            page = 1;
        f->ui.log_back += action == TA_LOG_UP ? page : -page;
        if (f->ui.log_back > (int)v->n_events)
            f->ui.log_back = (int)v->n_events;
        if (f->ui.log_back < 0)
            f->ui.log_back = 0;
        return false;
    }
    case TA_PAUSE:
        if (!f->demo) {
            say(f, false, "Space pauses and resumes a --demo; here: n or a digit steps");
            return false;
        }
        f->playing = !f->playing;
        return false;
    case TA_REDRAW:
        tui_draw_invalidate();
        return false;
    case TA_HELP:
        show_help(f);
        return false;
    case TA_QUIT:
        if (v->unsaved && !f->demo) {
            int k = ask_key(f, v, "the schedule is not saved: quit anyway? (y quits, s saves first, any other key stays) ");
            if (k == 's')
                return on_key(f, v, 's', cmd);
            if (k != 'y')
                return false;
        }
        cmd->verb = SV_QUIT;
        return true;
    case TA_NONE:
    case TA_COUNT:
        break;
    }
    if (key == TUI_KEY_ESC) {
        f->have_message = false;
        return false;
    }
    char name[32];
    tui_key_name(key, name, sizeof name);
    say(f, true, "the key %s does nothing here (? lists the keys)", name);
    return false;
}

static void decide(void *ctx, const struct session_view *v, struct session_command *cmd)
{
    struct tui_frontend *f = ctx;
    f->notice_dismissed = false;
    uint64_t deadline = now_ms() + (uint64_t)f->delay_ms;
    if (f->demo && v->ask == ASK_ENDED && f->playing) {
        f->playing = false;
        say(f, v->result && v->result->kind != FAIL_NONE, "demo finished: %s",
            v->result && v->result->message[0] ? v->result->message : v->mode);
    }
    for (;;) {
        draw(f, v);
        int timeout = -1;
        bool timed = f->demo && f->playing && v->ask != ASK_ENDED;
        if (timed) {
            uint64_t now = now_ms();
            timeout = now >= deadline ? 0 : (int)(deadline - now);
        }
        int key = tui_term_key(timeout);
        if (key == TUI_KEY_TIMEOUT) {
            if (!timed)
                continue;
            if (v->step < v->reach) {
                go_to(f, v, v->step + 1, cmd);
                return;
            }
            f->playing = false;
            say(f, false, "demo: the recording ends here");
            continue;
        }
        if (key == KEY_RESIZE)
            continue;
        f->have_message = false;
        f->notice_dismissed = true;
        bool was_playing = f->playing;
        if (on_key(f, v, key, cmd))
            return;
        if (f->playing && !was_playing)
            deadline = now_ms() + (uint64_t)f->delay_ms;
    }
}

static bool progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    struct tui_frontend *f = ctx;
    tui_draw_progress(&f->screen, what, done, total);
    bool cancel = false;
    int key;
    while ((key = tui_term_key(0)) != TUI_KEY_TIMEOUT)
        if (key == TUI_KEY_ESC)
            cancel = true;
    return cancel;
}

struct tui_frontend *tui_frontend_new(const struct session *session, const struct tui_frontend_options *opt)
{
    struct tui_frontend *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->session = session;
    f->theme = opt->theme;
    f->demo = opt->demo;
    f->playing = opt->demo;
    f->delay_ms = (int)(opt->delay_sec * 1000);
    f->ui.glyphs = tui_term_utf8() ? &tui_glyphs_utf8 : &tui_glyphs_ascii;
    f->ui.output_auto = true;
    f->iface = (struct session_frontend){decide, progress, f};
    tui_screen_init(&f->screen);
    tui_draw_theme(f->theme);
    return f;
}

const struct session_frontend *tui_frontend_iface(struct tui_frontend *f)
{
    return &f->iface;
}

void tui_frontend_free(struct tui_frontend *f)
{
    if (!f)
        return;
    tui_screen_free(&f->screen);
    tui_source_cache_free(&f->sources);
    schedule_captions_free(&f->captions);
    free(f);
}
