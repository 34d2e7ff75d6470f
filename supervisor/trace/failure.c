/* failure: names of failure kinds, as printed and as written in JSON. */
#include "supervisor/trace/failure.h"

#include <string.h>

static const char *const names[FAIL_KIND_COUNT] = {
    [FAIL_NONE] = "none",           [FAIL_DEADLOCK] = "deadlock",     [FAIL_ASSERTION] = "assertion",
    [FAIL_CRASH] = "crash",         [FAIL_EXIT_STATUS] = "exit-status", [FAIL_LIVELOCK] = "livelock",
    [FAIL_HANG] = "hang",           [FAIL_CHECKER] = "checker",     [FAIL_MISUSE] = "misuse",
    [FAIL_RACE] = "race",           [FAIL_INVARIANT] = "invariant", [FAIL_SANDBOX] = "sandbox-violation",
    [FAIL_HEAP] = "heap-error",
};

const char *failure_kind_name(enum failure_kind kind)
{
    return kind < FAIL_KIND_COUNT ? names[kind] : "unknown";
}

enum failure_kind failure_kind_from_name(const char *name)
{
    for (int k = 0; k < FAIL_KIND_COUNT; k++)
        if (strcmp(names[k], name) == 0)
            return (enum failure_kind)k;
    if (strcmp(name, "step-limit") == 0)
        return FAIL_LIVELOCK;
    if (strcmp(name, "timeout") == 0)
        return FAIL_HANG;
    return FAIL_NONE;
}
