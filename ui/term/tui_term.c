/* tui_term: curses set-up and restore, and the signal handlers that
 * restore the terminal before mdat dies. Tracees need no handler here:
 * they are traced with PTRACE_O_EXITKILL and die with mdat. */
#include "ui/term/tui_term.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t term_open;
static bool utf8;
static SCREEN *screen;

static const int fatal_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT, SIGHUP, SIGQUIT};

/* endwin is not async-signal-safe, but mdat is about to die and a broken
 * terminal is worse than the small risk; the signal then takes its default
 * action (SA_RESETHAND), as if we had never caught it. */
static void restore_and_die(int sig)
{
    if (term_open) {
        term_open = 0;
        endwin();
        static const char reset[] = "\033[?1049l\033[0m\033[?25h\r\n";
        if (write(STDOUT_FILENO, reset, sizeof reset - 1) < 0) {
            /* nothing more to do */
        }
    }
    raise(sig);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = restore_and_die;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaction(fatal_signals[i], &sa, NULL);
}

static void remove_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        signal(fatal_signals[i], SIG_DFL);
}

bool tui_term_open(char *err, size_t errlen)
{
    setlocale(LC_ALL, "");
    const char *codeset = nl_langinfo(CODESET);
    utf8 = codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen, "mdat attach needs a terminal (standard input and output)");
        return false;
    }
    /* Set before curses starts so that a crash while it does is covered. */
    install_handlers();
    /* TERM=dumb asks for no colour and no tricks; a full-screen view needs
     * at least cursor moves, so it gets plain VT100 (moves, bold, reverse)
     * and the mono theme. */
    const char *term = getenv("TERM");
    bool dumb = !term || !term[0] || strcmp(term, "dumb") == 0;
    screen = newterm(dumb ? "vt100" : NULL, stdout, stdin);
    if (!screen) {
        remove_handlers();
        snprintf(err, errlen, "cannot use the terminal (TERM=%s)", term ? term : "");
        return false;
    }
    set_term(screen);
    term_open = 1;
    cbreak();               /* Ctrl-C still interrupts: a way out of a program that hangs in one step */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    curs_set(1);
    return true;
}

void tui_term_close(void)
{
    if (!term_open)
        return;
    term_open = 0;
    endwin();
    delscreen(screen);
    screen = NULL;
    remove_handlers();
}

bool tui_term_utf8(void)
{
    return utf8;
}

int tui_term_key(int timeout_ms)
{
    timeout(timeout_ms < 0 ? -1 : timeout_ms);
    int key = getch();
    return key == ERR ? TUI_KEY_TIMEOUT : key;
}

void tui_term_line(int row, const char *text, size_t len, unsigned long attr)
{
    int width = getmaxx(stdscr);
    size_t cols = (size_t)(width > 0 ? width : 0);
    move(row, 0);
    clrtoeol();
    attron((attr_t)attr);
    addnstr(text, (int)(len < cols ? len : cols));
    attroff((attr_t)attr);
}
