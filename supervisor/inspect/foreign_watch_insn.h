/* foreign_watch_insn: what one instruction of a watched thread may do, for
 * foreign_watch.c (internal to supervisor/inspect/).
 *
 * Owns the rules that keep a livelock verdict true: an instruction is
 * followed only when its effect is a function of the thread's registers
 * and the memory it reads, and that memory is the process's own (no
 * MAP_SHARED mapping another process could write, no page the kernel
 * updates: the vDSO's clock data, a thread's rseq area). It says which
 * bytes the instruction may write (its memory operands, and the stack
 * slot a push or call fills), and refuses, with a reason, the clock and
 * random-number instructions, transactions, the x87/XSAVE state saves whose
 * size the decoder does not give, and every system call but the few that
 * change neither memory nor registers beyond their result (sched_yield,
 * the sleeps, getpid, gettid). The stepping is foreign_watch.c's. */
#ifndef MDAT_INSPECT_FOREIGN_WATCH_INSN_H
#define MDAT_INSPECT_FOREIGN_WATCH_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "arch/x86_insn.h"
#include "supervisor/process/proc_maps.h"

/* Memory the watched threads may not rely on, and where they may run. */
struct watch_memory {
    struct proc_maps maps;
    uint64_t (*rseq)[2];    /* each thread's registered rseq area, [lo, hi) */
    size_t n_rseq;
    bool rseq_unknown;      /* the kernel would not say where they are */
};

/* Reads pid's maps and the rseq areas of its threads tids[0..n). */
bool watch_memory_read(pid_t pid, const pid_t *tids, size_t n, struct watch_memory *out);
void watch_memory_free(struct watch_memory *m);

enum { WATCH_MAX_WRITES = 3 };

struct insn_effect {
    uint64_t write_addr[WATCH_MAX_WRITES];
    unsigned write_len[WATCH_MAX_WRITES];
    size_t n_writes;
    bool vector;            /* uses registers beyond user_regs_struct */
    bool syscall;           /* one of the allowed system calls */
};

/* The effect of insn, about to run on a thread with regs. false, and why
 * ("reads the time stamp counter (rdtsc)"), when it is not one to follow. */
bool watch_insn_effect(const struct x86_insn *insn, const struct user_regs_struct *regs, const struct watch_memory *m,
                       int mem_fd, struct insn_effect *out, char *why, size_t len);

#endif
