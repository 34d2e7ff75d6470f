/* tui_frontend: the person at the terminal, as a session frontend.
 *
 * Implements struct session_frontend for `mdat attach`: at each question
 * it draws the view, reads keys through the key map until one makes a
 * command (stepping, going back, saving, ...), and answers the session
 * with it. Keys that only change the picture (selection, scrolling, the
 * output pane, the theme, help) are handled here and never reach the
 * session. Also plays a schedule for a lecture (--demo). */
#ifndef MDAT_UI_TUI_FRONTEND_H
#define MDAT_UI_TUI_FRONTEND_H

#include <stdbool.h>

#include "supervisor/explore/session.h"
#include "ui/tui/tui_theme.h"

struct tui_frontend_options {
    const struct tui_theme *theme;
    bool demo;                  /* play the loaded schedule */
    double delay_sec;           /* between demo steps */
};

struct tui_frontend;

/* The terminal must be open (tui_term_open). */
struct tui_frontend *tui_frontend_new(const struct session *session, const struct tui_frontend_options *opt);
const struct session_frontend *tui_frontend_iface(struct tui_frontend *f);
void tui_frontend_free(struct tui_frontend *f);

#endif
