/* foreign_visible: the take-over's step of one held thread to its next
 * visible operation, as mdat defines it for the programs it starts: a
 * decoded access of the user's code (the executable and the program's own
 * libraries, not the C library's insides) to memory that is not the
 * thread's own stack nor constant, an atomic instruction, a call from the
 * user's code of a modeled function (pthread_mutex_lock/unlock, cond_wait/
 * signal, sem_*, create, join...: C++'s std::mutex and std::thread reach
 * the same entries), a futex call, a sleep or a yield. The operation is
 * carried out (a lock call runs to its return, or blocks) and told as a
 * run's trace tells it (op, object named from DWARF, value, source line).
 *
 * Breakpoints (int3) are in the process only while the stepped thread runs
 * freely towards its next operation: planted at the user's sites and at the
 * modeled entries just before it is resumed, and every original byte is
 * written back as soon as it stops, before anything else is done (the
 * other threads are held all along and run no code). So letting go, or
 * mdat's death by any catchable signal, never leaves one behind; a SIGKILL
 * of mdat during those few milliseconds would (the next thread to run onto
 * one dies of SIGTRAP): README "Known limits". A sleep is a step that
 * takes no time (as under `mdat run`). What a thread waits on after it is
 * foreign_report's to say; the system-call step is foreign_step.c's. */
#ifndef MDAT_INSPECT_FOREIGN_VISIBLE_H
#define MDAT_INSPECT_FOREIGN_VISIBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "supervisor/inspect/foreign_attach.h"
#include "supervisor/inspect/foreign_code.h"
#include "supervisor/inspect/foreign_step.h"

/* How many places a step would plant int3s at: the user's decoded sites
 * and the modeled entries found in the process's modules. 0: a step can
 * only be a system call (foreign_step_thread). */
size_t foreign_visible_places(const struct foreign_code *fc, size_t *n_sites, size_t *n_entries);

/* Runs thread p->threads[index] until it has carried out its next visible
 * operation (FSTEP_VISIBLE, out->op), waiting at most wait_ms for it to
 * reach it and as long again for a call to return. A thread that waits in
 * the kernel meanwhile, or in the call (a lock held by another thread), is
 * FSTEP_BLOCKED (out->has_op when it blocks in a visible call), held again
 * where it waits. false (err) only when ptrace failed. */
bool foreign_step_visible(struct foreign_process *p, size_t index, const struct foreign_code *fc, int wait_ms,
                          struct foreign_step *out, char *err, size_t errlen);

#endif
