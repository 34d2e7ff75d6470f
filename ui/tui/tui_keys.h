/* tui_keys: the key map of `mdat attach`, declared once.
 *
 * One table says which keys do what, how the `?` help describes it and
 * what the one-line hint bar shows; dispatch, help screen and hint bar are
 * all read from it, so they cannot disagree. Key codes are curses codes
 * (KEY_LEFT, KEY_F(1), ...); nothing here draws. */
#ifndef MDAT_UI_TUI_KEYS_H
#define MDAT_UI_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum tui_action {
    TA_NONE,
    TA_STEP_THREAD,         /* digit keys: the digit names the thread (or waiter) */
    TA_STEP_SELECTED,
    TA_SELECT_PREV,
    TA_SELECT_NEXT,
    TA_BACK,
    TA_GOTO,
    TA_START,
    TA_END,
    TA_RUN_BLOCKS,
    TA_RUN_TO_LINE,
    TA_FLUSH,               /* --memory-model tso: the selected thread's oldest buffered store */
    TA_CONTINUE_PCT,
    TA_CONTINUE_RANDOM,
    TA_WATCH_ADD,
    TA_WATCH_REMOVE,
    TA_BREAKPOINT,
    TA_SAVE,
    TA_LOAD,
    TA_OUTPUT,
    TA_THEME,
    TA_LOG_UP,
    TA_LOG_DOWN,
    TA_PAUSE,
    TA_REDRAW,
    TA_HELP,
    TA_QUIT,
    TA_COUNT
};

/* Where a hint is shown: the hint bar differs while a wake-up waits for a
 * choice, after the end and in a lecture demo. */
enum tui_hint_context {
    HINT_STEPPING,
    HINT_WAITER,
    HINT_ENDED,
    HINT_DEMO,
    HINT_CONTEXTS
};

enum { TUI_KEYS_PER_ACTION = 10 };

struct tui_binding {
    enum tui_action action;
    int keys[TUI_KEYS_PER_ACTION];  /* curses key codes; 0 ends the list */
    const char *hint[HINT_CONTEXTS];    /* short, for the hint bar ("n step"); NULL: not there */
    const char *help;               /* one line for the help screen */
};

extern const struct tui_binding tui_bindings[];
extern const size_t tui_n_bindings;

/* The action of a key, TA_NONE if it has none. */
enum tui_action tui_action_of_key(int key);
/* The binding of an action, NULL if it has none. */
const struct tui_binding *tui_binding_of(enum tui_action action);

/* "Right", "F8", "Enter", "1-9" (the digits as one), "Ctrl-L", "q". */
void tui_key_name(int key, char *buf, size_t len);
/* Every key of a binding, "Right n Enter F8"; the digits read "1-9". */
void tui_binding_keys(const struct tui_binding *b, char *buf, size_t len);

/* The hints of a context joined with two blanks, as many as fit in width
 * (earlier hints first; "? help" always last). */
void tui_hint_bar(enum tui_hint_context context, int width, char *buf, size_t len);

#endif
