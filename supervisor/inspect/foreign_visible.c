/* foreign_visible: one held thread run to its next visible operation and
 * through it (see foreign_visible.h). Owns the int3s of a step (planted
 * only while the thread runs freely), what a stop at one means, and
 * carrying out the operation found; the hold itself is foreign_attach.c's,
 * the system-call step foreign_step.c's. */
#include "supervisor/inspect/foreign_visible.h"
#include "supervisor/code/code_map.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>

/* A modeled function's first instruction, and the byte its int3 replaces. */
struct entry {
    uint64_t addr;
    enum model_fn fn;
    uint8_t orig;
};

/* One step: what it plants, the thread it runs and what it found. */
struct visible_run {
    struct foreign_process *p;
    size_t index;
    const struct foreign_code *fc;
    struct entry *entries;
    size_t n_entries;
    struct proc_maps maps;
    x86_decoder *dec;
    int wait_ms;
    uint64_t deadline;
    bool sleeping;          /* it was in a sleep when the step began: the call's restart is that sleep */
    bool at_call_entry;     /* stopped entering a call that passes: it runs no code of its own before the
                             * call's exit stop, so nothing needs planting meanwhile */
    bool trapped;           /* the last stop blocked() took was an int3's or single step's SIGTRAP */
    struct foreign_step *out;
    char *err;
    size_t errlen;
};

/* The thread stepped (adopting a thread may move the array). */
static struct foreign_thread *self(const struct visible_run *run)
{
    return &run->p->threads[run->index];
}

/* ---- the places a step plants ---- */

static bool has_entry(const struct entry *e, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].addr == addr)
            return true;
    return false;
}

/* The modeled functions' entries in every module that defines them (the
 * C library; a static executable), each address once. *out malloc'd. */
static size_t find_entries(const struct foreign_code *fc, struct entry **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t m = 0; m < fc->n_modules; m++) {
        const struct foreign_module *mod = &fc->modules[m];
        if (!mod->di)
            continue;
        for (int fn = 0; fn < MF_COUNT; fn++) {
            if (!model_fn_is_scheduling_point((enum model_fn)fn))
                continue;
            uint64_t addrs[8];
            size_t k = elf_image_symbol_addrs(debuginfo_elf(mod->di), model_fn_name((enum model_fn)fn), addrs, 8);
            for (size_t i = 0; i < k && i < 8; i++) {
                uint64_t at = addrs[i] + mod->bias;
                if (!addrs[i] || at < mod->lo || at >= mod->hi || has_entry(*out, n, at))
                    continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 32;
                    struct entry *grown = realloc(*out, cap * sizeof *grown);
                    if (!grown)
                        return n;
                    *out = grown;
                }
                (*out)[n++] = (struct entry){.addr = at, .fn = (enum model_fn)fn};
            }
        }
    }
    return n;
}

size_t foreign_visible_places(const struct foreign_code *fc, size_t *n_sites, size_t *n_entries)
{
    struct entry *e;
    *n_entries = find_entries(fc, &e);
    free(e);
    *n_sites = 0;
    for (size_t m = 0; m < fc->n_modules; m++)
        if (fc->modules[m].user)
            *n_sites += fc->modules[m].user->n_sites;
    return *n_sites + *n_entries;
}

/* int3s on every site and entry (on), or the original bytes back (off). */
static bool plant(struct visible_run *run, bool on)
{
    int fd = run->p->mem_fd;
    bool ok = true;
    for (size_t m = 0; m < run->fc->n_modules; m++) {
        const struct foreign_module *mod = &run->fc->modules[m];
        if (mod->user && mod->user->n_sites)
            ok &= site_table_write(mod->user, mod->bias, fd, on ? SITES_ALL : SITES_NONE);
    }
    static const uint8_t int3 = 0xcc;
    for (size_t i = 0; i < run->n_entries; i++) {
        struct entry *e = &run->entries[i];
        if (on)
            ok &= tracee_read(fd, e->addr, &e->orig, 1) && tracee_write(fd, e->addr, &int3, 1);
        else
            ok &= tracee_write(fd, e->addr, &e->orig, 1);
    }
    return ok;
}

static const struct code_site *site_at(const struct foreign_code *fc, uint64_t pc)
{
    const struct foreign_module *mod = foreign_module_at(fc, pc);
    uint8_t orig;
    return mod && mod->user ? site_table_lookup(mod->user, pc - mod->bias, &orig) : NULL;
}

static const struct entry *entry_at(const struct visible_run *run, uint64_t pc)
{
    for (size_t i = 0; i < run->n_entries; i++)
        if (run->entries[i].addr == pc)
            return &run->entries[i];
    return NULL;
}

/* ---- the thread's stops ---- */

static bool get_regs(struct foreign_thread *t)
{
    return t->have_regs = ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) == 0;
}

static bool set_regs(struct visible_run *run)
{
    struct foreign_thread *t = self(run);
    if (ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs) == 0)
        return true;
    snprintf(run->err, run->errlen, "cannot set thread %d's registers: %s", (int)t->tid, strerror(errno));
    return false;
}

static bool resume(struct visible_run *run, int request)
{
    struct foreign_thread *t = self(run);
    int sig = t->resend_signal;
    if (ptrace(request, t->tid, 0, (void *)(long)sig) != 0) {
        snprintf(run->err, run->errlen, "cannot resume thread %d: %s", (int)t->tid, strerror(errno));
        return false;
    }
    t->resend_signal = 0;
    return true;
}

/* STOP_EVENT: a group stop; STOP_FAILED: ptrace failed (the run's err says why). */
enum stop { STOP_ENDED, STOP_TIMEOUT, STOP_TRAP, STOP_SYSCALL, STOP_CLONE, STOP_SIGNAL, STOP_EVENT, STOP_FAILED };

/* The thread's next stop by the run's deadline, its registers read. */
static enum stop wait_stop(struct visible_run *run, int *status)
{
    struct foreign_thread *t = self(run);
    pid_t r = foreign_step_wait_until(t->tid, run->deadline, 20000, status);
    if (r < 0 || (r == t->tid && foreign_step_status_ended(*status))) {
        foreign_step_thread_ended(t, run->out);
        return STOP_ENDED;
    }
    if (r == 0)
        return STOP_TIMEOUT;
    get_regs(t);
    int event = *status >> 16, sig = WSTOPSIG(*status);
    if (event == PTRACE_EVENT_CLONE)
        return STOP_CLONE;
    if (event != 0)
        return STOP_EVENT;
    if (sig == (SIGTRAP | 0x80))
        return STOP_SYSCALL;
    return sig == SIGTRAP ? STOP_TRAP : STOP_SIGNAL;
}

/* Outran the deadline: held again where it waits (in the call it made,
 * when it is inside one). false only when ptrace failed. */
static bool blocked(struct visible_run *run)
{
    int status = 0;
    struct foreign_thread *t = self(run);
    enum interrupted again = foreign_step_interrupt(t, &status, run->out, run->err, run->errlen);
    if (again != INTERRUPT_STOPPED)
        return again == INTERRUPT_ENDED;
    t = self(run);
    get_regs(t);
    run->trapped = (status >> 16) == 0 && WSTOPSIG(status) == SIGTRAP;
    if ((status >> 16) == PTRACE_EVENT_CLONE)
        foreign_step_adopt(run->p, run->index, run->out);
    t = self(run);
    run->out->end = FSTEP_BLOCKED;
    int64_t rax = (int64_t)t->regs.rax;
    run->out->nr = (int64_t)t->regs.orig_rax >= 0 && rax <= -512 && rax >= -516 ? (long)t->regs.orig_rax : -1;
    return true;
}

static void took_signal(struct visible_run *run, int status)
{
    run->out->end = FSTEP_SIGNAL;
    run->out->signal = WSTOPSIG(status);
    self(run)->resend_signal = run->out->signal;
}

/* One instruction, nothing planted. STOP_TRAP when it ran. */
static enum stop single_step(struct visible_run *run, int *status)
{
    if (!resume(run, PTRACE_SINGLESTEP))
        return STOP_FAILED;
    enum stop s = wait_stop(run, status);
    if (s == STOP_CLONE)
        foreign_step_adopt(run->p, run->index, run->out);
    return s;
}

/* ---- describing an operation as a trace does ---- */

static void name_data(const struct visible_run *run, uint64_t addr, char *buf, size_t len)
{
    foreign_name_data(run->fc, addr, buf, len);
    if (!buf[0])
        snprintf(buf, len, "%#llx", (unsigned long long)addr);
}

static void set_where(const struct visible_run *run, uint64_t pc, struct trace_event *ev)
{
    ev->pc = pc;
    foreign_format_code(run->fc, pc, ev->where, sizeof ev->where);
    struct src_loc loc;
    if (foreign_code_location(run->fc, pc, &loc)) {
        const char *slash = loc.file ? strrchr(loc.file, '/') : NULL;
        snprintf(ev->file, sizeof ev->file, "%s", slash ? slash + 1 : loc.file ? loc.file : "");
        ev->line = loc.line;
    }
    foreign_function_name(run->fc, pc, ev->function, sizeof ev->function);
}

/* Where the user's code is, for a call library code makes (a futex, a sleep). */
static void set_user_where(const struct visible_run *run, struct trace_event *ev)
{
    struct foreign_frames fr;
    foreign_find_frames(run->fc, &self(run)->regs, &fr);
    if (fr.user_pc)
        set_where(run, fr.user_pc, ev);
}

static int64_t sized(uint64_t raw, unsigned size)
{
    switch (size) {
    case 1: return (int8_t)raw;
    case 2: return (int16_t)raw;
    case 4: return (int32_t)raw;
    default: return (int64_t)raw;
    }
}

static void read_value(const struct visible_run *run, uint64_t addr, unsigned size, const char *arrow, char *buf,
                       size_t len)
{
    uint64_t raw = 0;
    if (size == 0 || size > 8 || !tracee_read(run->p->mem_fd, addr, &raw, size))
        return;
    snprintf(buf, len, "%s %lld", arrow, (long long)sized(raw, size));
}

/* ---- a memory access of the user's code ---- */

struct access {
    struct x86_insn insn;
    uint64_t addr;
    unsigned size;
    bool read, write;
};

/* The thread's own stack (the mapping its stack pointer is in) and
 * constant memory are no one else's business; fs/gs accesses are its
 * thread-local storage. */
static bool shared_operand(const struct visible_run *run, const struct x86_mem_operand *m, uint64_t addr)
{
    if (m->segment)
        return false;
    const struct proc_mapping *at = proc_maps_find(&run->maps, addr);
    const struct proc_mapping *stack = proc_maps_find(&run->maps, self(run)->regs.rsp);
    if (at && at == stack)
        return false;
    return !(at && !at->write && !m->write);
}

/* The instruction at pc, a site of the user's code, decoded from memory
 * (nothing planted): does it touch shared memory? */
static bool visible_access(struct visible_run *run, uint64_t pc, struct access *a)
{
    uint8_t code[15];
    size_t got = sizeof code;
    while (got && !tracee_read(run->p->mem_fd, pc, code, got))
        got--;
    memset(a, 0, sizeof *a);
    if (!got || !x86_decode(run->dec, code, got, pc, &a->insn))
        return false;
    bool visible = a->insn.flags & X86_ATOMIC;
    for (int i = 0; i < a->insn.n_mem; i++) {
        const struct x86_mem_operand *m = &a->insn.mem[i];
        uint64_t addr = x86_effective_address(&a->insn, i, &self(run)->regs);
        if (!shared_operand(run, m, addr))
            continue;
        if (!visible || !a->addr) {
            a->addr = addr;
            a->size = m->size;
        }
        visible = true;
        a->read |= m->read;
        a->write |= m->write;
    }
    return visible && a->addr;
}

static bool carry_out_access(struct visible_run *run, const struct access *a)
{
    struct trace_event *ev = &run->out->op;
    struct foreign_step *out = run->out;
    bool cas = a->insn.emulation == X86_EMU_CMPXCHG;
    snprintf(ev->op, sizeof ev->op, "%s",
             cas ? "cas" : (a->insn.flags & X86_ATOMIC) ? "atomic" : a->read && a->write ? "RMW" : a->write ? "W" : "R");
    ev->addr = a->addr;
    name_data(run, a->addr, ev->object, sizeof ev->object);
    set_where(run, self(run)->regs.rip, ev);
    out->has_op = true;
    struct user_regs_struct before = self(run)->regs;
    uint64_t found = 0;
    tracee_read(run->p->mem_fd, a->addr, &found, a->size <= 8 ? a->size : 0);
    if (a->read && !a->write)
        read_value(run, a->addr, a->size, "->", ev->value, sizeof ev->value);
    int status = 0;
    enum stop s = single_step(run, &status);
    if (s == STOP_TIMEOUT)
        return blocked(run);
    if (s == STOP_ENDED || s == STOP_CLONE)
        return true;
    if (s == STOP_SIGNAL) {
        took_signal(run, status);   /* a fault of the access itself comes again at its next step */
        return true;
    }
    if (s == STOP_EVENT)
        out->end = FSTEP_BLOCKED;
    if (s != STOP_TRAP)
        return s != STOP_FAILED;
    struct x86_cas outcome;
    if (cas && a->size <= 8 && x86_cas_outcome(&a->insn, &before, found, &outcome))
        snprintf(ev->value, sizeof ev->value, outcome.stored ? "expected %lld -> stored %lld" : "expected %lld, found %lld -> failed",
                 (long long)sized(outcome.expected, outcome.size),
                 (long long)sized(outcome.stored ? outcome.desired : outcome.found, outcome.size));
    else if (a->write)
        read_value(run, a->addr, a->size, ":=", ev->value, sizeof ev->value);
    out->end = FSTEP_VISIBLE;
    return true;
}

/* ---- a call of a modeled function from the user's code ---- */

/* glibc's struct pthread keeps the thread's id here (x86-64, 2.28 on),
 * which pthread_join's argument points to; checked against the held
 * threads before it is believed. */
enum { PTHREAD_TID_OFFSET = 0x2d0 };

static void name_call_object(struct visible_run *run, enum model_fn fn, struct trace_event *ev)
{
    const struct user_regs_struct *r = &self(run)->regs;
    if (fn == MF_THREAD_CREATE) {
        foreign_function_name(run->fc, r->rdx, ev->object, sizeof ev->object);
        return;
    }
    if (fn == MF_THREAD_JOIN) {
        int tid = 0;
        int number = tracee_read(run->p->mem_fd, r->rdi + PTHREAD_TID_OFFSET, &tid, sizeof tid)
                         ? foreign_thread_number(run->p, (pid_t)tid) : 0;
        if (number)
            snprintf(ev->object, sizeof ev->object, "T%d", number);
        return;
    }
    if (fn == MF_THREAD_EXIT)
        return;
    ev->addr = r->rdi;
    name_data(run, r->rdi, ev->object, sizeof ev->object);
}

/* What the call returned, when it says more than "done". */
static void call_result(struct visible_run *run, enum model_fn fn, struct trace_event *ev)
{
    int rax = (int)self(run)->regs.rax;
    if (fn == MF_THREAD_CREATE && run->out->new_tid) {
        int made = foreign_thread_number(run->p, run->out->new_tid);
        if (made)
            snprintf(ev->value, sizeof ev->value, "-> T%d", made);
    } else if (fn >= MF_SEM_WAIT && fn <= MF_SEM_POST) {
        if (rax != 0)
            snprintf(ev->value, sizeof ev->value, "-> %d", rax);
    } else if (rax > 0 && strerrorname_np(rax)) {
        snprintf(ev->value, sizeof ev->value, "-> %s", strerrorname_np(rax));
    }
}

/* The call's return: an int3 at its return address, hit with the stack
 * as it was before the call (a recursive entry steps over it). */
static bool run_to_return(struct visible_run *run, uint64_t ret, uint64_t rsp_after)
{
    int fd = run->p->mem_fd;
    uint8_t orig;
    static const uint8_t int3 = 0xcc;
    if (!tracee_read(fd, ret, &orig, 1) || !tracee_write(fd, ret, &int3, 1)) {
        snprintf(run->err, run->errlen, "cannot plant a breakpoint at %#llx", (unsigned long long)ret);
        return false;
    }
    run->deadline = monotonic_ns() + (uint64_t)run->wait_ms * 1000000u;
    for (;;) {
        if (monotonic_ns() >= run->deadline) {
            tracee_write(fd, ret, &orig, 1);
            return blocked(run);
        }
        if (!resume(run, PTRACE_CONT))
            break;
        int status = 0;
        enum stop s = wait_stop(run, &status);
        struct foreign_thread *t = self(run);
        if (s == STOP_CLONE) {
            foreign_step_adopt(run->p, run->index, run->out);
            continue;
        }
        if (s == STOP_SIGNAL) {
            t->resend_signal = WSTOPSIG(status);    /* the call takes it, as it would have */
            continue;
        }
        if (s == STOP_EVENT)
            continue;   /* a group stop: it goes on */
        tracee_write(fd, ret, &orig, 1);
        if (s == STOP_ENDED)
            return true;
        if (s == STOP_TIMEOUT)
            return blocked(run);
        if (s == STOP_TRAP && t->regs.rip - 1 == ret) {
            t->regs.rip = ret;
            if (!set_regs(run))
                return false;
            if (t->regs.rsp == rsp_after) {
                run->out->end = FSTEP_VISIBLE;
                return true;
            }
            enum stop over = single_step(run, &status);
            if (over != STOP_TRAP)
                return over == STOP_ENDED || (over == STOP_TIMEOUT && blocked(run));
        } else if (s == STOP_TRAP) {
            t->resend_signal = SIGTRAP;     /* the program's own */
        }
        if (!tracee_write(fd, ret, &int3, 1))
            break;
    }
    tracee_write(fd, ret, &orig, 1);
    return false;
}

static bool carry_out_call(struct visible_run *run, const struct entry *e, uint64_t ret)
{
    struct trace_event *ev = &run->out->op;
    snprintf(ev->op, sizeof ev->op, "%s", model_fn_verb(e->fn));
    name_call_object(run, e->fn, ev);
    if (foreign_is_user_code(run->fc, ret))
        set_where(run, ret - 1, ev);
    else
        set_user_where(run, ev);    /* the user's line that led into the library that calls it */
    run->out->has_op = true;
    enum model_fn fn = e->fn;
    if (!run_to_return(run, ret, self(run)->regs.rsp + 8))
        return false;
    if (run->out->end == FSTEP_VISIBLE)
        call_result(run, fn, ev);
    return true;
}

/* ---- the calls that are steps: futex, sleep, yield ---- */

static const char *futex_verb(uint64_t op)
{
    switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT: case FUTEX_WAIT_BITSET: case FUTEX_LOCK_PI: case FUTEX_WAIT_REQUEUE_PI: case 13 /* LOCK_PI2 */:
        return "futex-wait";
    case FUTEX_WAKE: case FUTEX_WAKE_BITSET: case FUTEX_WAKE_OP: case FUTEX_UNLOCK_PI: case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE: case FUTEX_CMP_REQUEUE_PI:
        return "futex-wake";
    default:
        return "futex";
    }
}

/* From a call's entry stop to its exit stop; the call runs (skip: it
 * does not, and returns 0). */
static bool finish_call(struct visible_run *run, bool skip)
{
    struct foreign_thread *t = self(run);
    if (skip) {
        t->regs.orig_rax = (unsigned long long)-1;
        if (!set_regs(run))
            return false;
    }
    run->deadline = monotonic_ns() + (uint64_t)run->wait_ms * 1000000u;
    if (!resume(run, PTRACE_SYSCALL))
        return false;
    int status = 0;
    enum stop s = wait_stop(run, &status);
    if (s == STOP_ENDED)
        return true;
    if (s == STOP_TIMEOUT)
        return blocked(run);
    if (s == STOP_CLONE)
        foreign_step_adopt(run->p, run->index, run->out);
    if (s == STOP_SIGNAL) {
        took_signal(run, status);
        return true;
    }
    if (s != STOP_SYSCALL)
        return true;
    if (skip) {
        self(run)->regs.rax = 0;
        if (!set_regs(run))
            return false;
    }
    run->out->end = FSTEP_VISIBLE;
    return true;
}

static bool is_sleep(const struct visible_run *run, long nr)
{
    return nr == SYS_nanosleep || nr == SYS_clock_nanosleep || (nr == SYS_restart_syscall && run->sleeping);
}

enum entered { CALL_PASSES, CALL_WAS_STEP, CALL_FAILED };

/* A system call the freely running thread enters: a step of its own, or
 * one that passes. */
static enum entered entered_call(struct visible_run *run, const struct __ptrace_syscall_info *info)
{
    long nr = (long)info->entry.nr;
    const uint64_t *args = (const uint64_t *)info->entry.args;
    struct trace_event *ev = &run->out->op;
    if (foreign_step_escapes(run->p, nr, args)) {
        foreign_step_refuse_escape(nr, run->out);
        return CALL_WAS_STEP;
    }
    bool skip = is_sleep(run, nr);
    if (nr == SYS_futex) {
        snprintf(ev->op, sizeof ev->op, "%s", futex_verb(args[1]));
        ev->addr = args[0];
        name_data(run, args[0], ev->object, sizeof ev->object);
    } else if (skip || nr == SYS_sched_yield) {
        snprintf(ev->op, sizeof ev->op, "%s", skip ? "sleep" : "yield");
    } else {
        return CALL_PASSES;
    }
    set_user_where(run, ev);
    run->out->has_op = true;
    run->out->nr = nr;
    if (!finish_call(run, skip))
        return CALL_FAILED;
    int64_t rax = (int64_t)self(run)->regs.rax;
    if (nr == SYS_futex && run->out->end == FSTEP_VISIBLE) {
        const char *e = rax < 0 ? strerrorname_np((int)-rax) : NULL;
        if (e)
            snprintf(ev->value, sizeof ev->value, "-> -%s", e);
        else
            snprintf(ev->value, sizeof ev->value, "-> %lld", (long long)rax);
    }
    return CALL_WAS_STEP;
}

/* ---- the step ---- */

enum look { LOOK_NOTHING, LOOK_PASSES, LOOK_DONE, LOOK_FAILED };

/* A modeled function called from ret's code is a step: from the user's
 * code, and from a library that is not the threading implementation itself
 * (libstdc++'s std::thread::join calls pthread_join; a tail call from the
 * user's function returns straight into such a library), but not from the
 * C library or the loader, whose own locks are theirs. */
static bool call_is_step(const struct foreign_code *fc, uint64_t ret)
{
    if (foreign_is_user_code(fc, ret))
        return true;
    const struct foreign_module *mod = foreign_module_at(fc, ret);
    if (!mod || mod->is_main)
        return false;   /* a static executable's C library, or code nobody knows */
    static const char *const runtime[] = {"libc.so", "libc-", "ld-linux", "libpthread"};
    for (size_t i = 0; i < sizeof runtime / sizeof *runtime; i++)
        if (strncmp(mod->base, runtime[i], strlen(runtime[i])) == 0)
            return false;
    return true;
}

/* What is at the thread's pc, nothing planted: a visible operation is
 * carried out (LOOK_DONE); a site or entry that is not one is stepped
 * over (LOOK_PASSES). */
static enum look look_at_pc(struct visible_run *run)
{
    uint64_t pc = self(run)->regs.rip;
    const struct entry *e = entry_at(run, pc);
    if (e) {
        uint64_t ret = 0;
        if (tracee_read(run->p->mem_fd, self(run)->regs.rsp, &ret, sizeof ret) && call_is_step(run->fc, ret))
            return carry_out_call(run, e, ret) ? LOOK_DONE : LOOK_FAILED;
    } else if (site_at(run->fc, pc)) {
        struct access a;
        if (visible_access(run, pc, &a))
            return carry_out_access(run, &a) ? LOOK_DONE : LOOK_FAILED;
    } else {
        return LOOK_NOTHING;
    }
    int status = 0;
    enum stop s = single_step(run, &status);
    if (s == STOP_TRAP)
        return LOOK_PASSES;
    if (s == STOP_TIMEOUT)
        return blocked(run) ? LOOK_DONE : LOOK_FAILED;
    if (s == STOP_SIGNAL)
        took_signal(run, status);
    if (s == STOP_EVENT)
        run->out->end = FSTEP_BLOCKED;
    return s == STOP_FAILED ? LOOK_FAILED : LOOK_DONE;
}

/* A stop of the freely running thread, everything unplanted again: true
 * when it runs on (*again: look at its pc first), false when the step
 * ended (*ok: without a ptrace failure). */
static bool free_stop(struct visible_run *run, enum stop s, int status, bool *again, bool *ok)
{
    struct foreign_thread *t = self(run);
    *again = false;
    *ok = true;
    switch (s) {
    case STOP_ENDED:
        return false;
    case STOP_TIMEOUT:
        *ok = blocked(run);
        return false;
    case STOP_CLONE:
        foreign_step_adopt(run->p, run->index, run->out);
        return true;
    case STOP_EVENT:
        run->out->end = FSTEP_BLOCKED;  /* a group stop */
        return false;
    case STOP_FAILED:
        *ok = false;
        return false;
    case STOP_SIGNAL:
        took_signal(run, status);
        return false;
    case STOP_TRAP:
        if (site_at(run->fc, t->regs.rip - 1) || entry_at(run, t->regs.rip - 1)) {
            t->regs.rip--;
            *ok = set_regs(run);
            *again = true;
            return *ok;
        }
        took_signal(run, status);   /* the program's own SIGTRAP */
        return false;
    case STOP_SYSCALL: {
        struct __ptrace_syscall_info info;
        if (!foreign_syscall_info(t->tid, &info) || info.op != PTRACE_SYSCALL_INFO_ENTRY)
            return true;
        enum entered what = entered_call(run, &info);
        *ok = what != CALL_FAILED;
        run->at_call_entry = what == CALL_PASSES;
        return what == CALL_PASSES;
    }
    }
    return false;
}

static bool run_step(struct visible_run *run)
{
    run->deadline = monotonic_ns() + (uint64_t)run->wait_ms * 1000000u;
    bool look = true;
    for (;;) {
        if (look) {
            enum look l = look_at_pc(run);
            if (l == LOOK_DONE || l == LOOK_FAILED)
                return l == LOOK_DONE;
            if (l == LOOK_PASSES)
                continue;
        }
        if (monotonic_ns() >= run->deadline)
            return blocked(run);
        bool planting = !run->at_call_entry;
        run->at_call_entry = false;
        if (planting && !plant(run, true)) {
            plant(run, false);
            snprintf(run->err, run->errlen, "cannot plant breakpoints in process %d", (int)run->p->pid);
            return false;
        }
        bool resumed = resume(run, PTRACE_SYSCALL);
        int status = 0;
        enum stop s = resumed ? wait_stop(run, &status) : STOP_FAILED;
        bool held = true;
        if (s == STOP_TIMEOUT)
            held = blocked(run);    /* stopped before the int3s go: one hit meanwhile is seen below */
        bool unplanted = !planting || plant(run, false);
        if (!resumed || !unplanted || !held) {
            if (!unplanted)
                snprintf(run->err, run->errlen, "cannot take mdat's breakpoints out of process %d", (int)run->p->pid);
            return false;
        }
        if (s == STOP_TIMEOUT) {
            struct foreign_thread *t = self(run);
            /* Stopped by an int3 just as the time ran out: back onto its instruction. */
            if (run->trapped && t->stopped && t->have_regs &&
                (site_at(run->fc, t->regs.rip - 1) || entry_at(run, t->regs.rip - 1))) {
                t->regs.rip--;
                return set_regs(run);
            }
            return true;
        }
        bool ok;
        if (!free_stop(run, s, status, &look, &ok))
            return ok;
    }
}

/* The thread was in a sleep when it was held: resumed, the kernel
 * restarts it (as restart_syscall once a detach has restarted it before:
 * then only the C library function it is in tells a sleep). */
static bool in_sleep(const struct foreign_code *fc, const struct foreign_thread *t)
{
    long nr = (long)t->regs.orig_rax;
    if (!t->have_regs || (nr != SYS_nanosleep && nr != SYS_clock_nanosleep && nr != SYS_restart_syscall))
        return false;
    char fn[64];
    foreign_function_name(fc, t->regs.rip, fn, sizeof fn);
    return strstr(fn, "nanosleep") != NULL;
}

bool foreign_step_visible(struct foreign_process *p, size_t index, const struct foreign_code *fc, int wait_ms,
                          struct foreign_step *out, char *err, size_t errlen)
{
    long entered;
    int begun = foreign_step_begin(p, index, out, &entered, NULL, NULL, err, errlen);
    if (begun <= 0)
        return begun == 0;
    struct visible_run run = {.p = p, .index = index, .fc = fc, .wait_ms = wait_ms, .out = out, .err = err,
                              .errlen = errlen};
    run.sleeping = in_sleep(fc, &p->threads[index]);
    run.at_call_entry = entered >= 0;
    run.n_entries = find_entries(fc, &run.entries);
    run.dec = x86_decoder_new();
    bool ok = run.dec && proc_maps_read(p->proc_tid, &run.maps);
    if (!ok)
        snprintf(err, errlen, "cannot read process %d's memory map", (int)p->pid);
    else
        ok = run_step(&run);
    foreign_step_settle(self(&run));
    if (self(&run)->stopped)
        get_regs(self(&run));
    proc_maps_free(&run.maps);
    if (run.dec)
        x86_decoder_free(run.dec);
    free(run.entries);
    return ok;
}
