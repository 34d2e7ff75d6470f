/* exec_syscalls: system calls that can wait for another thread of the
 * program or a child, and those that make or replace a process, as steps.
 *
 * Such a call (read on a pipe, accept, poll, wait4, fork, exec...) stops
 * its thread at its seccomp stop: it becomes the thread's next visible
 * operation, so other threads may run first. When the thread is chosen and
 * the call would block (io_wait.h decides it from mdat's side), the thread
 * waits in mdat's model instead of in the kernel ("waiting-io"), and it is
 * looked at again after every step of another thread; once the call can
 * complete, the thread is resumed from the same stop and the kernel runs
 * the call. No thread ever blocks in the kernel while others could run. */
#include "supervisor/engine/code_names.h"
#include "supervisor/engine/exec_engine.h"
#include "supervisor/process/io_wait.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

static void call_args(const struct mthread *t, uint64_t args[6])
{
    args[0] = t->regs.rdi;
    args[1] = t->regs.rsi;
    args[2] = t->regs.rdx;
    args[3] = t->regs.r10;
    args[4] = t->regs.r8;
    args[5] = t->regs.r9;
}

static enum io_readiness readiness(struct execution *ex, const struct mthread *t)
{
    return io_readiness(ex->pidfd, ex->pid, t->tid, ex->mem_fd, t->sys_nr, t->sys_args);
}

/* The user's call that led to this system call: libc's wrappers keep
 * little on the stack, so the first return address into user code above
 * rsp is it (the call instruction just before). A code address that no
 * call precedes is not one: libc keeps main's address on the stack, and
 * main - 1 is the end of the function before it (the exit after main
 * returned was placed at another function's last line). */
uint64_t exec_syscall_caller(struct execution *ex, const struct mthread *t)
{
    uint64_t words[64];
    if (!tracee_read(ex->mem_fd, t->regs.rsp, words, sizeof words))
        return 0;
    for (size_t i = 0; i < 64; i++) {
        if (t->exit_slot && t->regs.rsp + 8 * i >= t->exit_slot)
            return t->exit_call;    /* in exit's handlers: above them, nothing of theirs */
        if (code_map_is_user_code(ex->cfg->code, words[i]) && exec_follows_call(ex, words[i]))
            return words[i] - 1;
    }
    return 0;
}

/* A call that reads or writes a descriptor is part of the step that
 * makes it, and does not commute with another thread's: two raw writes to
 * stdout (no libc lock orders them) come out in the order they ran, a
 * write to a pipe and the read at its other end meet in the kernel. So
 * every such call touches one word outside the address space (one for
 * all descriptors: two of them may name one file), and the memory it
 * reads or the kernel fills: for the calls that take one buffer, that
 * buffer; for the vectored ones, whose buffers are in memory, anything.
 * Told to the listeners that keep a step's footprint (dpor). */
static const uint64_t DESCRIPTOR_WORD = 0xfffe000000000000ull;

static void tell_descriptor(struct execution *ex, const struct mthread *t, long nr, const uint64_t args[6])
{
    uint64_t lo = 0, hi = UINT64_MAX;
    switch (nr) {
    case SYS_read: case SYS_write: case SYS_recvfrom: case SYS_sendto:
    case SYS_pread64: case SYS_pwrite64:
        lo = args[1];
        hi = args[1] + args[2];
        break;
    case SYS_readv: case SYS_writev: case SYS_recvmsg: case SYS_sendmsg:
    case SYS_preadv: case SYS_pwritev: case SYS_preadv2: case SYS_pwritev2:
        break;
    default:
        return;
    }
    for (int i = 0; i < ex->cfg->n_listeners; i++) {
        const struct exec_listener *l = &ex->cfg->listeners[i];
        if (l->ops->touched_word)
            l->ops->touched_word(l->self, t->id, DESCRIPTOR_WORD);
        if (l->ops->touched_range && hi > lo)
            l->ops->touched_range(l->self, t->id, lo, hi);
    }
}

enum run_outcome exec_syscall_stop(struct execution *ex, struct mthread *t)
{
    long nr = (long)t->regs.orig_rax;
    uint64_t args[6];
    call_args(t, args);
    tell_descriptor(ex, t, nr, args);
    if (nr == SYS_clone3) {
        /* Its flags are in the struct it points to. */
        uint64_t flags = 0;
        tracee_read(ex->mem_fd, args[0], &flags, sizeof flags);
        if (flags & CLONE_THREAD)
            return RUN_CONTINUE;
        nr = SYS_fork;
    }
    enum io_call call = io_call_of(nr, args);
    if (call == IO_NONE)
        return RUN_CONTINUE;
    t->sys_nr = nr;
    for (int i = 0; i < 6; i++)
        t->sys_args[i] = args[i];
    if (call != IO_PROCESS && readiness(ex, t) == IO_PASS)
        return RUN_CONTINUE;
    t->op = OP_SYSCALL;
    t->stop = STOP_PLAIN;
    t->sys_caller = exec_syscall_caller(ex, t);
    if (t->sys_caller)
        t->last_user_pc = t->sys_caller;
    return RUN_NEXT_OP;
}

/* A poll-like call with a finite timeout ends by itself when nothing else
 * can happen: a timed wait, as for futexes. */
static bool has_timeout(const struct mthread *t)
{
    switch (t->sys_nr) {
    case SYS_poll:
        return (int)t->sys_args[2] >= 0;
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
        return (int)t->sys_args[3] >= 0;
    case SYS_ppoll:
        return t->sys_args[2] != 0;
    case SYS_select:
    case SYS_pselect6:
        return t->sys_args[4] != 0;
    default:
        return false;
    }
}

/* A child process runs on its own, in real time: whether it has finished
 * when a thread waits for it (or for its output) must not depend on how
 * fast mdat went, or a replay would differ. So the thread first waits for
 * it in real time, for up to a second; only a child that takes longer
 * (that waits for the program itself) leaves the thread waiting in the model. */
static bool ready_after_children(struct execution *ex, struct mthread *t)
{
    if (ex->n_passive == 0)
        return false;
    uint64_t until = monotonic_ns() + 1000000000u;
    if (ex->deadline_ns && ex->deadline_ns < until)
        until = ex->deadline_ns;
    uint64_t saved = ex->deadline_ns;
    bool ready = false;
    while (!ready && monotonic_ns() < until && ex->n_passive > 0) {
        uint64_t slice = monotonic_ns() + 2000000u;
        ex->deadline_ns = slice < until ? slice : until;
        int status;
        exec_wait_thread(ex, -2, &status);  /* only the children's stops come */
        ready = readiness(ex, t) != IO_WOULD_BLOCK;
    }
    ex->deadline_ns = saved;
    return ready || readiness(ex, t) != IO_WOULD_BLOCK;
}

bool exec_syscall_would_wait(struct execution *ex, struct mthread *t)
{
    if (readiness(ex, t) != IO_WOULD_BLOCK || ready_after_children(ex, t))
        return false;
    exec_set_state(ex, t, TS_BLOCKED, has_timeout(t));
    t->io_wait = true;
    t->wait_seq = ++ex->wait_seq;
    ex->n_io_waits++;
    return true;
}

static void end_wait(struct execution *ex, struct mthread *t)
{
    exec_set_state(ex, t, TS_RUNNABLE, false);
    t->io_wait = false;
    ex->n_io_waits--;
    livelock_touch(ex->livelock, t->id);
}

void exec_syscall_recheck(struct execution *ex)
{
    for (int i = 0; i < ex->n_threads && ex->n_io_waits > 0; i++) {
        struct mthread *t = &ex->threads[i];
        if (t->state == TS_BLOCKED && t->io_wait && readiness(ex, t) != IO_WOULD_BLOCK)
            end_wait(ex, t);    /* its op is still the call: it runs when chosen */
    }
}

void exec_syscall_abandon(struct execution *ex, struct mthread *t, int64_t result)
{
    if (t->io_wait)
        end_wait(ex, t);
    t->op = OP_TIMEDOUT;
    exec_emulate_syscall(t, result);
}

/* Every descriptor anyone waits on is one of the program's own pipes and
 * no child process runs: nothing but the program could complete them. */
static bool only_inside(struct execution *ex)
{
    if (ex->n_passive > 0)
        return false;
    for (int i = 0; i < ex->n_threads; i++) {
        const struct mthread *t = &ex->threads[i];
        if (t->state == TS_BLOCKED && t->io_wait &&
            !io_waits_only_inside(ex->pid, ex->mem_fd, t->sys_nr, t->sys_args))
            return false;
    }
    return true;
}

bool exec_syscall_wait_outside(struct execution *ex, bool *inside)
{
    *inside = only_inside(ex);
    if (*inside)
        return false;
    /* The outside world (a child process, a peer on a socket) may still
     * complete a call: wait for it in real time, looking every 20 ms and
     * letting children's stops through, until the step's deadline. */
    uint64_t deadline = exec_step_timeout_end(ex);
    while (monotonic_ns() < deadline) {
        uint64_t slice = monotonic_ns() + 20000000u;
        uint64_t saved = ex->deadline_ns;
        ex->deadline_ns = slice < deadline ? slice : deadline;
        int status;
        /* Waiting for a thread that never stops: only others' stops come. */
        exec_wait_thread(ex, -2, &status);
        ex->deadline_ns = saved;
        exec_syscall_recheck(ex);
        for (int i = 0; i < ex->n_threads; i++)
            if (ex->threads[i].state == TS_RUNNABLE)
                return true;
        if (ex->leader_gone)
            return false;
    }
    return false;
}
