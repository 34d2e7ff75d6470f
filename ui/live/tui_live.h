/* tui_live: `mdat attach -p PID` (no --print): a running process's threads,
 * waits, sync objects and wait cycle, read again every 2 seconds, the
 * process held only while read; key t takes over (tui_takeover.h). */
#ifndef MDAT_UI_LIVE_TUI_LIVE_H
#define MDAT_UI_LIVE_TUI_LIVE_H

/* Runs the live view until the user quits; the exit status of mdat
 * attach (1 when the last look found the process stuck). */
int tui_live_run(const char *pid_text, int watch_ms);

#endif
