/* tui_theme: how each kind of text of `mdat attach` looks, per theme.
 *
 * dark and light (colour on a dark or light background), mono (attributes
 * only: what NO_COLOR and TERM=dumb get) and projector (bold, high
 * contrast, the terminal's own background). Plain data: the drawing module
 * turns it into curses colour pairs. */
#ifndef MDAT_UI_TUI_THEME_H
#define MDAT_UI_TUI_THEME_H

#include <stdbool.h>

#include "ui/tui/tui_screen.h"

enum { TUI_DEFAULT_COLOR = -1 };    /* the terminal's own foreground or background */

enum tui_attr {
    TA_BOLD = 1 << 0,
    TA_REVERSE = 1 << 1,
    TA_UNDERLINE = 1 << 2,
    TA_DIM = 1 << 3,
};

struct tui_look {
    short fg, bg;           /* curses colour numbers 0-7, or TUI_DEFAULT_COLOR */
    unsigned attrs;         /* enum tui_attr bits */
};

struct tui_theme {
    const char *name;
    bool color;             /* uses colours (else fg/bg are ignored) */
    struct tui_look look[TS_COUNT];
};

extern const struct tui_theme tui_themes[];
extern const int tui_n_themes;

/* The theme of that name, NULL if none. */
const struct tui_theme *tui_theme_by_name(const char *name);
/* The one after t, in the order of tui_themes (wrapping). */
const struct tui_theme *tui_theme_next(const struct tui_theme *t);
/* The theme to start with: mono when TERM is dumb or unset; else `wanted`
 * (--theme, which overrides NO_COLOR); else mono when NO_COLOR is set and
 * not empty; else dark. */
const struct tui_theme *tui_theme_initial(const char *wanted, const char *no_color, const char *term);

#endif
