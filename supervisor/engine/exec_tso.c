/* exec_tso: the x86-TSO memory model of an execution (--memory-model tso),
 * on top of store_buffer.h.
 *
 * A plain store of a visible operation (mov, the store half of a
 * read-modify-write without LOCK) waits in its thread's buffer: the thread
 * sees it at once, the others once it is committed. Committed are, in
 * order: a thread's whole buffer before any operation that orders memory on
 * a real CPU (a LOCK-prefixed or xchg access, a modeled call, a system
 * call, the thread's end) or that mdat does not carry out itself; and one
 * store at a time when the strategy picks the pseudo-candidate "flush T"
 * (id -T), which stands beside the threads at every choice while T has
 * stores pending.
 *
 * Between two visible operations a thread runs natively, and mdat does not
 * see a fence there (mfence, a call into a library that takes a lock). So
 * before a thread with pending stores runs on, every path from where it
 * stands is walked (x86_flow.h) up to the next visible operation: if one
 * may meet a call, a return, an indirect jump or a fence first, or the
 * walk is longer than WALK_BUDGET instructions, the buffer is committed
 * now. Stores stay pending only across straight code, branches and loops
 * that reach a visible operation: never longer than a real CPU may keep
 * them, so no outcome is shown that hardware could not produce. */
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_tso.h"
#include "supervisor/engine/store_buffer.h"
#include "supervisor/process/tracee.h"
#include "arch/x86_flow.h"

#include <stdlib.h>
#include <string.h>

enum { WALK_BUDGET = 96 };

static bool read_program(void *ctx, uint64_t addr, void *buf, size_t n)
{
    return tracee_read_as_program(((struct execution *)ctx)->vm_pid, addr, buf, n);
}

static bool write_program(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    return tracee_write_as_program(((struct execution *)ctx)->vm_pid, addr, buf, n);
}

void exec_tso_begin(struct execution *ex)
{
    if (ex->cfg->memory_model != MEMORY_TSO)
        return;
    struct store_memory mem = {read_program, write_program, ex};
    ex->tso = store_buffers_new(&mem);
}

void exec_tso_end(struct execution *ex)
{
    store_buffers_free(ex->tso);
    ex->tso = NULL;
    free(ex->tso_walks);
    ex->tso_walks = NULL;
}

/* The operation t is stopped before can keep earlier stores pending: a
 * plain access mdat carries out itself (a store enters the buffer), or a
 * plain load the CPU runs (it reads through the thread's own stores). */
static bool keeps_buffer(const struct mthread *t)
{
    if (t->op != OP_ACCESS || !t->site)
        return false;
    const struct x86_insn *in = &t->site->insn;
    if (in->flags & X86_ATOMIC)
        return false;
    return in->emulation != X86_EMU_NONE || x86_is_split_rmw(in) || !(in->flags & X86_MEM_WRITE);
}

bool exec_tso_buffers_store(const struct mthread *t)
{
    return keeps_buffer(t);
}

bool exec_tso_before_step(struct execution *ex, struct mthread *t)
{
    if (!ex->tso)
        return true;
    if (!store_buffers_view(ex->tso, t->id))
        return false;
    if (!keeps_buffer(t) || (ex->signals_seen && exec_signal_pending(ex, t)))
        return store_buffers_drain(ex->tso, t->id);
    return true;
}

bool exec_tso_record_store(struct execution *ex, uint64_t addr, const void *value, size_t n)
{
    uint8_t replaced[8];
    if (n > 8 || !tracee_read_as_program(ex->vm_pid, addr, replaced, n))
        return false;
    if (!tracee_write_as_program(ex->vm_pid, addr, value, n))
        return false;
    store_buffers_add(ex->tso, addr, (unsigned)n, value, replaced, ex->tso_store_pc, ex->steps);
    return true;
}

/* ---------- the walk to the next visible operation ---------- */

struct walk_memo {
    uint64_t rip;
    bool safe;
};

static bool memo_find(const struct execution *ex, uint64_t rip, bool *safe)
{
    for (size_t i = 0; i < ex->n_tso_walks; i++)
        if (ex->tso_walks[i].rip == rip) {
            *safe = ex->tso_walks[i].safe;
            return true;
        }
    return false;
}

static void memo_add(struct execution *ex, uint64_t rip, bool safe)
{
    if (ex->n_tso_walks == ex->cap_tso_walks) {
        ex->cap_tso_walks = ex->cap_tso_walks ? ex->cap_tso_walks * 2 : 32;
        ex->tso_walks = realloc(ex->tso_walks, ex->cap_tso_walks * sizeof *ex->tso_walks);
        if (!ex->tso_walks)
            abort();
    }
    ex->tso_walks[ex->n_tso_walks++] = (struct walk_memo){rip, safe};
}

/* Where the function the thread stands in returns to, when it keeps a
 * frame pointer: the return address above the saved rbp. The walk follows
 * a ret there only after the epilogue (leave, pop rbp) that makes this so. */
static uint64_t caller_of(struct execution *ex, const struct mthread *t)
{
    uint64_t ret = 0;
    if (!t->regs.rbp || !tracee_read(ex->mem_fd, t->regs.rbp + 8, &ret, sizeof ret) ||
        !code_map_is_user_code(ex->cfg->code, ret))
        return 0;
    return ret;
}

/* Every path from rip reaches a visible operation (a site of the code map)
 * through user code that neither calls, jumps indirectly nor orders
 * memory, within WALK_BUDGET instructions; a path may return once, from the
 * function the thread stands in to its caller. */
static bool walk_reaches_visible(struct execution *ex, const struct mthread *t, bool *returned)
{
    *returned = false;
    uint64_t todo[WALK_BUDGET], seen[WALK_BUDGET];
    bool after_epilogue[WALK_BUDGET];
    size_t n_todo = 0, n_seen = 0;
    uint64_t caller = caller_of(ex, t);
    bool epilogue = false;
    todo[n_todo] = t->regs.rip;
    after_epilogue[n_todo++] = false;
    while (n_todo > 0) {
        --n_todo;
        uint64_t at = todo[n_todo];
        epilogue = after_epilogue[n_todo];
        bool known = false;
        for (size_t i = 0; i < n_seen && !known; i++)
            known = seen[i] == at;
        if (known)
            continue;
        if (n_seen == WALK_BUDGET || !code_map_is_user_code(ex->cfg->code, at))
            return false;
        seen[n_seen++] = at;
        struct breakpoint_hit hit;
        if (code_map_lookup(ex->cfg->code, at, &hit) && hit.kind == BP_SITE)
            continue;   /* the thread stops there */
        uint8_t code[16];
        if (!tracee_read(ex->mem_fd, at, code, sizeof code) || code[0] == 0xcc)
            return false;   /* another breakpoint of ours: not plain code */
        struct x86_flow f = x86_flow_of(code, sizeof code, at);
        switch (f.kind) {
        case X86_FLOW_NEXT:
            after_epilogue[n_todo] = f.pops_frame;
            todo[n_todo++] = f.next;
            break;
        case X86_FLOW_JUMP:
            after_epilogue[n_todo] = false;
            todo[n_todo++] = f.target;
            break;
        case X86_FLOW_BRANCH:
            if (n_todo + 2 > WALK_BUDGET)
                return false;
            after_epilogue[n_todo] = false;
            todo[n_todo++] = f.target;
            after_epilogue[n_todo] = false;
            todo[n_todo++] = f.next;
            break;
        case X86_FLOW_RETURN:
            /* Only the first return, out of the thread's own frame. */
            if (!epilogue || !caller)
                return false;
            after_epilogue[n_todo] = false;
            todo[n_todo++] = caller;
            caller = 0;
            *returned = true;
            break;
        case X86_FLOW_END:
        case X86_FLOW_UNKNOWN:
            return false;
        }
        if (n_todo >= WALK_BUDGET)
            return false;
    }
    return true;
}

bool exec_tso_before_native(struct execution *ex, struct mthread *t)
{
    if (!ex->tso || store_buffers_pending(ex->tso, t->id) == 0)
        return true;
    /* The answer depends on the caller too when the walk returns: memoized
     * by rip alone only when it did not need to. */
    bool safe;
    if (!memo_find(ex, t->regs.rip, &safe)) {
        bool returned;
        safe = walk_reaches_visible(ex, t, &returned);
        if (!returned)
            memo_add(ex, t->regs.rip, safe);
    }
    return safe || store_buffers_drain(ex->tso, t->id);
}

bool exec_tso_drain(struct execution *ex, struct mthread *t)
{
    return !ex->tso || store_buffers_drain(ex->tso, t->id);
}

size_t exec_tso_flush_candidates(const struct execution *ex, int *ids, size_t max)
{
    if (!ex->tso)
        return 0;
    size_t n = store_buffers_threads(ex->tso, ids, max);
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++)
        ids[i] = -ids[i];
    return n;
}

/* An x86 core drains its store buffer within some hundreds of cycles,
 * whatever runs: a schedule that kept a store pending for ever would show
 * threads spinning on a value no CPU keeps from them (a livelock that is
 * none). Past this many steps a pending store is committed before anything
 * else runs; store buffering's outcomes need a few steps, not a thousand. */
enum { TSO_DRAIN_STEPS = 1000 };

int exec_tso_overdue(const struct execution *ex)
{
    if (!ex->tso)
        return 0;
    int ids[64];
    size_t n = store_buffers_threads(ex->tso, ids, 64);
    for (size_t i = 0; i < n && i < 64; i++) {
        const struct pending_store *e = store_buffers_oldest(ex->tso, ids[i]);
        if (e && e->step + TSO_DRAIN_STEPS <= ex->steps)
            return ids[i];
    }
    return 0;
}

bool exec_tso_flush(struct execution *ex, int thread, struct pending_store *flushed)
{
    const struct pending_store *e = store_buffers_oldest(ex->tso, thread);
    if (!e)
        return false;
    *flushed = *e;
    return store_buffers_commit_oldest(ex->tso, thread);
}
