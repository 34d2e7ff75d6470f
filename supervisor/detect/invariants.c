/* invariants: every expression is evaluated after every step through a
 * reader of the program's memory. An expression that cannot be evaluated
 * at some step (a pointer in it is still NULL, a division by zero) says
 * nothing about that step: only a value of 0 breaks it. */
#include "supervisor/detect/invariants.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct invariants {
    const debuginfo *exe;
    char **exprs;
    int n;
};

struct invariants *invariants_new(const debuginfo *exe, const char *const *exprs, int n, char *err,
                                  size_t errlen)
{
    for (int i = 0; i < n; i++) {
        struct data_expr_result r;
        char why[200];
        if (!debuginfo_eval_value(exe, exprs[i], NULL, &r, why, sizeof why)) {
            snprintf(err, errlen, "invariant '%s': %s", exprs[i], why);
            return NULL;
        }
    }
    struct invariants *inv = calloc(1, sizeof *inv);
    if (!inv || !(inv->exprs = calloc((size_t)n + 1, sizeof *inv->exprs)))
        abort();
    inv->exe = exe;
    for (int i = 0; i < n; i++)
        if (!(inv->exprs[inv->n++] = strdup(exprs[i])))
            abort();
    return inv;
}

void invariants_free(struct invariants *inv)
{
    if (!inv)
        return;
    for (int i = 0; i < inv->n; i++)
        free(inv->exprs[i]);
    free(inv->exprs);
    free(inv);
}

static bool read_tracee(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct execution *ex = ctx;
    return tracee_read(ex->mem_fd, addr, buf, n);
}

/* "invariant men_inside + women_inside <= 4 broken: men_inside = 3, women_inside = 2" */
static void describe(const char *expr, const struct data_expr_result *r, char *buf, size_t len)
{
    int n = snprintf(buf, len, "invariant %s broken", expr);
    for (int i = 0; i < r->n_terms && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s = %" PRId64, i ? ", " : ": ", r->terms[i].text,
                      r->terms[i].value);
}

static bool on_step(void *self, struct execution *ex, uint64_t step, int thread, const struct visible_op *op,
                    struct exec_result *res)
{
    struct invariants *inv = self;
    struct data_reader rd = {read_tracee, ex, code_map_bias(ex->cfg->code), NULL, NULL};
    for (int i = 0; i < inv->n; i++) {
        struct data_expr_result r;
        char why[200];
        if (!debuginfo_eval_value(inv->exe, inv->exprs[i], &rd, &r, why, sizeof why) || r.value != 0)
            continue;
        res->kind = FAIL_INVARIANT;
        describe(inv->exprs[i], &r, res->message, sizeof res->message);
        exec_format_line(ex, op->pc, res->location, sizeof res->location);
        exec_format_function(ex, op->pc, res->function, sizeof res->function);
        res->thread = thread;
        return false;
    }
    return true;
}

static const struct exec_listener_ops invariants_ops = {
    .after_step = on_step,
};

struct exec_listener invariants_hooks(struct invariants *inv)
{
    return (struct exec_listener){&invariants_ops, inv};
}
