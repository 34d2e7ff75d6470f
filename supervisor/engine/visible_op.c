/* visible_op: when two visible operations conflict. */
#include "supervisor/engine/visible_op.h"

static bool is_access(const struct visible_op *op)
{
    return op->kind == VIS_READ || op->kind == VIS_WRITE || op->kind == VIS_UPDATE;
}

/* A resume with an object is its call going on (visible_op.h). */
static bool touches_object(const struct visible_op *op)
{
    return op->kind == VIS_SYNC || op->kind == VIS_JOIN || op->kind == VIS_IO || (op->kind == VIS_RESUME && op->addr);
}

bool visible_op_writes(const struct visible_op *op)
{
    return op->kind == VIS_WRITE || op->kind == VIS_UPDATE || op->kind == VIS_SYNC || op->kind == VIS_IO;
}

/* [a, a+size) and [b, b+size) share a byte; an object without a known
 * size is taken as 8 bytes wide (a futex word, a pointer-sized field). */
static bool overlap(const struct visible_op *a, const struct visible_op *b)
{
    uint64_t sa = a->size ? a->size : 8, sb = b->size ? b->size : 8;
    return a->addr < b->addr + sb && b->addr < a->addr + sa;
}

bool visible_ops_conflict(const struct visible_op *a, const struct visible_op *b)
{
    if (!a->addr || !b->addr)
        return false;
    if (touches_object(a) && touches_object(b))
        return a->addr == b->addr;
    if (is_access(a) && is_access(b))
        return overlap(a, b) && (visible_op_writes(a) || visible_op_writes(b));
    /* A call and a plain access: hand-written code reading a lock's memory. */
    if ((touches_object(a) && is_access(b)) || (is_access(a) && touches_object(b)))
        return a->kind != VIS_IO && b->kind != VIS_IO && overlap(a, b);
    return false;
}
