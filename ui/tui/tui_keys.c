/* tui_keys: the key map table and what is derived from it. Keys follow
 * what a first-time student would guess (digits step that thread, arrows
 * move in time and among threads, letters are initials); function keys are
 * only aliases. */
#include "ui/tui/tui_keys.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

enum { KEY_CTRL_L = 12 };

/* Order: the help screen's, and the hint bar's (which drops from the end). */
const struct tui_binding tui_bindings[] = {
    {TA_STEP_THREAD, {'1', '2', '3', '4', '5', '6', '7', '8', '9'},
     {"1-9 step", "1-9 wake", NULL, NULL},
     "run one step of thread N (its next visible operation); at a wake-up: wake waiter N"},
    {TA_STEP_SELECTED, {KEY_RIGHT, 'n', '\n', '\r', KEY_ENTER, KEY_F(8)},
     {"n step sel", "Enter wake sel", NULL, "n step"},
     "run one step of the selected thread (at a wake-up: wake the selected waiter)"},
    {TA_SELECT_PREV, {KEY_UP, 'k'}, {NULL, NULL, NULL, NULL}, "select the thread (or waiter) above"},
    {TA_SELECT_NEXT, {KEY_DOWN, 'j'}, {NULL, NULL, NULL, NULL}, "select the thread (or waiter) below"},
    {TA_BACK, {KEY_LEFT, 'b', KEY_F(7)}, {"b back", "b back", "b back", "b back"},
     "go back one step (re-executes the schedule up to the step before)"},
    {TA_GOTO, {'g'}, {"g go to", NULL, "g go to", NULL}, "go to step N (asks for N); forward only along a recorded schedule"},
    {TA_START, {KEY_HOME, '<'}, {NULL, NULL, "Home start", "Home start"}, "go to the start (step 0)"},
    {TA_END, {KEY_END, '>'}, {NULL, NULL, NULL, "End end"}, "go to the last recorded step (the end of a loaded schedule)"},
    {TA_RUN_BLOCKS, {'r'}, {"r run", NULL, NULL, NULL},
     "run the selected thread until it blocks, exits or reaches a breakpoint (Esc stops)"},
    {TA_RUN_TO_LINE, {'u'}, {NULL, NULL, NULL, NULL},
     "run the selected thread until it reaches a source line (asks for the line)"},
    {TA_FLUSH, {'f'}, {NULL, NULL, NULL, NULL},
     "flush the selected thread's oldest buffered store: the other threads see it (--memory-model tso)"},
    {TA_CONTINUE_PCT, {'c', KEY_F(5)}, {"c continue", NULL, NULL, NULL},
     "continue to the end, PCT choosing the threads (stops at breakpoints; Esc stops)"},
    {TA_CONTINUE_RANDOM, {'C'}, {NULL, NULL, NULL, NULL}, "continue to the end, choosing threads at random"},
    {TA_BREAKPOINT, {'B', KEY_F(9)}, {NULL, NULL, NULL, NULL},
     "set or clear a breakpoint on a line (asks FILE:LINE; default: the selected thread's line)"},
    {TA_WATCH_ADD, {'w'}, {NULL, NULL, NULL, NULL}, "watch a variable or expression (asks for it)"},
    {TA_WATCH_REMOVE, {'W'}, {NULL, NULL, NULL, NULL}, "remove a watch (asks for its number)"},
    {TA_SAVE, {'s', KEY_F(2)}, {"s save", NULL, "s save", NULL},
     "save the schedule to a file (mdat replay and mdat attach --replay open it)"},
    {TA_LOAD, {'l', KEY_F(3)}, {NULL, NULL, "l load", NULL}, "load a schedule file of this program and follow it from the start"},
    {TA_OUTPUT, {'o'}, {NULL, NULL, NULL, NULL}, "show or hide the program's output"},
    {TA_THEME, {'t'}, {NULL, NULL, NULL, NULL}, "next colour theme: dark, light, mono, projector"},
    {TA_LOG_UP, {KEY_PPAGE, '['}, {NULL, NULL, NULL, NULL}, "scroll the event log back"},
    {TA_LOG_DOWN, {KEY_NPAGE, ']'}, {NULL, NULL, NULL, NULL}, "scroll the event log forward"},
    {TA_PAUSE, {' '}, {NULL, NULL, NULL, "Space pause/play"}, "demo: pause or resume playing"},
    {TA_REDRAW, {KEY_CTRL_L}, {NULL, NULL, NULL, NULL}, "redraw the screen"},
    {TA_QUIT, {'q', KEY_F(10)}, {"q quit", "q quit", "q quit", "q quit"},
     "quit (asks first when the schedule is not saved)"},
    {TA_HELP, {'?', 'h', KEY_F(1)}, {"? help", "? help", "? help", "? help"}, "show this help: every key and what it does"},
};
const size_t tui_n_bindings = sizeof tui_bindings / sizeof tui_bindings[0];

enum tui_action tui_action_of_key(int key)
{
    for (size_t i = 0; i < tui_n_bindings; i++)
        for (int k = 0; k < TUI_KEYS_PER_ACTION && tui_bindings[i].keys[k]; k++)
            if (tui_bindings[i].keys[k] == key)
                return tui_bindings[i].action;
    return TA_NONE;
}

const struct tui_binding *tui_binding_of(enum tui_action action)
{
    for (size_t i = 0; i < tui_n_bindings; i++)
        if (tui_bindings[i].action == action)
            return &tui_bindings[i];
    return NULL;
}

void tui_key_name(int key, char *buf, size_t len)
{
    static const struct {
        int key;
        const char *name;
    } names[] = {
        {KEY_RIGHT, "Right"}, {KEY_LEFT, "Left"}, {KEY_UP, "Up"},   {KEY_DOWN, "Down"},
        {KEY_HOME, "Home"},   {KEY_END, "End"},   {KEY_PPAGE, "PgUp"}, {KEY_NPAGE, "PgDn"},
        {'\n', "Enter"},      {' ', "Space"},     {KEY_CTRL_L, "Ctrl-L"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].key == key) {
            snprintf(buf, len, "%s", names[i].name);
            return;
        }
    }
    if (key >= KEY_F(1) && key <= KEY_F(12))
        snprintf(buf, len, "F%d", key - KEY_F0);
    else if (key > ' ' && key < 127)
        snprintf(buf, len, "%c", key);
    else
        snprintf(buf, len, "#%d", key);
}

/* '\r' and KEY_ENTER are the same key to a person as '\n'. */
static bool same_as_shown(int key)
{
    return key == '\r' || key == KEY_ENTER;
}

void tui_binding_keys(const struct tui_binding *b, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    for (int k = 0; k < TUI_KEYS_PER_ACTION && b->keys[k] && used < len; k++) {
        int key = b->keys[k];
        char name[16];
        if (same_as_shown(key))
            continue;
        if (key >= '1' && key <= '9') {
            if (key != '1')
                continue;
            snprintf(name, sizeof name, "1-9");
        } else {
            tui_key_name(key, name, sizeof name);
        }
        int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Appends " " twice then hint when it fits in width (counted in bytes: hints are ASCII). */
static bool append_hint(char *buf, size_t len, int width, const char *hint)
{
    size_t used = strlen(buf);
    size_t need = (used ? 2 : 0) + strlen(hint);
    if ((int)(used + need) > width || used + need + 1 > len)
        return false;
    snprintf(buf + used, len - used, "%s%s", used ? "  " : "", hint);
    return true;
}

void tui_hint_bar(enum tui_hint_context context, int width, char *buf, size_t len)
{
    const struct tui_binding *quit = tui_binding_of(TA_QUIT), *help = tui_binding_of(TA_HELP);
    /* Room kept for the two that must always be there. */
    int kept = (int)(strlen(quit->hint[context]) + strlen(help->hint[context]) + 4);
    buf[0] = '\0';
    for (size_t i = 0; i < tui_n_bindings; i++) {
        const struct tui_binding *b = &tui_bindings[i];
        if (b == quit || b == help || !b->hint[context])
            continue;
        append_hint(buf, len, width - kept, b->hint[context]);
    }
    append_hint(buf, len, width, quit->hint[context]);
    append_hint(buf, len, width, help->hint[context]);
}
