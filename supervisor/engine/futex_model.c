/* futex_model: futex argument decoding and the waiter table. */
#include "supervisor/engine/futex_model.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>

void futex_decode(const struct user_regs_struct *regs, struct futex_call *out)
{
    memset(out, 0, sizeof *out);
    out->uaddr = regs->rdi;
    out->raw_op = (int)(regs->rsi & FUTEX_CMD_MASK);
    out->val = (uint32_t)regs->rdx;
    out->timeout = regs->r10;
    out->uaddr2 = regs->r8;
    out->val3 = (uint32_t)regs->r9;
    out->bitset = FUTEX_BITSET_MATCH_ANY;
    switch (out->raw_op) {
    case FUTEX_WAIT:
        out->cmd = FUTEX_CMD_WAIT;
        break;
    case FUTEX_WAIT_BITSET:
        out->cmd = FUTEX_CMD_WAIT;
        out->bitset = out->val3;
        break;
    case FUTEX_WAKE:
        out->cmd = FUTEX_CMD_WAKE;
        break;
    case FUTEX_WAKE_BITSET:
        out->cmd = FUTEX_CMD_WAKE;
        out->bitset = out->val3;
        break;
    case FUTEX_REQUEUE:
        out->cmd = FUTEX_CMD_CMP_REQUEUE;
        out->nr_requeue = (uint32_t)regs->r10;
        break;
    case FUTEX_CMP_REQUEUE:
        out->cmd = FUTEX_CMD_CMP_REQUEUE;
        out->nr_requeue = (uint32_t)regs->r10;
        out->check_val3 = true;
        break;
    default:
        out->cmd = FUTEX_CMD_UNSUPPORTED;
        break;
    }
}

const char *futex_op_name(int raw_op)
{
    static const char *const names[] = {
        [FUTEX_WAIT] = "FUTEX_WAIT", [FUTEX_WAKE] = "FUTEX_WAKE", [FUTEX_FD] = "FUTEX_FD",
        [FUTEX_REQUEUE] = "FUTEX_REQUEUE", [FUTEX_CMP_REQUEUE] = "FUTEX_CMP_REQUEUE",
        [FUTEX_WAKE_OP] = "FUTEX_WAKE_OP", [FUTEX_LOCK_PI] = "FUTEX_LOCK_PI",
        [FUTEX_UNLOCK_PI] = "FUTEX_UNLOCK_PI", [FUTEX_TRYLOCK_PI] = "FUTEX_TRYLOCK_PI",
        [FUTEX_WAIT_BITSET] = "FUTEX_WAIT_BITSET", [FUTEX_WAKE_BITSET] = "FUTEX_WAKE_BITSET",
        [FUTEX_WAIT_REQUEUE_PI] = "FUTEX_WAIT_REQUEUE_PI", [FUTEX_CMP_REQUEUE_PI] = "FUTEX_CMP_REQUEUE_PI",
        [13] = "FUTEX_LOCK_PI2",
    };
    if (raw_op >= 0 && raw_op < (int)(sizeof names / sizeof names[0]) && names[raw_op])
        return names[raw_op];
    return "an unknown futex operation";
}

void futex_table_add(struct futex_table *t, int thread, uint64_t addr, uint32_t bitset, bool timed)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->waiters = realloc(t->waiters, t->cap * sizeof *t->waiters);
        if (!t->waiters)
            abort();
    }
    t->waiters[t->n++] = (struct futex_waiter){thread, addr, bitset, timed};
}

void futex_table_remove(struct futex_table *t, int thread)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->waiters[i].thread == thread) {
            memmove(&t->waiters[i], &t->waiters[i + 1], (t->n - i - 1) * sizeof *t->waiters);
            t->n--;
            return;
        }
    }
}

size_t futex_table_find(const struct futex_table *t, uint64_t addr, uint32_t bitset, int *out, size_t max)
{
    size_t found = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->waiters[i].addr == addr && (t->waiters[i].bitset & bitset)) {
            if (found < max)
                out[found] = t->waiters[i].thread;
            found++;
        }
    }
    return found;
}

void futex_table_move(struct futex_table *t, int thread, uint64_t new_addr)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->waiters[i].thread == thread) {
            struct futex_waiter w = t->waiters[i];
            w.addr = new_addr;
            /* A requeued waiter queues behind those already on the new word. */
            memmove(&t->waiters[i], &t->waiters[i + 1], (t->n - i - 1) * sizeof *t->waiters);
            t->waiters[t->n - 1] = w;
            return;
        }
    }
}

const struct futex_waiter *futex_table_get(const struct futex_table *t, int thread)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->waiters[i].thread == thread)
            return &t->waiters[i];
    return NULL;
}

void futex_table_clear(struct futex_table *t)
{
    t->n = 0;
}

void futex_table_free(struct futex_table *t)
{
    free(t->waiters);
    memset(t, 0, sizeof *t);
}
