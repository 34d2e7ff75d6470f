/* exec_grounds: recording the first effect an execution's steps did not
 * account for (see exec_grounds.h). */
#include "supervisor/engine/exec_grounds.h"

#include <stdarg.h>
#include <stdio.h>

void exec_grounds_lost(struct execution *ex, enum grounds_kind kind, const char *fmt, ...)
{
    struct exec_result *res = ex->res;
    if (res->grounds_lost++ > 0)
        return;
    res->grounds.kind = kind == GROUNDS_KEPT ? GROUNDS_UNOBSERVED : kind;
    res->grounds.step = ex->steps + 1;
    res->grounds.thread = ex->running;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->grounds.what, sizeof res->grounds.what, fmt, ap);
    va_end(ap);
}
