/* exec_futex: what a futex call means for the threads of an execution.
 *
 * No tracee ever blocks in the kernel: at its seccomp stop, FUTEX_WAIT
 * compares the word itself and, when it matches, the thread becomes blocked
 * on that word in mdat's table (futex_model.h keeps the books) and the
 * syscall is skipped; FUTEX_WAKE releases waiters in the model, and which
 * waiter wakes, when more wait than are woken, is the strategy's choice. */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_pages.h"

#include <errno.h>
#include <linux/futex.h>

void exec_emulate_syscall(struct mthread *t, int64_t result)
{
    t->regs.orig_rax = (uint64_t)-1;
    t->regs.rax = (uint64_t)result;
    t->stop = STOP_PLAIN;
    /* Written when it is resumed, where a thread killed meanwhile (from
     * outside) is noticed as such. */
    t->regs_dirty = true;
    t->ahead_on_resume = true;
}

void exec_wake_thread(struct execution *ex, struct mthread *w)
{
    livelock_touch(ex->livelock, w->id);
    futex_table_remove(&ex->futex, w->id);
    exec_set_state(ex, w, TS_RUNNABLE, false);
    w->op = OP_WOKEN;
}

/* The futex call returns result and the thread runs on. */
static enum run_outcome futex_returns(struct mthread *t, int64_t result)
{
    exec_emulate_syscall(t, result);
    return RUN_CONTINUE;
}

static void tell_woke(struct execution *ex, int woken, uint64_t addr)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->woke)
            l->ops->woke(l->self, ex->running, woken, addr);
    }
}

int exec_wake_waiters(struct execution *ex, uint64_t addr, uint32_t bitset, uint32_t n)
{
    int woken = 0;
    while ((uint32_t)woken < n) {
        int ids[256];
        bool yielded[256] = {false};
        size_t count = futex_table_find(&ex->futex, addr, bitset, ids, 256);
        if (count == 0)
            break;
        if (count > 256)
            count = 256;
        size_t pick = 0;
        if (count > n - (uint32_t)woken)
            pick = exec_ask_strategy(ex, CHOICE_WAKE, ids, yielded, count);
        exec_wake_thread(ex, exec_thread_by_id(ex, ids[pick]));
        tell_woke(ex, ids[pick], addr);
        if (ex->pages)
            exec_pages_woke(ex, ex->running, ids[pick], addr);

        woken++;
    }
    return woken;
}

static enum run_outcome futex_wait(struct execution *ex, struct mthread *t, const struct futex_call *fc)
{
    uint32_t value;
    if (!tracee_read(ex->mem_fd, fc->uaddr, &value, sizeof value))
        return futex_returns(t, -EFAULT);
    if (value != fc->val)
        return futex_returns(t, -EAGAIN);
    exec_emulate_syscall(t, 0);
    exec_set_state(ex, t, TS_BLOCKED, fc->timeout != 0);
    t->wait_seq = ++ex->wait_seq;
    futex_table_add(&ex->futex, t->id, fc->uaddr, fc->bitset, t->timed_wait);
    return RUN_BLOCKED;
}

static enum run_outcome futex_requeue(struct execution *ex, struct mthread *t, const struct futex_call *fc)
{
    if (fc->check_val3) {
        uint32_t value;
        if (!tracee_read(ex->mem_fd, fc->uaddr, &value, sizeof value) || value != fc->val3)
            return futex_returns(t, -EAGAIN);
    }
    int woken = exec_wake_waiters(ex, fc->uaddr, FUTEX_BITSET_MATCH_ANY, fc->val);
    int ids[256];
    size_t count = futex_table_find(&ex->futex, fc->uaddr, FUTEX_BITSET_MATCH_ANY, ids, 256);
    int moved = 0;
    for (size_t i = 0; i < count && i < 256 && (uint32_t)moved < fc->nr_requeue; i++, moved++)
        futex_table_move(&ex->futex, ids[i], fc->uaddr2);
    return futex_returns(t, woken + moved);
}

static void tell_futex_call(struct execution *ex, int thread, uint64_t addr, bool wakes)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->futex_call)
            l->ops->futex_call(l->self, thread, addr, wakes);
    }
}

enum run_outcome exec_handle_futex(struct execution *ex, struct mthread *t)
{
    struct futex_call fc;
    futex_decode(&t->regs, &fc);
    if (ex->cfg->n_listeners)
        tell_futex_call(ex, t->id, fc.uaddr, fc.cmd != FUTEX_CMD_WAIT);
    switch (fc.cmd) {
    case FUTEX_CMD_WAIT:
        return futex_wait(ex, t, &fc);
    case FUTEX_CMD_WAKE:
        return futex_returns(t, exec_wake_waiters(ex, fc.uaddr, fc.bitset, fc.val));
    case FUTEX_CMD_CMP_REQUEUE:
        return futex_requeue(ex, t, &fc);
    case FUTEX_CMD_UNSUPPORTED:
        break;
    }
    char where[128];
    exec_format_code(ex, t->last_user_pc, where, sizeof where);
    exec_set_error(ex, "the program uses %s, which mdat does not model yet (T%d, last at %s)",
                   futex_op_name(fc.raw_op), t->id, where);
    return RUN_ERROR;
}
