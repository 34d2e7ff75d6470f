/* tui_draw: paints a tui_screen with curses in a theme.
 *
 * Knows nothing of sessions: it draws the rows tui_screen prepared, the
 * wake-up chooser box, the help screen (from the key map), the progress of
 * a long re-execution, and "terminal too small". Leaves the terminal's
 * cursor where the screen says (the selected thread's row), for screen
 * readers. */
#ifndef MDAT_UI_TUI_DRAW_H
#define MDAT_UI_TUI_DRAW_H

#include <stdint.h>

#include "ui/tui/tui_screen.h"
#include "ui/tui/tui_theme.h"

/* Applies a theme (colour pairs when the terminal has colours). */
void tui_draw_theme(const struct tui_theme *t);
void tui_draw_screen(const struct tui_screen *s);
/* The help screen scrolled by `first` lines; returns how many lines it has. */
int tui_draw_help(const struct tui_glyphs *g, int first);
/* One line over the message row: "re-executing to step 90: 40/90 (Esc stops)". */
void tui_draw_progress(const struct tui_screen *s, const char *what, uint64_t done, uint64_t total);
/* Forgets what is on the terminal so the next draw repaints all. */
void tui_draw_invalidate(void);

#endif
