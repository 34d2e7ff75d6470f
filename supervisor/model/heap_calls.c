/* heap_calls: following malloc, calloc, realloc, free and C++'s new and
 * delete from user code, so that heap memory can be named by its
 * allocation. At the entry the size and the user's line are noted and the
 * engine is asked to stop the thread where the call returns (it plants a
 * one-shot breakpoint); there the block's address is in rax. Only while events are described. */
#include "supervisor/model/model_internal.h"

bool model_heap_call(void *state, struct mthread *t, enum model_fn fn, uint64_t ret)
{
    struct model *m = state;
    switch (fn) {
    case MF_FREE: case MF_DELETE: case MF_DELETE_SIZED: case MF_DELETE_ARRAY: case MF_DELETE_ARRAY_SIZED:
        heap_map_remove(&m->heap, t->regs.rdi);
        return false;
    default:
        break;
    }
    t->heap_fn = fn;
    t->heap_size = fn == MF_CALLOC ? t->regs.rdi * t->regs.rsi : fn == MF_REALLOC ? t->regs.rsi : t->regs.rdi;
    t->heap_old = fn == MF_REALLOC ? t->regs.rdi : 0;
    t->heap_site = exec_user_frame_pc(m->ex, t, ret - 1);
    return true;
}

void model_heap_returned(void *state, struct mthread *t)
{
    struct model *m = state;
    uint64_t block = t->regs.rax;
    if (t->heap_old && (block || t->heap_size == 0))
        heap_map_remove(&m->heap, t->heap_old);
    if (block)
        heap_map_add(&m->heap, block, t->heap_size, model_fn_verb(t->heap_fn), t->heap_site);
}
