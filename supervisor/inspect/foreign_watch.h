/* foreign_watch: the running threads of a held process, stepped in turn
 * for a bounded window, to see whether they come back to a state they
 * were in before (a livelock: they cycle forever under that schedule).
 *
 * Owns the stepping (PTRACE_SINGLESTEP, one instruction of each watched
 * thread in turn, round-robin), what each instruction may do (decoded by
 * arch/x86_insn: the memory it writes, whether it reads the clock, a
 * random number, memory another process or the kernel could change, or
 * makes a system call that is not one of the few that change nothing),
 * and the cycle: the state is every watched thread's registers (and
 * vector registers once one is used) plus the contents of every location
 * written in the window; when that whole state equals one seen before, at
 * the same point of the round, it repeats for ever, as long as nothing
 * from outside the watched threads changes what they read. Which threads
 * may be watched (all the others blocked for good), and what the verdict
 * says, are foreign_livelock.c's. The threads stay held where the window
 * left them; a signal that came for one goes back with the detach. */
#ifndef MDAT_INSPECT_FOREIGN_WATCH_H
#define MDAT_INSPECT_FOREIGN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/inspect/foreign_attach.h"

enum { FOREIGN_WATCH_MAX_THREADS = 16, FOREIGN_WATCH_MAX_PCS = 256 };

enum foreign_watch_end {
    FWATCH_CYCLE,       /* the whole state came back: it repeats for ever */
    FWATCH_NO_REPEAT,   /* the window ran out without a repeat */
    FWATCH_STOPPED,     /* something the watch cannot follow: why says what */
};

struct foreign_watch {
    enum foreign_watch_end end;
    unsigned long instructions;     /* run by the watched threads in the window */
    unsigned long period;           /* FWATCH_CYCLE: instructions of one cycle, all threads together */
    bool stored;                    /* a store was made in the window (false: memory never changed) */
    /* FWATCH_CYCLE: the distinct pcs each watched thread runs in the cycle
     * (the first FOREIGN_WATCH_MAX_PCS), in the order of the indices given. */
    uint64_t pcs[FOREIGN_WATCH_MAX_THREADS][FOREIGN_WATCH_MAX_PCS];
    size_t n_pcs[FOREIGN_WATCH_MAX_THREADS];
    char why[200];                  /* FWATCH_STOPPED: "T2 reads the time stamp counter (rdtsc)" */
};

/* Steps p->threads[index[0..n)] in turn for at most window_ms. The
 * threads must be held and running (no wait); every other thread of p is
 * left alone and must not be able to change memory meanwhile (blocked for
 * good: the caller's to know). false (err) only when nothing could be
 * done (too many threads, out of memory, the maps unreadable); the
 * threads are held again in any case. */
bool foreign_watch_threads(struct foreign_process *p, const size_t *index, size_t n, int window_ms,
                           struct foreign_watch *out, char *err, size_t errlen);

#endif
