/* attach_look: one look at a running process mdat did not start: attach,
 * read the report, let it go. Shared by `mdat attach -p PID --print`
 * (ui/cli/cmd_attach_pid.c, which owns it) and the live view
 * (ui/live/tui_live.c), which takes a fresh look every refresh. */
#ifndef MDAT_UI_ATTACH_LOOK_H
#define MDAT_UI_ATTACH_LOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_report.h"

/* "1234" as a pid; false for anything else. */
bool attach_parse_pid(const char *text, pid_t *pid);

/* The program's code, read before the threads are held and kept between
 * looks (its DWARF is read once). */
struct attach_code {
    bool loaded;
    struct foreign_code code;
};
void attach_code_free(struct attach_code *c);

/* Attaches to pid, builds *report, detaches. The process is held only for
 * the read (and, when the report allows it, watch_ms more to tell a
 * livelock: supervisor/inspect/foreign_livelock.h; 0 never), and mdat's
 * terminating signals wait until it is let go.
 * Returns whether *report was built (false: err says why). *detach_failed
 * is set, with err saying why, when a thread could not be let go; the
 * report, if built, is still the caller's to free. */
bool attach_look(pid_t pid, struct attach_code *code, int watch_ms, struct foreign_report *report, bool *detach_failed,
                 char *err, size_t errlen);

#endif
