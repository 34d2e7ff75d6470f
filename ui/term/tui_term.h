/* tui_term: the terminal while `mdat attach` owns it.
 *
 * Owns curses' start and end, and the guarantee that the terminal is given
 * back in a usable state on every way out: a normal end, and the fatal and
 * terminating signals of mdat itself (SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
 * SIGILL, SIGTERM, SIGINT, SIGHUP, SIGQUIT), whose handlers restore the
 * terminal and then let the signal do what it would have done. Also reads
 * keys, with a timeout when asked. */
#ifndef MDAT_UI_TERM_TUI_TERM_H
#define MDAT_UI_TERM_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

enum { TUI_KEY_TIMEOUT = -1, TUI_KEY_ESC = 27 };

/* Starts curses on the controlling terminal (stdin/stdout); TERM=dumb (or
 * none) is driven as a plain VT100. false with a one-line reason when the
 * terminal cannot be used. */
bool tui_term_open(char *err, size_t errlen);
/* Gives the terminal back; safe to call more than once. */
void tui_term_close(void);
/* The locale's character set is UTF-8 (checked by tui_term_open). */
bool tui_term_utf8(void);
/* The next key (curses code, KEY_RESIZE after a resize); waits at most
 * timeout_ms (negative: no limit); TUI_KEY_TIMEOUT when none came. */
int tui_term_key(int timeout_ms);
/* Row `row` cleared and given text[0, len), cut at the terminal's width, in
 * the curses attributes attr (A_BOLD, A_REVERSE...): the plain-text views
 * of `mdat attach -p` draw with it. */
void tui_term_line(int row, const char *text, size_t len, unsigned long attr);

#endif
