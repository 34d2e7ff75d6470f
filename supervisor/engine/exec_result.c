/* exec_result: freeing a result, reading its ring of recent events, naming
 * its kinds of stops and of lost grounds. */
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
    page_list_free(&res->restart_pages);
    page_list_free(&res->restart_read_shared);


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

const char *stop_reason_name(enum stop_reason k)
{
    static const char *const names[STOP_REASON_COUNT] = {
        [STOP_REASON_STEP] = "step",
        [STOP_REASON_SINGLE_STEP] = "single_step",
        [STOP_REASON_OWN_ACCESS] = "own_access",
        [STOP_REASON_LIBRARY_ATOMIC] = "library_atomic",
        [STOP_REASON_CALL] = "call",
        [STOP_REASON_RETURN] = "return",
        [STOP_REASON_SYSCALL] = "syscall",
        [STOP_REASON_THREAD_START] = "thread_start",
        [STOP_REASON_THREAD_END] = "thread_end",
        [STOP_REASON_SIGNAL] = "signal",
        [STOP_REASON_PAGES] = "pages",
        [STOP_REASON_TAIL_CALL] = "tail_call",
    };
    return k < STOP_REASON_COUNT ? names[k] : "other";
}

const char *grounds_kind_name(enum grounds_kind k)
{
    static const char *const names[GROUNDS_KIND_COUNT] = {
        [GROUNDS_KEPT] = "kept",
        [GROUNDS_LIBRARY_SYNC] = "library_sync",
        [GROUNDS_SIGNAL] = "signal",
        [GROUNDS_PROCESS] = "process",
        [GROUNDS_EXEC] = "exec",
        [GROUNDS_UNDECODED] = "undecoded_instruction",
        [GROUNDS_UNOBSERVED] = "unobserved_sharing",
    };
    return k < GROUNDS_KIND_COUNT ? names[k] : "other";
}
