/* exec_stops: letting one thread run to its next visible operation, and
 * what each kind of ptrace stop on the way means.
 *
 * Running "a step": the thread performs the operation it is stopped before
 * (carried out by mdat at a breakpoint when the emulator can, else
 * single-stepped over the original byte) and runs on until it stops before
 * its next visible operation (a breakpoint on a shared access or a modeled
 * call), blocks in the futex model, yields or sleeps, exits, or the process
 * ends. Stops on the way that are not visible (own-stack accesses, library
 * calls made by library code, clone events, signals the program handles)
 * are dealt with here and the thread runs on. One function per meaning of a
 * stop; exec_run_thread dispatches. */
#include "arch/x86_alu.h"
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_ahead.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_grounds.h"
#include "supervisor/engine/exec_pages.h"
#include "supervisor/process/inject_stub.h"
#include "supervisor/engine/exec_tso.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/launch/spawn.h"
#include "supervisor/process/vector_regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef CLONE_VM
#define CLONE_VM 0x00000100
#endif
#ifndef CLONE_VFORK
#define CLONE_VFORK 0x00004000
#endif
#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif
#ifndef CLONE_CHILD_CLEARTID
#define CLONE_CHILD_CLEARTID 0x00200000
#endif
#ifndef CLONE_SETTLS
#define CLONE_SETTLS 0x00080000
#endif
#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif

/* The kernel's first real-time signal, which glibc keeps for cancellation
 * (SIGRTMIN in a program is glibc's first one left over, not this). */
enum { SIGRTMIN_KERNEL = 32 };

/* A stop that was handled without ending the step: the thread runs on. */
#define RUNS_ON RUN_CONTINUE

/* ---------- carrying out the operation at a breakpoint ---------- */

/* Emulated accesses go through the program's own page protections
 * (reads: exec_read_as_program). */
static bool write_memory(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    struct execution *ex = ctx;
    if (ex->tso_recording ? !exec_tso_record_store(ex, addr, buf, n) : !tracee_write_as_program(ex->vm_pid, addr, buf, n))
        return false;
    if (n <= 8) {
        ex->emulated_store_addr = addr;
        ex->emulated_store_size = (unsigned)n;
        ex->emulated_store_value = 0;
        memcpy(&ex->emulated_store_value, buf, n);
    }
    return true;
}

static struct x86_memory program_memory(struct execution *ex)
{
    return (struct x86_memory){exec_read_as_program, write_memory, ex, vector_regs_fetch, vector_regs_mark_changed};
}

/* t stands before its operation's instruction, still to be carried out:
 * at an int3 of ours, or where it faulted on a page it may not touch. */
static bool at_operation(const struct mthread *t)
{
    return t->stop == STOP_BREAKPOINT || t->stop == STOP_FAULT;
}

bool exec_rmw_load_step(struct execution *ex, struct mthread *t)
{
    if (t->op != OP_ACCESS || t->rmw_loaded || !at_operation(t) || !x86_is_split_rmw(&t->site->insn))
        return false;
    /* A read-modify-write the program may not store faults before it
     * loads anything: the CPU runs it whole, and faults. */
    if (!tracee_writable_as_program(ex->vm_pid, t->access_addr, t->access_size))
        return false;
    struct x86_memory mem = program_memory(ex);
    if (!x86_rmw_load(&t->site->insn, &t->regs, &mem, &t->rmw_old))
        return false;   /* it would fault: the CPU runs it whole, and faults */
    t->rmw_loaded = true;
    return true;
}

/* The store half of a split read-modify-write, from the value loaded. */
static bool store_half(struct execution *ex, struct mthread *t)
{
    struct x86_memory mem = program_memory(ex);
    struct user_regs_struct regs = t->regs;
    if (!x86_rmw_store(&t->site->insn, &regs, &mem, t->rmw_old))
        return false;
    t->regs = regs;
    t->regs_dirty = true;
    t->rmw_loaded = false;
    return true;
}

/* Performs the instruction t is stopped at in its place when it is a plain
 * load, store, register set or push, sparing the single-step: one ptrace
 * stop per breakpoint instead of two. The memory is reached with the
 * program's own rights, so an access the CPU would fault on fails here too
 * and is left to the CPU. */
static bool emulate_at_breakpoint(struct execution *ex, struct mthread *t)
{
    const struct x86_insn *in = t->bp_insn;
    if (!in || in->emulation == X86_EMU_NONE)
        return false;
    struct x86_memory mem = program_memory(ex);
    struct user_regs_struct regs = t->regs;
    vector_regs_set_thread(t->tid);
    if (!x86_emulate(in, &regs, &mem))
        return false;
    t->regs = regs;
    t->regs_dirty = true;
    return true;
}

/* A write the step made, for the livelock detector's picture of memory:
 * the value the emulator stored, else read back. */
static void note_write(struct execution *ex, struct mthread *t)
{
    if (t->op != OP_ACCESS || !(t->site->insn.flags & X86_MEM_WRITE) || t->access_size == 0)
        return;
    uint64_t value = 0;
    unsigned size = t->access_size > 8 ? 8 : t->access_size;
    if (ex->emulated_store_addr == t->access_addr && ex->emulated_store_size)
        value = ex->emulated_store_value;
    else if (!tracee_read_as_program(ex->vm_pid, t->access_addr, &value, size))
        return;
    livelock_note_write(ex->livelock, t->access_addr, size, value);
}

/* The operation the step was about is done: its value is known. */
static void op_done(struct execution *ex, struct mthread *t)
{
    if (ex->cfg->detect_livelock)
        note_write(ex, t);
    ex->emulated_store_size = 0;
    if (ex->event && ex->model_state)
        ex->model->op_done(ex->model_state, t, ex->event);
}

/* t was single-stepped over its instruction at `at` and stopped with
 * status: true when the step ended as a step. Else a signal came first
 * (its handler runs, then the thread is back at `at` with the operation
 * still to do), or the instruction faulted, or the thread was killed:
 * *stopped_elsewhere, and the caller looks. */
static bool stepped(struct execution *ex, struct mthread *t, uint64_t at, bool first_op, int status,
                    bool *stopped_elsewhere)
{
    ex->res->stops_by_reason[STOP_REASON_SINGLE_STEP]++;
    t->stop = STOP_PLAIN;
    if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && stop_event(status) == 0)
        return true;
    struct user_regs_struct now;
    if (first_op && WIFSTOPPED(status) && stop_event(status) == 0 && tracee_get_regs(t->tid, &now) && now.rip == at)
        t->interrupted_by = WSTOPSIG(status);
    *stopped_elsewhere = true;
    return false;
}

/* Executes the original instruction under the breakpoint t is stopped at.
 * Returns 1 when the thread is past it (or something else stopped it:
 * *stopped_elsewhere, with *status), 0 on timeout, -1 when lost. */
static int step_over_breakpoint(struct execution *ex, struct mthread *t, bool first_op, int *status,
                                bool *stopped_elsewhere)
{
    uint64_t at = t->regs.rip;
    static const uint8_t int3 = 0xcc;
    if (t->kernel_at_syscall) {
        /* mdat ran it on from a system call it answered, to here: a
         * single-step out of the seccomp stop traps on the way back to
         * user mode, before any instruction. Take that trap first. */
        t->kernel_at_syscall = false;
        if (!tracee_step(t->tid, 0))
            return -1;
        int r = exec_wait_thread(ex, t->tid, status);
        if (r <= 0)
            return r;
        if (!(WIFSTOPPED(*status) && WSTOPSIG(*status) == SIGTRAP && stop_event(*status) == 0)) {
            *stopped_elsewhere = true;
            return 1;
        }
        /* Should a kernel not trap there, the step ran our int3 instead:
         * back onto it. */
        struct user_regs_struct now;
        if (tracee_get_regs(t->tid, &now) && now.rip != at) {
            now.rip = at;
            if (!tracee_set_regs(t->tid, &now))
                return -1;
        }
    }
    if (ex->pages && !exec_pages_before_single_step(ex, t))
        return -1;
    if (!tracee_write(ex->mem_fd, at, &t->bp_orig, 1) || !tracee_step(t->tid, 0))
        return -1;
    int r = exec_wait_thread(ex, t->tid, status);
    tracee_write(ex->mem_fd, at, &int3, 1);
    if (r <= 0)
        return r;
    stepped(ex, t, at, first_op, *status, stopped_elsewhere);
    return 1;
}

/* Runs the instruction t faulted at (a page it may not touch natively)
 * under the CPU's single-step with every protection key open, as
 * step_over_breakpoint does under an int3: the same returns. */
static int step_over_fault(struct execution *ex, struct mthread *t, bool first_op, int *status,
                           bool *stopped_elsewhere)
{
    uint64_t at = t->regs.rip;
    if (!exec_pages_open_keys(ex, t))
        return -1;

    if (t->regs_dirty && !tracee_set_regs(t->tid, &t->regs))
        return -1;
    t->regs_dirty = false;
    if (!tracee_step(t->tid, 0))
        return -1;
    int r = exec_wait_thread(ex, t->tid, status);
    if (r > 0 && !exec_pages_close_keys(ex, t))
        return -1;
    if (r <= 0)
        return r;
    if (!stepped(ex, t, at, first_op, *status, stopped_elsewhere))
        return 1;
    return tracee_get_regs(t->tid, &t->regs) ? 1 : -1;
}

/* Whether a signal is due to t, which the kernel would deliver before its
 * next instruction: looked at (in /proc) only in programs that send
 * signals, and once while t does not run (*known < 0: not yet). */
static bool signal_due_to(struct execution *ex, const struct mthread *t, int *known)
{
    if (!ex->signals_seen)
        return false;
    if (*known < 0)
        *known = exec_signal_pending(ex, t);
    return *known;
}

/* Resumes t from its current stop; for a breakpoint, first carries out or
 * executes the original instruction. *status gets the stop that ends it.
 * Returns 1, 0 on timeout, -1 when t is lost; 2 when mdat ran t ahead to
 * the breakpoint at *ahead_at (exec_ahead.c), 3 to a futex call's seccomp
 * stop, where no stop was taken. */
static int resume(struct execution *ex, struct mthread *t, bool first_op, int *status, uint64_t *ahead_at)
{
    /* Under TSO the visible store of this step waits in t's buffer. */
    ex->tso_recording = ex->tso && first_op && exec_tso_buffers_store(t);
    ex->tso_store_pc = t->regs.rip;
    /* Where mdat carried out the last instruction or system call, it may
     * carry on (below). */
    bool carried_out = t->ahead_on_resume;
    t->ahead_on_resume = false;
    int due = -1;
    if (at_operation(t) && t->rmw_loaded && first_op && !signal_due_to(ex, t, &due)) {
        if (store_half(ex, t)) {
            t->stop = STOP_PLAIN;
            carried_out = true;
            op_done(ex, t);
        } else {
            t->rmw_loaded = false;  /* the store would fault: the CPU runs it whole, and faults */
        }
    }
    /* A signal due to the thread is delivered before its next instruction:
     * carrying the instruction out in mdat would put the handler after it. */
    bool signal_due = at_operation(t) && signal_due_to(ex, t, &due);
    if (at_operation(t) && !signal_due && emulate_at_breakpoint(ex, t)) {
        t->stop = STOP_PLAIN;
        carried_out = true;
        if (first_op)
            op_done(ex, t);
    }
    ex->tso_recording = false;
    if (t->stop == STOP_FAULT && signal_due) {

        /* The handler runs first; the instruction faults again after it. */
        t->stop = STOP_PLAIN;
    } else if (t->stop == STOP_FAULT) {
        bool elsewhere = false;
        int r = step_over_fault(ex, t, first_op, status, &elsewhere);
        if (r <= 0 || elsewhere)
            return r;
        due = -1;
        t->rmw_loaded = false;
        carried_out = true;
        if (first_op)
            op_done(ex, t);
    }
    if (t->stop == STOP_BREAKPOINT) {
        if (t->regs_dirty && !tracee_set_regs(t->tid, &t->regs))
            return -1;
        t->regs_dirty = false;
        bool elsewhere = false;
        int r = step_over_breakpoint(ex, t, first_op, status, &elsewhere);
        if (r <= 0 || elsewhere)
            return r;
        due = -1;   /* it ran: look again */
        t->rmw_loaded = false;  /* the CPU ran it whole (a signal was due) */
        if (first_op)
            op_done(ex, t);
    }
    /* The CPU would run on from an instruction mdat carried out: mdat may
     * as well, while the code is simple (not under TSO, whose buffers see
     * only native runs). With signals about, not while one is due to t: the
     * kernel would deliver it before the next instruction. None becomes
     * due meanwhile from the program, none of whose threads runs; one from
     * outside arrives as if a little later, as it may. */
    if (carried_out && !ex->tso && !signal_due && !signal_due_to(ex, t, &due)) {
        enum ahead_end e = exec_run_ahead(ex, t, ahead_at);
        if (e == AHEAD_ARRIVED)
            return 2;
        if (e == AHEAD_SYSCALL)
            return 3;
        if (e == AHEAD_ACCESS)
            return 4;
        if (e == AHEAD_RESTART)
            return 5;
    }
    if (ex->pages && !exec_pages_before_native(ex, t))
        return -1;
    if (t->regs_dirty) {
        if (!tracee_set_regs(t->tid, &t->regs))
            return -1;
        t->regs_dirty = false;
    }
    if (!exec_tso_before_native(ex, t))
        return -1;
    if (ex->pages && !t->syscall_exit_wanted)
        exec_pages_keep_cache(ex, t);
    if (t->syscall_exit_wanted ? !tracee_cont_to_syscall(t->tid) : !tracee_cont(t->tid, 0))
        return -1;
    t->at_syscall_exit = false;
    t->at_birth = false;

    t->kernel_at_syscall = false;
    return exec_wait_thread(ex, t->tid, status);
}

/* ---------- seccomp stops: the modeled system calls ---------- */

static enum run_outcome on_syscall(struct execution *ex, struct mthread *t)
{
    /* Page ownership follows mappings to their end, and lets the kernel
     * reach the call's buffers (exec_pages.h). */
    if (ex->pages && exec_pages_syscall_entry(ex, t))
        t->syscall_exit_wanted = true;
    ex->stop_reason = STOP_REASON_SYSCALL;
    switch ((long)t->regs.orig_rax) {
    case SYS_futex:
        return exec_handle_futex(ex, t);
    case SYS_kill:
    case SYS_tkill:
    case SYS_tgkill:
    case SYS_rt_sigqueueinfo:
    case SYS_rt_tgsigqueueinfo:
    case SYS_pidfd_send_signal:
        if (exec_refuse_call(ex, t, t->tid))
            return RUNS_ON;
        exec_note_self_raise(ex, t);
        /* The kernel sends it; blocked threads are looked at before the
         * next step (exec_interrupt_signalled_waits). */
        ex->signal_sent = true;
        ex->signals_seen = true;
        return RUNS_ON;
    case SYS_ptrace:
        exec_refuse_call(ex, t, t->tid);
        return RUNS_ON;
    case SYS_mmap:
    case SYS_mprotect:
    case SYS_pkey_mprotect: {
        /* The filter stops mmap with MAP_SHARED or PROT_EXEC, the others
         * with PROT_EXEC only. Shared memory: page_cache.c must know.
         * Executable memory appears or changes: the code map learns it.
         * The call goes on. */
        bool is_mmap = t->regs.orig_rax == SYS_mmap;
        bool shared = is_mmap && (t->regs.r10 & MAP_SHARED);
        if (shared)
            page_cache_maps_changed();
        if (t->regs.rdx & PROT_EXEC) {
            bool known = !is_mmap || (t->regs.r10 & (MAP_FIXED | MAP_FIXED_NOREPLACE));
            code_map_exec_mapping(ex->cfg->code, ex->mem_fd, t->regs.rdi, known ? t->regs.rsi : 0, (int)t->regs.rdx,
                                  shared);
        }
        return RUNS_ON;
    }
    case SYS_mremap:
    case SYS_shmat:
        page_cache_maps_changed();
        return RUNS_ON;
    case SYS_rt_sigaction:     /* of SIGTRAP; with page ownership every one (its buffers) */
        exec_keep_handler_traps(ex, t);
        return RUNS_ON;
    case SYS_alarm:
    case SYS_setitimer:
    case SYS_timer_settime:
        /* The kernel's timer sends a signal later, while a thread may run
         * ahead in mdat or wait in its model: look for signals due from
         * now on, and do not take a spin for a livelock. */
        exec_note_timer(ex, t);
        return RUNS_ON;
    case SYS_exit_group:
        /* The process would end here, taking every thread with it: that is
         * a visible step of its own, and others may run before it. When it
         * runs, the syscall goes on (the thread is resumed from this stop). */
        t->op = OP_EXIT;
        t->stop = STOP_PLAIN;
        if (t->exit_slot) {
            /* exit()'s end: its place is the user's call of it, if any
             * (none when main returned: the runtime called it). */
            t->last_user_pc = t->exit_call;
        } else if (code_map_is_user_code(ex->cfg->code, t->regs.rip)) {
            t->last_user_pc = t->regs.rip;
        } else {
            /* Its place is the user's call of exit(), not the last
             * visible operation before it. */
            uint64_t caller = exec_syscall_caller(ex, t);
            if (caller)
                t->last_user_pc = caller;
        }
        return RUN_NEXT_OP;

    case SYS_sched_yield:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
        if (t->regs.orig_rax != SYS_sched_yield)
            exec_clock_sleeps(ex, t);
        t->op = t->regs.orig_rax == SYS_sched_yield ? OP_YIELD : OP_SLEEP;
        exec_set_yielded(ex, t, true);
        exec_emulate_syscall(t, 0);
        return RUN_NEXT_OP;
    default:
        return exec_syscall_stop(ex, t);
    }
}

/* The end of a system call followed to it (t->syscall_exit_wanted). */
static enum run_outcome on_syscall_exit(struct execution *ex, struct mthread *t)
{
    ex->stop_reason = STOP_REASON_PAGES;
    t->syscall_exit_wanted = false;
    t->kernel_at_syscall = false;
    t->at_syscall_exit = true;
    if (ex->pages)
        exec_pages_syscall_exit(ex, t);
    return RUNS_ON;
}

/* ---------- new threads and processes ---------- */

static void tell_created(struct execution *ex, int parent, int child)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->thread_created)
            l->ops->thread_created(l->self, parent, child);
    }
}

static enum run_outcome new_process(struct execution *ex, const struct mthread *t, pid_t child, bool vfork);

/* A clone of t: a new thread of the program (scheduled from its first
 * step), or a new process (runs free, see new_process). */
static enum run_outcome on_clone(struct execution *ex, struct mthread *t, pid_t child)
{
    uint64_t flags = 0, ctid = 0, tls = 0, stack = 0, stack_size = 0;
    if (t->regs.orig_rax == SYS_clone3) {
        uint64_t args[8] = {0};
        tracee_read(ex->mem_fd, t->regs.rdi, args, sizeof args);
        flags = args[0];
        ctid = args[2];
        stack = args[5];
        stack_size = args[6];
        tls = args[7];
    } else {
        flags = t->regs.rdi;
        ctid = t->regs.r10;
        tls = t->regs.r8;
    }
    if (!(flags & CLONE_THREAD))
        return new_process(ex, t, child, flags & CLONE_VFORK);
    int parent = t->id;
    bool parent_is_main = t->tid == ex->pid;
    uint64_t start = t->pending_start;
    /* exec_add_thread may move the thread array: t is not used after it. */
    struct mthread *nt = exec_add_thread(ex, child);
    int nt_id = nt->id;
    nt->ctid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
    nt->tls = (flags & CLONE_SETTLS) ? tls : 0;
    nt->start_routine = start;
    /* clone3 says where the new thread's stack is: no need to look it up
     * in /proc later (once per thread, which made thread creation
     * quadratic). glibc's thread block sits at the top of that mapping. */
    if (stack && stack_size) {
        nt->stack_lo = stack;
        nt->stack_hi = stack + stack_size;
    }
    tell_created(ex, parent, nt->id);
    /* Consume the new thread's initial stop now, so that it is a quiet,
     * stopped thread like every other. */
    int st;
    int w = exec_wait_thread(ex, child, &st);
    if (w == 0)
        return RUN_TIMEOUT;     /* the time budget (or --timeout) ran out meanwhile: no error of mdat's */
    if (w < 0 || !WIFSTOPPED(st)) {
        if (ex->leader_gone)
            return RUN_PROCESS_GONE;
        exec_set_error(ex, "new thread %d did not stop", (int)child);
        return RUN_ERROR;
    }
    ex->res->stops_by_reason[STOP_REASON_THREAD_START]++;
    exec_thread_by_id(ex, nt_id)->at_birth = true;
    /* Only the main thread needs its exit event (on_exit_event); a thread

     * it makes inherits its options. */
    if (parent_is_main)
        ptrace(PTRACE_SETOPTIONS, child, 0, spawn_ptrace_options() & ~PTRACE_O_TRACEEXIT);
    if (ex->pages && !exec_pages_thread_start(ex, exec_thread_by_id(ex, parent), exec_thread_by_id(ex, nt_id)))
        return RUN_RESTART;
    return RUNS_ON;
}

/* Whether child shares the program's memory (clone with CLONE_VM, made
 * by any call: the kernel's answer, not the flags mdat saw). */
static bool shares_memory(const struct execution *ex, pid_t child)
{
    return syscall(SYS_kcmp, ex->pid, child, KCMP_VM, 0, 0) == 0;
}

/* A forked child runs free, without mdat's breakpoints (a vfork child
 * shares our memory until it execs or exits, so its bytes are ours: it
 * steps over the int3s it meets, exec_threads.c). A process that shares
 * the program's memory and runs beside it (clone with CLONE_VM, without
 * CLONE_THREAD or CLONE_VFORK) would touch it unscheduled and unseen: the
 * program is refused with what it did, never judged. */
static enum run_outcome new_process(struct execution *ex, const struct mthread *t, pid_t child, bool vfork)
{
    exec_grounds_lost(ex, GROUNDS_PROCESS, "T%d made a process (%s) that runs beside the program, outside the schedule",
                      ex->running, vfork ? "vfork" : "fork");
    bool shared = vfork || shares_memory(ex, child);
    if (!shared) {
        int fd = tracee_open_mem(child);
        if (fd >= 0) {
            code_map_unplant(ex->cfg->code, fd);
            exec_return_breaks_remove(ex, fd);
            close(fd);
        }
    }
    exec_add_passive(ex, child);     /* (killed with the program) */
    if (shared && !vfork) {
        char where[160] = "?";
        uint64_t pc = exec_syscall_caller(ex, t);
        exec_format_line(ex, pc ? pc : t->last_user_pc, where, sizeof where);
        exec_set_error(ex, "T%d made a process that shares the program's memory (clone with CLONE_VM, not a "
                       "thread) at %s: mdat cannot schedule or check its accesses, and refuses the program",
                       t->id, where);
        return RUN_ERROR;
    }
    return RUNS_ON;
}

/* ---------- the end of a thread or of the process ---------- */

static void tell_exited(struct execution *ex, const struct mthread *t)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->thread_exited)
            l->ops->thread_exited(l->self, t->id, t->tls);
    }
}

/* t is gone: listeners learn it, and its joiners, who wait in the model
 * (the kernel cleared the tid word and woke only its real waiters). */
static void thread_ended(struct execution *ex, struct mthread *t)
{
    exec_set_state(ex, t, TS_EXITED, false);
    if (ex->vm_pid == t->tid) {
        for (int i = 0; ex->vm_pid == t->tid && i < ex->n_threads; i++)
            if (ex->threads[i].state != TS_EXITED)
                ex->vm_pid = ex->threads[i].tid;
        if (ex->n_passive == 0)
            page_cache_follow(ex->mem_fd, ex->vm_pid);
    }
    tell_exited(ex, t);
    if (ex->pages)
        exec_pages_thread_end(ex, t);
    if (t->ctid)
        exec_wake_waiters(ex, t->ctid, FUTEX_BITSET_MATCH_ANY, UINT32_MAX);
}

/* An exit event, which only the main thread reports (the others are
 * traced without PTRACE_O_TRACEEXIT: their exit status is the one stop
 * their end costs). The main thread's pthread_exit leaves a zombie whose
 * status waits for the whole process, hence the event. */
static enum run_outcome on_exit_event(struct execution *ex, struct mthread *t)
{
    if ((long)t->regs.orig_rax != SYS_exit) {
        /* exit_group reached otherwise than through a step (whose thread is
         * held at its call, exec_run_thread): held here the same way. */
        ex->held_at_exit = t->tid;
        return RUN_PROCESS_EXITING;
    }
    tracee_cont(t->tid, 0);
    if (t->tid != ex->pid) {
        int st;
        if (exec_wait_thread(ex, t->tid, &st) > 0 && !is_exit_status(st))
            tracee_cont(t->tid, 0);     /* killed by a process exit racing with ours */
        ex->res->stops_by_reason[STOP_REASON_THREAD_END]++;
    }
    thread_ended(ex, t);
    return RUN_THREAD_EXITED;
}

/* The step of exit_group: the process would end at once. Its thread stays
 * at the call while the step is reported and the program's memory can still
 * be read; the loop lets it go then (execution.c). No stop is taken. */
static enum run_outcome hold_at_exit(struct execution *ex, struct mthread *t)
{
    if (!exec_tso_before_native(ex, t)) {
        exec_set_error(ex, "cannot write T%d's pending stores before its exit: %s", t->id, strerror(errno));
        return RUN_ERROR;
    }
    ex->held_at_exit = t->tid;
    return RUN_PROCESS_EXITING;
}

/* ---------- breakpoints ---------- */

static void note_stack(struct execution *ex, struct mthread *t)
{
    if (t->stack_hi && t->regs.rsp >= t->stack_lo && t->regs.rsp < t->stack_hi)
        return;
    struct proc_maps maps;
    if (!proc_maps_read(ex->pid, &maps))
        return;
    const struct proc_mapping *m = proc_maps_find(&maps, t->regs.rsp);
    if (m) {
        t->stack_lo = m->start;
        t->stack_hi = m->end;
    }
    proc_maps_free(&maps);
}

/* A breakpoint on a user instruction: visible unless every address it touches
 * is the thread's own stack (pointers to locals, at -O0 mostly). */
static bool site_is_visible(struct execution *ex, struct mthread *t, const struct code_site *site)
{
    const struct x86_insn *in = &site->insn;
    if (in->flags & X86_ATOMIC) {
        t->access_addr = in->n_mem ? x86_effective_address(in, 0, &t->regs) : 0;
        t->access_size = in->n_mem ? in->mem[0].size : 0;
        return true;
    }
    note_stack(ex, t);
    for (int i = 0; i < in->n_mem; i++) {
        uint64_t addr = x86_effective_address(in, i, &t->regs);
        /* 128 bytes below rsp is the red zone, still this thread's. */
        bool own_stack = addr >= t->stack_lo && addr < t->stack_hi;
        bool below_main_stack = addr + 65536 >= t->regs.rsp && addr < t->stack_hi;
        /* Reading what never changes (a vtable, a string literal) is not
         * shared state either. */
        bool constant = !in->mem[i].write && code_map_is_constant(ex->cfg->code, addr, in->mem[i].size);
        if (!own_stack && !below_main_stack && !constant) {
            t->access_addr = addr;
            t->access_size = in->mem[i].size;
            return true;
        }
    }
    return false;
}

static void enter_call(struct mthread *t, enum model_fn fn, uint64_t call_site)
{
    t->in_call = true;
    t->call_fn = fn;
    t->call_arg[0] = t->regs.rdi;
    t->call_arg[1] = t->regs.rsi;
    t->call_site = call_site;
    t->call_program = 0;
}

static void tell_call_within_step(struct execution *ex, const struct mthread *t, enum model_fn fn)
{
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->call_within_step)
            l->ops->call_within_step(l->self, t->id, (int)fn, t->regs.rdi, t->regs.rsi, t->regs.rsp);
    }
}

/* A modeled call from code that is not the user's which stays inside the
 * running step: the C library's and the loader's calls to their own
 * threading functions (the loader's locks in every dlopen and, in a static
 * program, pthread_create; C11's mtx_lock, cnd_wait, thrd_join and
 * thrd_exit calling the POSIX function on the same object, whose own call
 * is already the step; libc's internal rwlocks and pthread_once). They act
 * on objects the program cannot name, or repeat a step's operation: the
 * only effect another thread can observe is contention, a futex call the
 * step did not account for, which voids the grounds of a search
 * (exec_futex.c). pthread_create stays a step from anywhere: a thread
 * made by thrd_create or a SIGEV_THREAD timer is the program's. */
static bool internal_to_threading_runtime(struct execution *ex, enum model_fn fn, uint64_t ret)
{
    return fn != MF_THREAD_CREATE && code_map_is_threading_runtime(ex->cfg->code, ret);
}

/* t stopped at the entry of a modeled library function (fn), which will
 * return to ret. */
static enum run_outcome on_model_entry(struct execution *ex, struct mthread *t, enum model_fn fn, uint64_t at,
                                       uint64_t ret)
{
    if (fn == MF_ASSERT_FAIL) {
        t->last_user_pc = ret - 1;
        exec_record_assert(ex, t);
        return RUNS_ON;
    }
    bool from_user = code_map_is_user_code(ex->cfg->code, ret);
    if (fn == MF_EXIT) {
        /* (Jumped to by the user's code: the jump is the user's call.) */
        bool jumped = t->tail_jmp && t->tail_slot == t->regs.rsp && t->tail_ret == ret;
        t->exit_slot = t->regs.rsp;
        ex->exit_began = true;
        t->exit_call = jumped ? t->tail_jmp : from_user && exec_follows_call(ex, ret) ? ret - 1 : 0;
        return RUNS_ON;
    }
    if (model_fn_is_clock(fn) && exec_answer_clock(ex, t, fn, ret))
        return RUNS_ON;
    /* Jumped to by the user's code (a tail call noted at its jump, the
     * return address on top still the one it had there): the user's line is
     * the jump's, not the line of the caller the return address names. The
     * return address stays what the call returns to. */
    uint64_t user_ret = ret;
    if (t->tail_jmp && t->tail_slot == t->regs.rsp && t->tail_ret == ret) {
        user_ret = t->tail_jmp + 1;
        from_user = true;
    }
    if (model_fn_is_heap(fn)) {
        /* Through a stub of the user's own module it is the user's call
         * even when it returns elsewhere: a tail call (`jmp free@plt` at
         * -O2), whose line is then the thread's last one known. */
        uint64_t site = from_user ? exec_user_frame_pc(ex, t, user_ret - 1)
                        : code_map_in_own_module(ex->cfg->code, at) ? t->last_user_pc
                                                                    : 0;
        if (site && !exec_heap_call(ex, t, fn, site, ret)) {
            t->last_user_pc = site;
            return RUN_FAILED;
        }
        return RUNS_ON;
    }
    if (fn >= MF_OMP_PARALLEL && fn <= MF_OMP_PARALLEL_SECTIONS && !ex->res->grounds_lost)
        exec_grounds_lost(ex, GROUNDS_LIBRARY_SYNC, "T%d started an OpenMP parallel region: libgomp synchronises its "
                          "team by its own atomics and futexes, not by steps", t->id);
    if (!model_fn_is_scheduling_point(fn)) {
        /* init and destroy: observed, and judged, on the spot. */
        if (!from_user)
            return RUNS_ON;
        t->in_call = false;     /* user code called: any earlier call has returned */
        t->last_user_pc = user_ret - 1;
        if (ex->model_state) {
            ex->model->call_seen(ex->model_state, t, fn, t->regs.rdi, t->regs.rsi);
            if (ex->model->call_is_misuse(ex->model_state, t, fn, t->regs.rdi, t->regs.rsi))
                return RUN_FAILED;
        }
        return RUNS_ON;
    }
    if (fn == MF_THREAD_CREATE) {
        t->pending_start = t->regs.rdx;
        if (ex->pages && !exec_pages_creating(ex, t))
            return RUN_ERROR;
    }

    if (fn == MF_THREAD_CANCEL) {
        struct mthread *target = exec_thread_by_id(ex, exec_thread_of_pthread(ex, t->regs.rdi));
        if (target)
            target->cancel_requested = true;
    }
    if (!from_user) {
        if (internal_to_threading_runtime(ex, fn, ret)) {
            /* Part of the step the thread is in. Keep the user's call as
             * the context if there is one. */
            if (!t->in_call)
                enter_call(t, fn, 0);
            tell_call_within_step(ex, t, fn);
            return RUNS_ON;
        }
        /* Made on the user's behalf by another library (libstdc++'s
         * notify_one and join, libgomp, a chain of tail calls from the
         * user's code): a step like the user's own call, placed at the
         * user's frame that led there (none after tail calls: then the
         * user's last place). */
        user_ret = exec_user_return_on_stack(ex, t);
    }
    if (ex->model_state)
        ex->model->call_seen(ex->model_state, t, fn, t->regs.rdi, t->regs.rsi);
    enter_call(t, fn, user_ret);
    if (user_ret)
        t->last_user_pc = user_ret - 1;
    else
        t->call_program = exec_program_return_on_stack(ex, t);
    t->op = OP_CALL;
    t->fn = fn;
    return RUN_NEXT_OP;
}

/* An atomic instruction inside a library (hit): the word it touches is
 * part of the step; a runtime's synchronisation (libgomp's) is also an
 * order the program relies on that no step carries. */
static void tell_library_atomic(struct execution *ex, const struct mthread *t, const struct breakpoint_hit *hit)
{
    uint64_t addr = x86_effective_address(hit->insn, 0, &t->regs);
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (hit->runtime_sync && l->ops->library_atomic)
            l->ops->library_atomic(l->self, t->id, addr);
        if (l->ops->touched_word)
            l->ops->touched_word(l->self, t->id, addr);
    }
    if (hit->runtime_sync && !ex->res->grounds_lost) {
        char where[128];
        exec_format_code(ex, t->regs.rip, where, sizeof where);
        exec_grounds_lost(ex, GROUNDS_LIBRARY_SYNC, "T%d synchronised inside a runtime library (an atomic at %s)", t->id,
                          where);
    }
}

/* t stands at a jump of the user's code into a library (site.tail_call):
 * when taken, the callee will return to the user's caller by the address
 * on top of the stack, and no return address will lead back to this line.
 * It is noted as the user's frame (code_names.c). */
static void note_tail_call(struct execution *ex, struct mthread *t, uint64_t at, const struct x86_insn *in)
{
    if (in->emulation == X86_EMU_JCC && !x86_condition_holds((enum x86_cond)in->cond, t->regs.eflags))
        return;
    uint64_t ret;
    if (!tracee_read(ex->mem_fd, t->regs.rsp, &ret, sizeof ret))
        return;
    t->tail_jmp = at;
    t->tail_slot = t->regs.rsp;
    t->tail_ret = ret;
}

/* t stopped at an int3 at `at`: one of the code map's, a return breakpoint,
 * or none of ours (*ours false: a SIGTRAP of the program's own). */
static enum run_outcome on_breakpoint(struct execution *ex, struct mthread *t, uint64_t at, bool *ours)
{
    *ours = true;
    ex->stop_reason = STOP_REASON_RETURN;
    bool returning = t->heap_ret == at;
    if (returning)
        exec_heap_returned(ex, t);
    /* The return breakpoint may be missing: a code-map breakpoint sits
     * there and stops the thread anyway. */
    if (ex->n_ret_bps && exec_return_break_hit(ex, t, at, returning))
        return RUNS_ON;
    struct breakpoint_hit hit;
    if (!code_map_lookup(ex->cfg->code, at, &hit) || hit.kind == BP_NONE) {
        *ours = false;
        return RUNS_ON;
    }
    ex->stop_reason = hit.kind == BP_LIB_ATOMIC ? STOP_REASON_LIBRARY_ATOMIC : STOP_REASON_CALL;
    /* Back onto the breakpoint; written to the kernel only when the thread
     * is resumed (an emulated instruction sets every register anyway). */
    t->regs.rip = at;
    t->regs_dirty = true;
    t->stop = STOP_BREAKPOINT;
    t->bp_orig = hit.orig;
    t->bp_insn = hit.insn;
    switch (hit.kind) {
    case BP_ENTRY: {
        char err[256];
        if (!code_map_plant_libs(ex->cfg->code, ex->pid, ex->mem_fd, err, sizeof err)) {
            exec_set_error(ex, "%s", err);
            return RUN_ERROR;
        }
        t->stop = STOP_PLAIN;   /* the original byte is back for good */
        return RUNS_ON;
    }
    case BP_SITE:
        t->in_call = false;
        t->last_user_pc = at;
        if (t->tail_jmp && t->regs.rsp > t->tail_slot)
            t->tail_jmp = 0;    /* back in the user's code above the callee: it returned */
        if (hit.site->tail_call) {
            note_tail_call(ex, t, at, &hit.site->insn);
            ex->stop_reason = STOP_REASON_TAIL_CALL;
            return RUNS_ON;
        }
        if (!site_is_visible(ex, t, hit.site)) {
            ex->stop_reason = STOP_REASON_OWN_ACCESS;
            return RUNS_ON;
        }
        t->op = OP_ACCESS;
        t->site = hit.site;
        return RUN_NEXT_OP;
    case BP_LIB_ATOMIC:
        tell_library_atomic(ex, t, &hit);
        if (ex->pages && hit.insn->n_mem)
            exec_pages_library_atomic(ex, t, x86_effective_address(hit.insn, 0, &t->regs));
        return RUNS_ON;     /* carried out or stepped over when it resumes */
    case BP_MODEL: {
        uint64_t ret = 0;
        tracee_read(ex->mem_fd, t->regs.rsp, &ret, sizeof ret);
        return on_model_entry(ex, t, hit.fn, at, ret);
    }
    case BP_NONE:
        break;
    }
    *ours = false;
    return RUNS_ON;
}

/* ---------- signals ---------- */

/* A signal-delivery stop of t (sig): delivered to the program, which runs
 * on (*status gets the next stop), or a crash. */
/* A protection-key fault of t on a page it may not touch natively (page
 * ownership): taken over, a visible operation, or carried out as part of
 * the step. RUNS_ON: t is to be resumed from where it stands. */
static enum run_outcome on_page_fault(struct execution *ex, struct mthread *t, uint64_t addr)
{
    ex->stop_reason = STOP_REASON_PAGES;
    if (!addr) {
        t->stop = STOP_PLAIN;   /* its rights are back (is_page_fault) */
        return RUNS_ON;
    }
    switch (exec_pages_fault(ex, t, addr)) {

    case PV_GO_ON:
        t->stop = STOP_PLAIN;
        return RUNS_ON;
    case PV_VISIBLE:
        t->pages_retries = 0;
        return RUN_NEXT_OP;
    case PV_CARRY:
        t->pages_retries = 0;
        t->stop = STOP_FAULT;
        return RUNS_ON;
    case PV_RESTART:
        break;
    }
    return ex->res->error ? RUN_ERROR : RUN_RESTART;
}

/* A SIGSEGV that is a protection-key fault (page ownership), with its address. */
static bool is_page_fault(struct execution *ex, struct mthread *t, int sig, uint64_t *addr)
{
    siginfo_t si;
    if (!ex->pages || sig != SIGSEGV || ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0)
        return false;
    if (si.si_code == SI_KERNEL && exec_pages_restore_rights(ex, t)) {
        /* A signal handler starts with the kernel's default rights, and
         * its first touch of the thread's stack faults: the kernel, which
         * cannot put a frame for that fault on the same stack, makes it a
         * SIGSEGV of its own. With the thread's rights it goes on. */
        *addr = 0;
        return true;
    }
    if (si.si_code != SEGV_PKUERR)
        return false;


    *addr = (uint64_t)(uintptr_t)si.si_addr;
    return true;
}

static enum run_outcome on_signal(struct execution *ex, struct mthread *t, int sig, int *status)
{
    ex->stop_reason = STOP_REASON_SIGNAL;
    ex->cpu_limit_hit |= sig == SIGXCPU;
    if (exec_signal_is_fatal(ex, t->tid, sig)) {
        if (exec_killed_from_outside(ex, t->tid, sig))
            return RUN_ERROR;   /* no verdict: reported as such */
        exec_report_crash(ex, t, sig);
        return RUN_FAILED;
    }
    /* glibc's SIGCANCEL (the first real-time signal): pthread_cancel acts. */
    if (sig == SIGRTMIN_KERNEL)
        t->cancelled = true;
    exec_judge_signal_grounds(ex, t, sig);
    if (!tracee_cont(t->tid, sig))
        return RUN_ERROR;
    int w = exec_wait_thread(ex, t->tid, status);
    if (w == 0)
        return RUN_TIMEOUT;
    if (w < 0)
        return ex->leader_gone ? RUN_PROCESS_GONE : RUN_ERROR;
    return RUNS_ON;
}

/* ---------- the dispatcher ---------- */

/* What the stop `status` of t means. RUNS_ON with *again: the thread is
 * already stopped again (status updated), look at that stop without
 * resuming it. */
static enum run_outcome on_stop(struct execution *ex, struct mthread *t, int *status, bool *again)
{
    *again = false;
    if (is_exit_status(*status)) {
        if (t->tid != ex->pid) {
            thread_ended(ex, t);
            /* A signal kills every thread: the program ends with this step. */
            return WIFSIGNALED(*status) ? RUN_PROCESS_GONE : RUN_THREAD_EXITED;
        }
        exec_set_state(ex, t, TS_EXITED, false);
        ex->leader_gone = true;
        ex->leader_status = *status;
        return RUN_PROCESS_GONE;
    }
    int sig = WSTOPSIG(*status), event = stop_event(*status);
    ex->stop_reason = event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK
                        ? STOP_REASON_THREAD_START
                        : STOP_REASON_SIGNAL;
    if (event == 0 || event == PTRACE_EVENT_STOP || event == PTRACE_EVENT_SECCOMP || event == PTRACE_EVENT_CLONE ||
        event == PTRACE_EVENT_EXIT)
        tracee_get_regs(t->tid, &t->regs);
    unsigned long child = 0;
    switch (event) {
    case PTRACE_EVENT_SECCOMP:
        t->kernel_at_syscall = true;
        if (exec_refuse_at_seccomp(ex, t))
            return RUNS_ON;
        return on_syscall(ex, t);
    case PTRACE_EVENT_CLONE:
        ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &child);
        return on_clone(ex, t, (pid_t)child);
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
        ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &child);
        return new_process(ex, t, (pid_t)child, event == PTRACE_EVENT_VFORK);
    case PTRACE_EVENT_EXEC:
        /* exec replaces the program mdat was scheduling: from here on it
         * runs on its own, as a forked child does, under the main thread's
         * tid (which a thread that is not the main one takes). */
        exec_grounds_lost(ex, GROUNDS_EXEC, "T%d replaced the program (execve): what runs next is not scheduled", t->id);
        exec_add_passive(ex, ex->pid);
        tracee_cont(ex->pid, 0);
        return RUN_PROCESS_EXITING;
    case PTRACE_EVENT_EXIT:
        return on_exit_event(ex, t);
    case 0:
        break;
    default:
        return RUNS_ON;     /* group-stop and other events: nothing to do */
    }
    if (sig == (SIGTRAP | 0x80) && t->syscall_exit_wanted)
        return on_syscall_exit(ex, t);
    int key_error;
    if (sig == SIGTRAP && ex->pages && stub_trapped_at(ex->mem_fd, t->regs.rip, &key_error)) {
        exec_set_error(ex, "cannot change the protection key of the program's memory: %s", strerror(key_error));
        return RUN_ERROR;
    }

    if (sig == SIGTRAP) {
        bool ours;
        enum run_outcome o = on_breakpoint(ex, t, t->regs.rip - 1, &ours);
        if (ours)
            return o;
    }
    uint64_t fault_addr;
    if (is_page_fault(ex, t, sig, &fault_addr))
        return on_page_fault(ex, t, fault_addr);
    enum run_outcome o = on_signal(ex, t, sig, status);
    *again = o == RUNS_ON;
    return o;
}

enum run_outcome exec_run_thread(struct execution *ex, struct mthread *t)
{
    if (t->op == OP_EXIT)
        return hold_at_exit(ex, t);
    /* pthread_once orders what its initialisation did before every
     * return from it: the listeners follow the call from where it runs. */
    if (t->op == OP_CALL && t->fn == MF_ONCE && ex->cfg->n_listeners)
        tell_call_within_step(ex, t, MF_ONCE);
    int status;
    bool first = true;
    for (;;) {
        uint64_t ahead_at = 0;
        int r = resume(ex, t, first, &status, &ahead_at);
        first = false;
        if (r == 2 || r == 3) {
            bool ours;
            enum run_outcome o = r == 2 ? on_breakpoint(ex, t, ahead_at, &ours) : on_syscall(ex, t);
            if (o != RUNS_ON)
                return o;
            continue;
        }
        if (r == 4)
            return RUN_NEXT_OP;     /* ran ahead to an access of a shared page (exec_pages_touch set it up) */
        if (r == 5)
            return ex->res->error ? RUN_ERROR : RUN_RESTART;

        /* Taken from its stop by a SIGKILL (from outside): to its exit stop. */
        if (r < 0 && errno == ESRCH && !ex->leader_gone)
            r = exec_wait_thread(ex, t->tid, &status);
        if (r == 0)
            return RUN_TIMEOUT;

        if (r < 0) {
            if (ex->leader_gone)
                return RUN_PROCESS_GONE;
            exec_set_error(ex, "lost track of T%d (tid %d): %s", t->id, (int)t->tid, strerror(errno));
            return RUN_ERROR;
        }
        bool again;
        enum run_outcome o;
        do {
            int id = t->id;
            o = on_stop(ex, t, &status, &again);
            ex->res->stops_by_reason[o == RUNS_ON ? ex->stop_reason : STOP_REASON_STEP]++;
            t = exec_thread_by_id(ex, id);     /* the thread array may have moved */
        } while (o == RUNS_ON && again);
        if (o != RUNS_ON)
            return o;
    }
}
