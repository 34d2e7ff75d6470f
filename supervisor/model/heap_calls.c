/* heap_calls: following malloc, calloc, realloc, free and C++'s new and
 * delete from user code, so that heap memory can be named by its
 * allocation. At the entry the engine has noted the call's size and the
 * model notes the user's line; the engine stops the thread where the call
 * returns (a one-shot breakpoint), where the block's address is in rax.
 * Only while events are described. */
#include "supervisor/model/model_internal.h"

void model_heap_call(void *state, struct mthread *t, enum model_fn fn, uint64_t ret)
{
    struct model *m = state;
    switch (fn) {
    case MF_FREE: case MF_DELETE: case MF_DELETE_SIZED: case MF_DELETE_ARRAY: case MF_DELETE_ARRAY_SIZED:
        heap_map_remove(&m->heap, t->regs.rdi);
        return;
    default:
        break;
    }
    t->heap_site = exec_user_frame_pc(m->ex, t, ret - 1);
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
