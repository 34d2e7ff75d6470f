/* tui_theme: the four themes. Every state also has a symbol and a word on
 * screen, so a theme only makes them quicker to see. */
#include "ui/tui/tui_theme.h"

#include <string.h>

/* Colour numbers as curses defines them. */
enum { BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE };
#define D TUI_DEFAULT_COLOR

const struct tui_theme tui_themes[] = {
    {"dark", true, {
        [TS_TEXT] = {WHITE, BLACK, 0},
        [TS_TITLE] = {BLACK, CYAN, TA_BOLD},
        [TS_HEADER] = {CYAN, BLACK, TA_BOLD},
        [TS_STATUS] = {BLACK, WHITE, TA_BOLD},
        [TS_HINT] = {BLACK, CYAN, 0},
        [TS_MESSAGE] = {YELLOW, BLACK, TA_BOLD},
        [TS_ERROR] = {RED, BLACK, TA_BOLD},
        [TS_RUNNABLE] = {GREEN, BLACK, TA_BOLD},
        [TS_BLOCKED] = {RED, BLACK, 0},
        [TS_EXITED] = {WHITE, BLACK, TA_DIM},
        [TS_CHANGED] = {YELLOW, BLACK, TA_BOLD},
        [TS_CURRENT] = {WHITE, BLUE, TA_BOLD},
        [TS_MARK] = {BLACK, YELLOW, TA_BOLD},
        [TS_BREAK] = {WHITE, RED, TA_BOLD},
    }},
    {"light", true, {
        [TS_TEXT] = {BLACK, WHITE, 0},
        [TS_TITLE] = {WHITE, BLUE, TA_BOLD},
        [TS_HEADER] = {BLUE, WHITE, TA_BOLD},
        [TS_STATUS] = {WHITE, BLACK, TA_BOLD},
        [TS_HINT] = {WHITE, BLUE, 0},
        [TS_MESSAGE] = {BLUE, WHITE, TA_BOLD},
        [TS_ERROR] = {RED, WHITE, TA_BOLD},
        [TS_RUNNABLE] = {GREEN, WHITE, TA_BOLD},
        [TS_BLOCKED] = {RED, WHITE, 0},
        [TS_EXITED] = {BLACK, WHITE, TA_DIM},
        [TS_CHANGED] = {MAGENTA, WHITE, TA_BOLD},
        [TS_CURRENT] = {BLACK, CYAN, 0},
        [TS_MARK] = {WHITE, MAGENTA, TA_BOLD},
        [TS_BREAK] = {WHITE, RED, TA_BOLD},
    }},
    {"mono", false, {
        [TS_TEXT] = {D, D, 0},
        [TS_TITLE] = {D, D, TA_REVERSE},
        [TS_HEADER] = {D, D, TA_BOLD | TA_UNDERLINE},
        [TS_STATUS] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_HINT] = {D, D, TA_REVERSE},
        [TS_MESSAGE] = {D, D, TA_BOLD},
        [TS_ERROR] = {D, D, TA_BOLD | TA_UNDERLINE},
        [TS_RUNNABLE] = {D, D, TA_BOLD},
        [TS_BLOCKED] = {D, D, 0},
        [TS_EXITED] = {D, D, TA_DIM},
        [TS_CHANGED] = {D, D, TA_BOLD | TA_UNDERLINE},
        [TS_CURRENT] = {D, D, TA_REVERSE},
        [TS_MARK] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_BREAK] = {D, D, TA_REVERSE | TA_BOLD},
    }},
    {"projector", true, {
        [TS_TEXT] = {D, D, TA_BOLD},
        [TS_TITLE] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_HEADER] = {D, D, TA_BOLD | TA_UNDERLINE},
        [TS_STATUS] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_HINT] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_MESSAGE] = {BLUE, D, TA_BOLD},
        [TS_ERROR] = {RED, D, TA_BOLD | TA_UNDERLINE},
        [TS_RUNNABLE] = {BLUE, D, TA_BOLD},
        [TS_BLOCKED] = {RED, D, TA_BOLD},
        [TS_EXITED] = {D, D, 0},
        [TS_CHANGED] = {MAGENTA, D, TA_BOLD | TA_UNDERLINE},
        [TS_CURRENT] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_MARK] = {D, D, TA_REVERSE | TA_BOLD},
        [TS_BREAK] = {RED, D, TA_REVERSE | TA_BOLD},
    }},
};
const int tui_n_themes = sizeof tui_themes / sizeof tui_themes[0];

const struct tui_theme *tui_theme_by_name(const char *name)
{
    for (int i = 0; i < tui_n_themes; i++)
        if (strcmp(tui_themes[i].name, name) == 0)
            return &tui_themes[i];
    return NULL;
}

const struct tui_theme *tui_theme_next(const struct tui_theme *t)
{
    int i = (int)(t - tui_themes);
    return &tui_themes[(i + 1) % tui_n_themes];
}

const struct tui_theme *tui_theme_initial(const char *wanted, const char *no_color, const char *term)
{
    const struct tui_theme *mono = tui_theme_by_name("mono");
    if (!term || !term[0] || strcmp(term, "dumb") == 0)
        return mono;
    /* An explicit --theme overrides NO_COLOR, as no-color.org asks. */
    const struct tui_theme *t = wanted ? tui_theme_by_name(wanted) : NULL;
    if (t)
        return t;
    return no_color && no_color[0] ? mono : &tui_themes[0];
}
