/* heap_calls: following malloc, calloc, realloc, free and C++'s new and
 * delete from user code, so that heap memory can be named by its allocation.
 *
 * Owns the one-shot breakpoints at the return addresses of those calls
 * (where the new block's address is known), shared by the threads that
 * return through the same place. Only while events are described. */
#include "supervisor/engine/execution_internal.h"

#include <stdlib.h>

static struct return_bp *return_bp_at(struct execution *ex, uint64_t addr)
{
    for (size_t i = 0; i < ex->n_ret_bps; i++)
        if (ex->ret_bps[i].addr == addr)
            return &ex->ret_bps[i];
    return NULL;
}

/* Makes the thread stop where the heap call returns, unless a breakpoint
 * of the code map stops it there anyway. */
static void add_return_bp(struct execution *ex, uint64_t addr)
{
    struct breakpoint_hit hit;
    if (code_map_lookup(ex->cfg->code, addr, &hit))
        return;
    struct return_bp *bp = return_bp_at(ex, addr);
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

/* At the entry of malloc, calloc, realloc or free, called from user code. */
void exec_heap_call(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t ret)
{
    switch (fn) {
    case MF_FREE: case MF_DELETE: case MF_DELETE_SIZED: case MF_DELETE_ARRAY: case MF_DELETE_ARRAY_SIZED:
        heap_map_remove(&ex->heap, t->regs.rdi);
        return;
    default:
        break;
    }
    t->heap_fn = fn;
    t->heap_size = fn == MF_CALLOC ? t->regs.rdi * t->regs.rsi : fn == MF_REALLOC ? t->regs.rsi : t->regs.rdi;
    t->heap_old = fn == MF_REALLOC ? t->regs.rdi : 0;
    t->heap_ret = ret;
    t->heap_site = exec_user_frame_pc(ex, t, ret - 1);
    add_return_bp(ex, ret);
}

/* t stopped at a breakpoint at `at`. Finishes its heap call if this is
 * where the call returns; true when `at` is one of the return breakpoints
 * (then t is set up to go on), false when it is a code map breakpoint. */
bool exec_heap_return(struct execution *ex, struct mthread *t, uint64_t at)
{
    bool mine = t->heap_ret == at;
    if (mine) {
        t->heap_ret = 0;
        uint64_t block = t->regs.rax;
        if (t->heap_old && (block || t->heap_size == 0))
            heap_map_remove(&ex->heap, t->heap_old);
        if (block)
            heap_map_add(&ex->heap, block, t->heap_size, model_fn_verb(t->heap_fn), t->heap_site);
    }
    struct return_bp *bp = return_bp_at(ex, at);
    if (!bp)
        return false;
    t->regs.rip = at;
    tracee_set_regs(t->tid, &t->regs);
    if (mine)
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

