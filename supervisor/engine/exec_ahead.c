/* exec_ahead: running a thread's own code ahead in mdat.
 *
 * Between two visible operations a thread mostly runs the user's code on
 * its own stack: at -O0, moves between registers and locals, calls and
 * returns through small functions (C++'s iterators, lock_guard, size()),
 * branches. Letting the CPU run such a stretch costs a ptrace stop where it
 * meets the next breakpoint (an access that may be shared, or one through
 * a pointer to the thread's own stack that is not). mdat carries the
 * stretch out with its emulator instead, instruction by instruction, up to
 * the next address that has a breakpoint: the thread is then where it
 * would have stopped, and the engine handles that breakpoint as if it had,
 * with no stop taken. Only the executable's code is run this way, only
 * instructions the emulator carries out exactly (arch/x86_emulate.c, the
 * CPU its oracle); the CPU takes over at any other, when the code leaves
 * the executable (a library call), after AHEAD_MAX instructions, and next
 * time a thread would start ahead where that happened before.
 *
 * MDAT_NO_RUN_AHEAD=1 in the environment turns it off: the traces must be
 * the same either way (e2e.run_ahead compares them).
 *
 * The thread's stack around its first access is read once into a window and written
 * back before anything else looks at the program's memory; other
 * addresses are read and written in the program directly, with its own
 * page rights. Nothing else runs meanwhile: every other thread is stopped,
 * so the window cannot go stale. */
#include "supervisor/engine/exec_ahead.h"
#include "supervisor/engine/exec_engine.h"

#include <stdlib.h>
#include <string.h>

/* About the work of one ptrace stop: more rarely pays. */
enum { AHEAD_MAX = 256, WINDOW = 4096, WINDOW_BELOW = 2048 };

struct window {
    struct execution *ex;
    const struct mthread *t;
    uint64_t lo, hi;            /* hi == lo: none (yet, or none possible) */
    uint64_t dirty_lo, dirty_hi;
    bool tried;
    uint8_t bytes[WINDOW];
};

/* At the first access the code makes: the window around it, when it is on
 * the thread's stack (where the code of a stretch run ahead works). */
static void load_window(struct window *w, uint64_t near)
{
    const struct mthread *t = w->t;
    w->tried = true;
    if (!t->stack_hi || near < t->stack_lo || near >= t->stack_hi)
        return;
    uint64_t lo = near - t->stack_lo > WINDOW_BELOW ? near - WINDOW_BELOW : t->stack_lo;
    uint64_t hi = t->stack_hi - lo > WINDOW ? lo + WINDOW : t->stack_hi;
    if (tracee_read_as_program(w->ex->vm_pid, lo, w->bytes, (size_t)(hi - lo))) {
        w->lo = lo;
        w->hi = hi;
        w->dirty_lo = hi;
        w->dirty_hi = lo;
    }
}

static bool write_back(struct window *w)
{
    if (w->dirty_lo >= w->dirty_hi)
        return true;
    if (!tracee_write_as_program(w->ex->vm_pid, w->dirty_lo, w->bytes + (w->dirty_lo - w->lo),
                                 (size_t)(w->dirty_hi - w->dirty_lo)))
        return false;   /* still dirty: the last write-back reports it */
    w->dirty_lo = w->hi;
    w->dirty_hi = w->lo;
    return true;
}

/* [addr, addr + n) is inside the window: 1; outside it: 0; across its edge:
 * -1 (written back and dropped, so that the program's memory is the truth). */
static int in_window(struct window *w, uint64_t addr, size_t n)
{
    if (!w->tried)
        load_window(w, addr);
    if (addr >= w->lo && addr + n <= w->hi)
        return 1;
    if (addr + n <= w->lo || addr >= w->hi)
        return 0;
    if (!write_back(w))
        return -1;
    w->lo = w->hi = 0;
    return 0;
}

static bool read_memory(void *ctx, uint64_t addr, void *buf, size_t n)
{
    struct window *w = ctx;
    int inside = in_window(w, addr, n);
    if (inside > 0)
        memcpy(buf, w->bytes + (addr - w->lo), n);
    return inside > 0 || (inside == 0 && tracee_read_as_program(w->ex->vm_pid, addr, buf, n));
}

static bool write_memory(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    struct window *w = ctx;
    int inside = in_window(w, addr, n);
    if (inside > 0) {
        memcpy(w->bytes + (addr - w->lo), buf, n);
        if (addr < w->dirty_lo)
            w->dirty_lo = addr;
        if (addr + n > w->dirty_hi)
            w->dirty_hi = addr + n;
    }
    return inside > 0 || (inside == 0 && tracee_write_as_program(w->ex->vm_pid, addr, buf, n));
}

static uint64_t *refused_slot(struct execution *ex, uint64_t start)
{
    return &ex->ahead_refused[(start * 0x9e3779b97f4a7c15ull >> 40) % EXEC_AHEAD_MEMO];
}

static bool turned_off(void)
{
    static int off = -1;
    if (off < 0) {
        const char *env = getenv("MDAT_NO_RUN_AHEAD");
        off = env && strcmp(env, "1") == 0;
    }
    return off;
}

enum ahead_end exec_run_ahead(struct execution *ex, struct mthread *t, uint64_t *at)
{
    uint64_t start = t->regs.rip;
    if (turned_off() || *refused_slot(ex, start) == start || !code_map_insn_at(ex->cfg->code, start))
        return AHEAD_NATIVE;
    static struct window w;     /* 4 KB: one run ahead at a time */
    w.ex = ex;
    w.t = t;
    w.lo = w.hi = w.dirty_lo = w.dirty_hi = 0;     /* nothing to write back yet */
    w.tried = false;
    struct x86_memory mem = {read_memory, write_memory, &w};
    struct user_regs_struct regs = t->regs;
    bool arrived = false;
    int n = 0;
    for (; n < AHEAD_MAX; n++) {
        uint8_t orig;
        if (exec_breakpoint_orig(ex, regs.rip, &orig)) {
            arrived = true;
            break;
        }
        const struct x86_insn *in = code_map_insn_at(ex->cfg->code, regs.rip);
        if (!in || in->emulation == X86_EMU_NONE || (in->flags & X86_ATOMIC))
            break;
        if (!x86_emulate(in, &regs, &mem))
            break;
    }
    if (!write_back(&w)) {
        exec_set_error(ex, "cannot write T%d's stack back after running it ahead", t->id);
        return AHEAD_FAILED;
    }
    if (n > 0) {
        t->regs = regs;
        t->regs_dirty = true;
    }
    if (!arrived) {
        *refused_slot(ex, start) = start;
        return AHEAD_NATIVE;
    }
    *at = regs.rip;
    return AHEAD_ARRIVED;
}
