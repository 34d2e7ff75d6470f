/* foreign_livelock: telling a livelock in a process mdat attached to.
 *
 * Owns when the running threads are watched (the report found no deadlock
 * or hang, some threads run, and every other thread waits for good on
 * something only the program's own threads could end, so that only the
 * running ones can change anything), running the watch (foreign_watch.c:
 * stepped in turn until their whole state repeats), and what the report
 * says of it: a livelock verdict (exit 1, as other hangs) with the cycle's
 * length and source lines, whether it holds whatever the schedule (no
 * store at all: nothing can change what the threads read) or under the
 * schedule stepped, and "unless" a signal the program handles comes; or,
 * when there is none, why, after the "no deadlock" verdict. */
#ifndef MDAT_INSPECT_FOREIGN_LIVELOCK_H
#define MDAT_INSPECT_FOREIGN_LIVELOCK_H

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_report.h"

/* The default window of `mdat attach -p PID --livelock SEC`. */
enum { FOREIGN_LIVELOCK_DEFAULT_MS = 2000 };

/* With p still held and r built from it: watches the running threads for
 * at most window_ms when the report allows it (0: never), and fills
 * r->livelock and, when found, the verdict. The threads stay held where
 * the watch left them. */
void foreign_livelock_watch(struct foreign_process *p, const struct foreign_code *fc, struct foreign_report *r,
                            int window_ms);

#endif
