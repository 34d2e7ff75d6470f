/* tui_takeover: `mdat attach -p PID`, key t: the user takes over the
 * schedule of a running process mdat did not start. Every thread is held;
 * the user steps one thread at a time through its next visible operation
 * (s: supervisor/inspect/foreign_visible.h), to its next system call (c)
 * or back to the user's code (u: foreign_step.h), sees the report after
 * each step and, on a key, the livelock watch of the threads that can run,
 * and may save the steps taken as a text trace (a run's trace lines).
 * Letting go (or quitting, or a SIGTERM, SIGINT or SIGHUP to mdat)
 * detaches every thread with the signals it was due. */
#ifndef MDAT_UI_LIVE_TUI_TAKEOVER_H
#define MDAT_UI_LIVE_TUI_TAKEOVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "ui/cli/attach_look.h"

enum takeover_end {
    TAKEOVER_BACK,      /* let go: back to the live view */
    TAKEOVER_QUIT,      /* let go and quit mdat */
    TAKEOVER_SIGNALLED, /* a terminating signal: let go, mdat ends with it (*sig) */
    TAKEOVER_FAILED,    /* could not take over: message says why, nothing held */
};

/* Runs the take-over until the user lets go; the terminal is open. */
enum takeover_end tui_takeover_run(pid_t pid, struct attach_code *code, int *sig, char *message, size_t len);

#endif
