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
 * with no stop taken. The stretch may go through the libraries loaded
 * with the program (a mutex lock's fast path in libc, a PLT stub, an
 * inline-able helper of libstdc++): they run without preemption anyway.
 * Only instructions the emulator carries out exactly are run this way
 * (arch/x86_emulate.c and, for vector code, x86_native.c: the CPU their
 * oracle); the CPU takes over at any other (a system call, a string
 * instruction, one mdat cannot decode), in code loaded later, generated or
 * being rewritten (code_map_insn_at), past the cost of one stop, and
 * from a start where that
 * is what mostly happens. A futex call is where it may stop too: mdat
 * answers those itself, so the thread is then as at its seccomp stop.
 *
 * MDAT_NO_RUN_AHEAD=1 in the environment turns it off: the traces must be
 * the same either way (e2e.run_ahead compares them).
 *
 * Memory is read and written with the program's own page rights, through
 * the copies of its pages that page_cache.c keeps while no thread runs:
 * a stretch costs no system call for the stack, the lock or the counter
 * it has touched before. */
#include "supervisor/engine/exec_ahead.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_pages.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/vector_regs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* What a stretch costs, in units of one emulated instruction: a page read
 * into page_cache.c (a system call and 4 KB) is worth a few dozen, and a
 * ptrace stop, which an arrival spares, a few hundred. A stretch never
 * costs more than the stop it would spare: a loop walking an array pays a
 * page read every few instructions, and the CPU runs it far faster. */
enum { STOP_COST = 256, PAGE_READ_COST = 32, AHEAD_TRIES = 3 };

/* Through the program's own page rights, and page_cache.c: while the
 * thread runs ahead, nothing else runs, so what was read stays true. */
bool exec_read_as_program(void *ctx, uint64_t addr, void *buf, size_t n)
{
    struct execution *ex = ctx;
    if (!tracee_read_as_program(ex->vm_pid, addr, buf, n))
        return false;
    code_map_hide_breakpoints(ex->cfg->code, addr, buf, n);     /* code that reads itself */
    return true;
}

static bool write_memory(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    return tracee_write_as_program(((struct execution *)ctx)->vm_pid, addr, buf, n);
}

/* Two places a start may be remembered at: two starts that share one
 * would otherwise keep wiping each other's counts. */
static struct ahead_memo *memo_pair(struct execution *ex, uint64_t start)
{
    return &ex->ahead_memo[((start * 0x9e3779b97f4a7c15ull >> 40) % EXEC_AHEAD_MEMO) & ~(uint64_t)1];
}

static struct ahead_memo *memo_of(struct execution *ex, uint64_t start)
{
    struct ahead_memo *pair = memo_pair(ex, start);
    return pair[0].start == start ? &pair[0] : pair[1].start == start ? &pair[1] : NULL;
}

/* A start that failed may succeed next time: the first call through a
 * lazily bound PLT goes through the loader, a lock takes its futex path
 * when contended, malloc its slow path now and then. A start is left to
 * the CPU when its stretches cost more than the stops their arrivals
 * spared: a try that gives up costs its emulation on top of the stop. The
 * balance, not the share of arrivals, decides: from one place in a loop
 * over a falsely shared page, every other stretch arrives at once (the
 * next access is on that page) and the rest give up after a full budget.
 * Halving the counts lets the memo follow a change. */
static bool refused(struct execution *ex, uint64_t start)
{
    const struct ahead_memo *m = memo_of(ex, start);
    return m && m->tries >= AHEAD_TRIES && m->spent > m->saved;
}

static void remember(struct execution *ex, uint64_t start, bool arrived, uint32_t cost)
{
    struct ahead_memo *m = memo_of(ex, start);
    if (!m) {
        struct ahead_memo *pair = memo_pair(ex, start);
        m = pair[0].tries <= pair[1].tries ? &pair[0] : &pair[1];     /* the less known one goes */
        m->start = start;
        m->tries = m->spent = m->saved = 0;
    }
    if (m->tries == 64) {
        m->tries /= 2;
        m->spent /= 2;
        m->saved /= 2;
    }
    m->tries++;
    m->spent += cost;
    m->saved += arrived ? STOP_COST : 0;
}

/* A futex call, which the seccomp filter always stops and mdat always
 * answers itself (exec_futex.c): the kernel never runs it. */
static bool is_futex_call(const struct x86_insn *in, const struct user_regs_struct *regs)
{
    return in && (in->flags & X86_SYSCALL) && strncmp(in->text, "syscall", 7) == 0 && regs->rax == SYS_futex;
}

/* The registers as the kernel shows them at the call's seccomp stop: past
 * the instruction, which has put the return address in rcx and the flags in
 * r11; the call's number in orig_rax, and rax not yet a result. */
static void enter_seccomp_stop(struct user_regs_struct *regs, const struct x86_insn *in)
{
    regs->rip += in->length;
    regs->rcx = regs->rip;
    regs->r11 = regs->eflags;
    regs->orig_rax = regs->rax;
    regs->rax = (uint64_t)-ENOSYS;
}

/* The program's memory may be shared with a forked child that runs free
 * (MAP_SHARED): an atomic instruction mdat carried out as a read and a
 * write would not be atomic against it. */
static bool may_emulate(const struct execution *ex, const struct x86_insn *in)
{
    return in && in->emulation != X86_EMU_NONE && (!(in->flags & X86_ATOMIC) || ex->n_passive == 0);
}

static uint32_t stretch_cost(int instructions, uint64_t reads_before)
{
    return (uint32_t)instructions + PAGE_READ_COST * (uint32_t)(page_cache_pages_read() - reads_before);
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

/* With page ownership, where the CPU would fault on a page the thread may
 * not touch natively, mdat judges the touch as the fault would be: the
 * page taken over (running ahead goes on), library code's access (carried
 * out here too), or the access that is the thread's next step. */
static enum page_verdict check_pages(struct execution *ex, struct mthread *t, const struct x86_insn *in,
                                     const struct user_regs_struct *regs)
{
    for (int i = 0; i < in->n_mem; i++) {
        uint64_t addr = x86_effective_address(in, i, regs);
        bool write = in->mem[i].write;
        if (exec_pages_native(ex, t, addr, write))
            continue;
        enum page_verdict v = exec_pages_touch(ex, t, regs, in, addr, write);
        if (v == PV_VISIBLE || v == PV_RESTART)
            return v;
    }
    return PV_GO_ON;
}

enum ahead_end exec_run_ahead(struct execution *ex, struct mthread *t, uint64_t *at)
{
    uint64_t start = t->regs.rip;
    bool planted;
    if (turned_off() || refused(ex, start) || !code_map_insn_at(ex->cfg->code, ex->mem_fd, start, &planted))
        return AHEAD_NATIVE;
    struct x86_memory mem = {exec_read_as_program, write_memory, ex, vector_regs_fetch, vector_regs_mark_changed};
    struct user_regs_struct regs = t->regs;
    vector_regs_set_thread(t->tid);
    bool arrived = false, at_futex = false;
    uint64_t reads_before = page_cache_pages_read();
    uint32_t cost = 0;
    int n = 0;
    for (; (cost = stretch_cost(n, reads_before)) < STOP_COST; n++) {
        const struct x86_insn *in = code_map_insn_at(ex->cfg->code, ex->mem_fd, regs.rip, &planted);
        if (planted || exec_return_break_at(ex, regs.rip)) {
            arrived = true;
            break;
        }
        if (is_futex_call(in, &regs)) {
            enter_seccomp_stop(&regs, in);
            arrived = at_futex = true;
            break;
        }
        if (!may_emulate(ex, in))
            break;
        if (ex->pages && in->n_mem) {
            enum page_verdict v = check_pages(ex, t, in, &regs);
            if (v != PV_GO_ON) {
                t->regs = regs;
                t->regs_dirty = true;
                remember(ex, start, true, cost);
                return v == PV_VISIBLE ? AHEAD_ACCESS : AHEAD_RESTART;
            }
        }
        if (!x86_emulate(in, &regs, &mem))
            break;
    }

    if (n > 0) {
        t->regs = regs;
        t->regs_dirty = true;
    }
    remember(ex, start, arrived, cost);
    if (!arrived)
        return AHEAD_NATIVE;
    *at = regs.rip;
    return at_futex ? AHEAD_SYSCALL : AHEAD_ARRIVED;
}
