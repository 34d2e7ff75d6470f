/* exec_ahead: running a thread's own code ahead in mdat, up to its next
 * breakpoint, instead of on the CPU (exec_ahead.c says when and how);
 * engine-internal. */
#ifndef MDAT_ENGINE_EXEC_AHEAD_H
#define MDAT_ENGINE_EXEC_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/engine/exec_core.h"

enum ahead_end {
    AHEAD_NATIVE,       /* the CPU takes over from t->regs (which may have moved on) */
    AHEAD_ARRIVED,      /* t is at a breakpoint, *at, as if it had stopped there */
    AHEAD_SYSCALL,      /* t is at a futex call's seccomp stop, as if it had stopped there */
    AHEAD_ACCESS,       /* t stands before an access to a page it shares (exec_pages.h set its op) */
    AHEAD_RESTART,      /* page ownership cannot go on (exec_pages_touch said why) */
};


/* Carries t on from t->regs, which stand just after an instruction or a
 * system call mdat carried out. t->regs_dirty when t->regs moved on: the
 * kernel's are stale until the engine writes them. */
enum ahead_end exec_run_ahead(struct execution *ex, struct mthread *t, uint64_t *at);
/* The emulator's reads (ctx: the execution): through the program's own
 * page rights and page_cache.c, with mdat's planted int3 bytes hidden, so
 * that code reading itself sees its own bytes. */
bool exec_read_as_program(void *ctx, uint64_t addr, void *buf, size_t n);

#endif
