/* thread_cpu: how much CPU time one thread of a traced process has used.
 *
 * Decisions the engine takes after a thread has run for a while (page
 * ownership's look at a long native run) must not depend on how busy the
 * machine is: a replay slowed down by other work would decide differently
 * from the run it replays. The thread's own CPU time is the same on a quiet
 * machine and a loaded one. Another process's per-thread CPU clock cannot be
 * read with clock_gettime, so this reads /proc. */
#ifndef MDAT_PROCESS_THREAD_CPU_H
#define MDAT_PROCESS_THREAD_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Nanoseconds of CPU thread tid of process pid has run; false when it is
 * gone or /proc says nothing. */
bool thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *ns);

#endif
