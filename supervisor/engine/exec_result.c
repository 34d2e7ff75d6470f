/* exec_result: freeing a result and reading its ring of recent events. */
#include "supervisor/engine/exec_config.h"

#include <stdlib.h>

void exec_result_free(struct exec_result *res)
{
    free(res->threads);
    res->threads = NULL;
    free(res->final_watches);
    res->final_watches = NULL;
    res->n_final_watches = 0;
    choice_list_free(&res->choices);
}

int exec_result_recent(const struct exec_result *res, const struct trace_event **out, int max)
{
    uint64_t n = res->n_events < EXEC_RECENT_EVENTS ? res->n_events : EXEC_RECENT_EVENTS;
    if ((uint64_t)max < n)
        n = (uint64_t)max;
    for (uint64_t i = 0; i < n; i++)
        out[i] = &res->recent[(res->n_events - n + i) % EXEC_RECENT_EVENTS];
    return (int)n;
}
