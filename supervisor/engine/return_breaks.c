/* return_breaks: one-shot breakpoints at return addresses, so that a thread
 * stops when a library call it made comes back (the model names heap
 * blocks that way: the block's address is only known on return).
 *
 * Several threads may return through the same place: each adds a
 * reference, and the original byte goes back when the last one has passed.
 * Also which of mdat's int3s, the code map's or these, sits at an address. */
#include "supervisor/engine/exec_engine.h"

#include <stdlib.h>

static struct return_bp *find(struct execution *ex, uint64_t addr)
{
    for (size_t i = 0; i < ex->n_ret_bps; i++)
        if (ex->ret_bps[i].addr == addr)
            return &ex->ret_bps[i];
    return NULL;
}

void exec_return_break_add(struct execution *ex, uint64_t addr)
{
    struct breakpoint_hit hit;
    if (code_map_lookup(ex->cfg->code, addr, &hit))
        return;
    struct return_bp *bp = find(ex, addr);
    if (bp) {
        bp->refs++;
        return;
    }
    static const uint8_t int3 = 0xcc;
    uint8_t orig;
    if (!tracee_read(ex->mem_fd, addr, &orig, 1) || !tracee_write(ex->mem_fd, addr, &int3, 1))
        return;
    if (ex->n_ret_bps == ex->cap_ret_bps) {
        ex->cap_ret_bps = ex->cap_ret_bps ? ex->cap_ret_bps * 2 : 8;
        ex->ret_bps = realloc(ex->ret_bps, ex->cap_ret_bps * sizeof *ex->ret_bps);
        if (!ex->ret_bps)
            abort();
    }
    ex->ret_bps[ex->n_ret_bps++] = (struct return_bp){addr, orig, 1};
}

bool exec_return_break_hit(struct execution *ex, struct mthread *t, uint64_t at, bool returning)
{
    struct return_bp *bp = find(ex, at);
    if (!bp)
        return false;
    t->regs.rip = at;
    tracee_set_regs(t->tid, &t->regs);
    t->regs_dirty = false;
    if (returning)
        bp->refs--;
    if (bp->refs <= 0) {
        tracee_write(ex->mem_fd, at, &bp->orig, 1);
        *bp = ex->ret_bps[--ex->n_ret_bps];
        t->stop = STOP_PLAIN;
    } else {
        t->stop = STOP_BREAKPOINT;  /* others still return through it */
        t->bp_orig = bp->orig;
        t->bp_insn = NULL;
    }
    return true;
}

bool exec_breakpoint_orig(struct execution *ex, uint64_t addr, uint8_t *orig)
{
    struct breakpoint_hit hit;
    if (code_map_lookup(ex->cfg->code, addr, &hit)) {
        *orig = hit.orig;
        return true;
    }
    const struct return_bp *bp = ex->n_ret_bps ? find(ex, addr) : NULL;
    if (bp)
        *orig = bp->orig;
    return bp != NULL;
}

bool exec_return_break_at(struct execution *ex, uint64_t addr)
{
    return ex->n_ret_bps && find(ex, addr);
}

void exec_return_breaks_remove(struct execution *ex, int mem_fd)
{
    for (size_t i = 0; i < ex->n_ret_bps; i++)
        tracee_write(mem_fd, ex->ret_bps[i].addr, &ex->ret_bps[i].orig, 1);
}
