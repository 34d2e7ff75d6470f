/* exec_threads: the threads of one execution and the stops they report.
 *
 * Owns the thread table (mdat ids in creation order), the threads of forked
 * children (run free, "passive"), stops that arrive for a thread other than
 * the one being waited for (queued until that thread is looked at), waiting
 * with the execution's deadline, and the end: letting every thread die and
 * reaping it, children included. */
#include "supervisor/engine/exec_engine.h"
#include "supervisor/engine/exec_pages.h"
#include "supervisor/launch/exec_template.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/proc_stat.h"
#include "supervisor/process/thread_cpu.h"
#include "supervisor/process/vector_regs.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *resized(void *array, size_t cap, size_t elem)
{
    array = realloc(array, cap * elem);
    if (!array)
        abort();
    return array;
}

static void *grow_array(void *array, size_t *cap, size_t elem, size_t first)
{
    *cap = *cap ? *cap * 2 : first;
    return resized(array, *cap, elem);
}

void exec_set_error(struct execution *ex, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ex->res->error_message, sizeof ex->res->error_message, fmt, ap);
    va_end(ap);
    ex->res->error = true;
}

struct mthread *exec_thread_by_tid(struct execution *ex, pid_t tid)
{
    for (int i = 0; i < ex->n_threads; i++)
        if (ex->threads[i].tid == tid && ex->threads[i].state != TS_EXITED)
            return &ex->threads[i];
    return NULL;
}

int exec_thread_id_of_tid(struct execution *ex, pid_t tid)
{
    if (tid <= 0)
        return 0;
    const struct mthread *live = exec_thread_by_tid(ex, tid);
    if (live)
        return live->id;
    for (int i = ex->n_threads - 1; i >= 0; i--)
        if (ex->threads[i].tid == tid)
            return ex->threads[i].id;
    return 0;
}

struct mthread *exec_thread_by_id(struct execution *ex, int id)
{
    return id >= 1 && id <= ex->n_threads ? &ex->threads[id - 1] : NULL;
}

static int runnable_slot(const struct execution *ex, int id)
{
    return (int)ids_slot(ex->runnable, (size_t)ex->n_runnable, id);
}

static void note_changed(struct execution *ex, int id)
{
    if (ex->n_changed < (int)(sizeof ex->changed / sizeof *ex->changed))
        ex->changed[ex->n_changed] = id;
    if (ex->n_changed <= (int)(sizeof ex->changed / sizeof *ex->changed))
        ex->n_changed++;
}

void exec_set_state(struct execution *ex, struct mthread *t, enum thread_state state, bool timed_wait)
{
    if (t->state == TS_BLOCKED) {
        ex->n_blocked--;
        ex->n_timed -= t->timed_wait;
    }
    if ((t->state == TS_RUNNABLE) != (state == TS_RUNNABLE)) {
        int at = runnable_slot(ex, t->id);
        int *slot = ex->runnable + at;
        bool *yielded = ex->runnable_yielded + at;
        size_t after = (size_t)(ex->n_runnable - at);
        if (state == TS_RUNNABLE) {
            memmove(slot + 1, slot, after * sizeof *slot);
            memmove(yielded + 1, yielded, after * sizeof *yielded);
            *slot = t->id;
            *yielded = t->yielded;
            ex->n_runnable++;
        } else {
            memmove(slot, slot + 1, (after - 1) * sizeof *slot);
            memmove(yielded, yielded + 1, (after - 1) * sizeof *yielded);
            ex->n_runnable--;
        }
        note_changed(ex, t->id);
    }
    t->state = state;
    if (state != TS_EXITED)
        t->timed_wait = state == TS_BLOCKED && timed_wait;
    if (state == TS_BLOCKED) {
        ex->n_blocked++;
        ex->n_timed += t->timed_wait;
    }
}

void exec_set_yielded(struct execution *ex, struct mthread *t, bool yielded)
{
    if (t->yielded == yielded)
        return;
    t->yielded = yielded;
    if (t->state == TS_RUNNABLE) {
        int at = runnable_slot(ex, t->id);
        if (at < ex->n_runnable && ex->runnable[at] == t->id)
            ex->runnable_yielded[at] = yielded;
        note_changed(ex, t->id);
    }
}

int exec_thread_of_pthread(struct execution *ex, uint64_t pthread)
{
    /* glibc reuses the memory of joined threads: the newest owner is meant. */
    for (int i = ex->n_threads - 1; i >= 0; i--)
        if (ex->threads[i].tls == pthread)
            return ex->threads[i].id;
    return 0;
}

struct mthread *exec_add_thread(struct execution *ex, pid_t tid)
{
    if (ex->n_threads == ex->cap_threads) {
        size_t cap = (size_t)ex->cap_threads;
        ex->threads = grow_array(ex->threads, &cap, sizeof *ex->threads, 16);
        /* The runnable view holds at most every thread. */
        ex->runnable = resized(ex->runnable, cap, sizeof *ex->runnable);
        ex->runnable_yielded = resized(ex->runnable_yielded, cap, sizeof *ex->runnable_yielded);
        ex->cap_threads = (int)cap;
    }
    struct mthread *t = &ex->threads[ex->n_threads];
    memset(t, 0, sizeof *t);
    t->id = ++ex->n_threads;
    t->tid = tid;
    vector_regs_forget(tid);    /* a dead thread's tid, perhaps */
    t->state = TS_RUNNABLE;
    ex->runnable_yielded[ex->n_runnable] = false;
    ex->runnable[ex->n_runnable++] = t->id;    /* the highest id yet: the list stays in order */
    note_changed(ex, t->id);
    t->stop = STOP_PLAIN;
    t->op = OP_START;
    livelock_touch(ex->livelock, t->id);
    ex->cfg->strategy->ops->thread_created(ex->cfg->strategy, t->id);
    return t;
}

bool exec_is_passive(const struct execution *ex, pid_t tid)
{
    for (size_t i = 0; i < ex->n_passive; i++)
        if (ex->passive[i] == tid)
            return true;
    return false;
}

static void remove_passive(struct execution *ex, pid_t tid)
{
    for (size_t i = 0; i < ex->n_passive; i++) {
        if (ex->passive[i] == tid) {
            ex->passive[i] = ex->passive[--ex->n_passive];
            return;
        }
    }
}

void exec_enqueue(struct execution *ex, const struct tracee_event *ev)
{
    if (ex->n_queue == ex->cap_queue)
        ex->queue = grow_array(ex->queue, &ex->cap_queue, sizeof *ex->queue, 16);
    ex->queue[ex->n_queue++] = *ev;
}

bool exec_dequeue(struct execution *ex, pid_t tid, struct tracee_event *ev)
{
    for (size_t i = 0; i < ex->n_queue; i++) {
        if (ex->queue[i].tid == tid) {
            *ev = ex->queue[i];
            memmove(&ex->queue[i], &ex->queue[i + 1], (ex->n_queue - i - 1) * sizeof *ex->queue);
            ex->n_queue--;
            return true;
        }
    }
    return false;
}

static void passive_stop(struct execution *ex, const struct tracee_event *ev);

void exec_add_passive(struct execution *ex, pid_t tid)
{
    if (ex->n_passive == ex->cap_passive)
        ex->passive = grow_array(ex->passive, &ex->cap_passive, sizeof *ex->passive, 8);
    ex->passive[ex->n_passive++] = tid;
    page_cache_follow(-1, 0);   /* it may share the program's memory, and runs free */
    struct tracee_event early;
    while (exec_dequeue(ex, tid, &early))
        passive_stop(ex, &early);
}

/* A child that shares the program's memory (vfork, clone with CLONE_VM:
 * posix_spawn, system) runs through mdat's int3s until it execs: the one it
 * stopped at is stepped over with the original byte, as the program itself
 * would run it. Nothing else of the program runs meanwhile (its vforking
 * thread waits in the kernel, the others in ptrace stops), so lifting the
 * int3 for one instruction is seen by no one else. false when the stop is
 * not at one of mdat's breakpoints (the child is then left as it was). */
static bool step_shared_child(struct execution *ex, pid_t tid)
{
    struct user_regs_struct regs;
    if (!tracee_get_regs(tid, &regs))
        return false;
    uint64_t at = regs.rip - 1;
    uint8_t orig, now;
    if (!exec_breakpoint_orig(ex, at, &orig))
        return false;
    if (!tracee_read_as_program(tid, at, &now, 1) || now != 0xcc)
        return false;   /* a forked child's own copy, unplanted: not ours */
    int mem = tracee_open_mem(tid);
    if (mem < 0)
        return false;
    static const uint8_t int3 = 0xcc;
    regs.rip = at;
    bool stepped = tracee_set_regs(tid, &regs) && tracee_write(mem, at, &orig, 1) && tracee_step(tid, 0);
    int status = 0;
    pid_t got = -1;
    if (stepped)
        do
            got = waitpid(tid, &status, __WALL);
        while (got < 0 && errno == EINTR);
    tracee_write(mem, at, &int3, 1);
    close(mem);
    if (got != tid)
        return true;
    struct tracee_event next = {tid, status};
    if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && stop_event(status) == 0)
        tracee_cont(tid, 0);    /* past the instruction */
    else
        passive_stop(ex, &next);
    return true;
}

/* Handles a stop of a thread that belongs to a forked child: it runs free. */
static void passive_stop(struct execution *ex, const struct tracee_event *ev)
{
    if (is_exit_status(ev->status)) {
        remove_passive(ex, ev->tid);
        return;
    }
    int event = stop_event(ev->status), sig = WSTOPSIG(ev->status);
    int deliver = 0;
    if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
        unsigned long child = 0;
        ptrace(PTRACE_GETEVENTMSG, ev->tid, 0, &child);
        exec_add_passive(ex, (pid_t)child);
    } else if (event == PTRACE_EVENT_SECCOMP) {
        exec_refuse_call(ex, NULL, ev->tid);
    } else if (event == 0 && sig == SIGTRAP && step_shared_child(ex, ev->tid)) {
        return;
    } else if (event == PTRACE_EVENT_STOP) {
        /* Its first stop: a child runs with every protection key open
         * (page ownership is the program's threads' business). */
        if (ex->pages)
            exec_pages_child(ex, ev->tid);
    } else if (event == 0 && sig != SIGTRAP) {

        deliver = sig;
    }

    tracee_cont(ev->tid, deliver);
}

void exec_serve_passive(struct execution *ex)
{
    for (size_t i = 0; i < ex->n_passive; i++) {
        pid_t tid = ex->passive[i];
        int status;
        if (waitpid(tid, &status, __WALL | WNOHANG) != tid)
            continue;
        ex->res->ptrace_stops++;
        struct tracee_event ev = {tid, status};
        passive_stop(ex, &ev);
        /* One stop per child and pass: one that stops again at once waits
         * for the next step. A child gone leaves the last in its place. */
        if (i < ex->n_passive && ex->passive[i] != tid)
            i--;
    }
}

/* An event of the fork server, which mdat waits for by pid: only its death
 * (killed from outside) reaches a wait for any tracee. */
static bool template_event(struct execution *ex, const struct tracee_event *ev)
{
    struct exec_template *t = ex->cfg->tmpl;
    if (!t || t->reaped || ev->tid != t->pid)
        return false;
    exec_template_saw(t, ev->status);
    return true;
}

/* Whether thread tid is running its step of execve. */
static bool running_exec(struct execution *ex, pid_t tid)
{
    const struct mthread *t = tid > 0 ? exec_thread_by_tid(ex, tid) : NULL;
    return t && t->op == OP_SYSCALL && (t->sys_nr == SYS_execve || t->sys_nr == SYS_execveat);
}

/* An event of another thread while a thread runs execve: the kernel ends every
 * other thread first (the main thread's exit event must be let go, or the
 * exec waits for it for ever), and a thread that is not the main one
 * reports the exec under the main thread's tid, which it takes. true: ev
 * is that exec, the exec'ing thread's stop. */
static bool exec_event(struct execution *ex, const struct tracee_event *ev)
{
    if (!WIFSTOPPED(ev->status))
        return false;
    if (stop_event(ev->status) == PTRACE_EVENT_EXEC && ev->tid == ex->pid)
        return true;
    if (stop_event(ev->status) == PTRACE_EVENT_EXIT)
        ptrace(PTRACE_CONT, ev->tid, 0, 0);
    else
        exec_enqueue(ex, ev);
    return false;
}

/* Page ownership: the running thread tid has been native for long enough
 * to be looked at (a spin on memory it owns, exec_pages_spin). Long enough
 * is measured in its own CPU time once the clock says it may be: a look
 * can restart the execution with more pages observed, and a replay on a
 * loaded machine must not take that turn where its run did not. A thread
 * waiting in the kernel uses no CPU and is never looked at. */
enum watch_due { WATCH_NO, WATCH_LATER, WATCH_NOW };

static enum watch_due spin_watch_due(struct execution *ex, pid_t tid)
{
    uint64_t now = monotonic_ns();
    if (!ex->pages || !ex->spin_check_ns || now < ex->spin_check_ns)
        return WATCH_NO;
    uint64_t cpu;
    if (tid > 0 && thread_cpu_ns(ex->pid, tid, &cpu)) {
        if (!ex->spin_cpu_base)
            ex->spin_cpu_base = cpu | 1;
        uint64_t used = cpu > ex->spin_cpu_base ? cpu - ex->spin_cpu_base : 0;
        if (used < ex->spin_cpu_ns) {
            exec_arm_spin_check(ex, now + (ex->spin_cpu_ns - used) / 2 + 1000000);
            return WATCH_LATER;
        }
    }
    ex->spin_check_ns = 0;
    ex->deadline_ns = ex->step_deadline_ns;
    return WATCH_NOW;
}

/* The CPU time the thread tid and mdat's own process have used. */
static bool step_cpu_ns(struct execution *ex, pid_t tid, uint64_t *ns)
{
    struct timespec self;
    uint64_t thread;
    if (!thread_cpu_ns(ex->pid, tid, &thread) || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &self) != 0)
        return false;
    *ns = thread + (uint64_t)self.tv_sec * 1000000000u + (uint64_t)self.tv_nsec;
    return true;
}

/* The step's deadline has passed (STEP_FIRST_LOOK_NS by the clock, or a
 * later look): true when the wait goes on, re-armed; false when the step
 * is a hang. --timeout is what the step may use, not what a busy machine
 * takes from it: a thread that runs (or waits for a CPU) must have used
 * that much CPU time, it and mdat together (mdat stepping it), counted
 * from the first look; a correct program kept from the CPU is no hang on a
 * loaded machine. A thread that does not run (asleep in the kernel,
 * stopped) uses none: it hangs once the timeout has passed by the clock.
 * Eight timeouts by the clock end any step. */
static bool step_overdue(struct execution *ex, pid_t tid)
{
    uint64_t now = monotonic_ns(), timeout = exec_timeout_ns(ex);
    if (tid <= 0 || !timeout || ex->deadline_ns != ex->step_deadline_ns || now < ex->step_deadline_ns ||
        (ex->end_ns && now >= ex->end_ns) || now >= ex->step_started_ns + 8 * timeout)
        return false;
    uint64_t cpu;
    struct proc_stat st;
    if (!step_cpu_ns(ex, tid, &cpu) || !proc_stat_read(ex->pid, tid, &st))
        return false;
    if (!ex->hang_cpu_base)
        ex->hang_cpu_base = cpu | 1;
    if (st.state != 'R') {
        if (now >= ex->step_started_ns + timeout)
            return false;
        exec_arm_step_deadline(ex, ex->step_started_ns + timeout);
        return true;
    }
    uint64_t used = cpu > ex->hang_cpu_base ? cpu - ex->hang_cpu_base : 0;
    if (used >= timeout)
        return false;
    exec_arm_step_deadline(ex, now + (timeout - used) + 1000000);
    return true;
}

static enum spin_verdict look_for_spin(struct execution *ex, pid_t tid, int *status)
{
    struct mthread *t = exec_thread_by_tid(ex, tid);
    if (!t)
        return SPIN_NONE;
    enum spin_verdict v = exec_pages_spin(ex, t, status);
    if (v == SPIN_RESTART)
        ex->spin_restart = true;
    /* A long computation: it goes on where it was. */
    if (v == SPIN_NONE && !tracee_cont(tid, 0))
        v = SPIN_LOST;
    return v;
}

int exec_wait_thread(struct execution *ex, pid_t tid, int *status)
{
    struct tracee_event ev;
    if (exec_dequeue(ex, tid, &ev)) {
        *status = ev.status;
        return 1;
    }
    /* The thread that was resumed has usually stopped already (it runs on
     * mdat's CPU): ask for it by its tid first, which the kernel answers
     * without looking at every other tracee's state. */
    if (tid > 0) {
        pid_t got = waitpid(tid, status, __WALL | WNOHANG);
        if (got == tid) {
            ex->res->ptrace_stops++;
            if (tid == ex->pid && is_exit_status(*status)) {
                ex->leader_gone = true;
                ex->leader_status = *status;
            }
            return 1;
        }
    }
    for (;;) {
        int r = tracee_wait_any(&ev, ex->deadline_ns);
        enum watch_due due = r == 0 ? spin_watch_due(ex, tid) : WATCH_NO;
        if (due == WATCH_LATER)
            continue;
        if (due == WATCH_NOW) {
            switch (look_for_spin(ex, tid, status)) {
            case SPIN_NONE:
                continue;
            case SPIN_RESTART:
                return 0;       /* the step ends; the execution runs again (ex->spin_restart) */
            case SPIN_STOPPED:
                return 1;
            case SPIN_LOST:
                return -1;
            }
        }
        if (r == 0 && step_overdue(ex, tid))
            continue;
        if (r <= 0)
            return r;
        ex->res->ptrace_stops++;
        if (ev.tid == tid) {
            *status = ev.status;
            return 1;
        }
        if (template_event(ex, &ev))
            continue;
        if (running_exec(ex, tid) && !exec_is_passive(ex, ev.tid)) {
            if (exec_event(ex, &ev)) {
                *status = ev.status;
                return 1;
            }
            if (WIFSTOPPED(ev.status))
                continue;
        }
        if (exec_is_passive(ex, ev.tid))
            passive_stop(ex, &ev);
        else if (ev.tid == ex->pid && is_exit_status(ev.status)) {
            ex->leader_gone = true;
            ex->leader_status = ev.status;
        } else
            exec_enqueue(ex, &ev);
    }
}

static void kill_children(struct execution *ex)
{
    for (size_t i = 0; i < ex->n_passive; i++)
        kill(ex->passive[i], SIGKILL);
}

/* Someone else's SIGKILL reached the program already. mdat holds every
 * thread in a ptrace stop while it decides, but carrying a thread on in
 * mdat over copies of its pages (exec_ahead.c, page_cache.c) it may not
 * have looked at the kernel for a long time: then it is not the verdict's
 * to stand. A thread that no longer answers ptrace is dying; its death
 * (looked at without reaping it, for the drain to see) says by what. */
static bool killed_meanwhile(const struct execution *ex)
{
    bool silent = false;
    for (int i = 0; i < ex->n_threads && !silent; i++) {
        const struct mthread *t = &ex->threads[i];
        errno = 0;
        silent = t->state != TS_EXITED && ptrace(PTRACE_PEEKUSER, t->tid, 0, 0) == -1 && errno == ESRCH;
    }
    for (int round = 0; silent && round < 200; round++) {
        for (int i = 0; i < ex->n_threads; i++) {
            pid_t tid = ex->threads[i].tid;
            siginfo_t si = {0};
            if (ex->threads[i].state == TS_EXITED ||
                waitid(P_PID, (id_t)tid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 || si.si_pid != tid)
                continue;
            if (si.si_code == CLD_KILLED)
                return si.si_status == SIGKILL;
            /* The leader stops once more on its way out (its exit event). */
            unsigned long status;
            if (si.si_code == CLD_TRAPPED && si.si_status == (SIGTRAP | PTRACE_EVENT_EXIT << 8) &&
                ptrace(PTRACE_GETEVENTMSG, tid, 0, &status) == 0)
                return WIFSIGNALED((int)status) && WTERMSIG((int)status) == SIGKILL;
        }
        usleep(1000);
    }
    return false;
}

void exec_drain(struct execution *ex, bool kill_it)
{
    /* Even when mdat is being stopped: what is killed is reaped. */
    tracee_hold_stop(true);
    /* Without kill_it the program ends by itself (exit, or an exec'd image
     * running to its end): forked children are killed once the leader is gone. */
    if (kill_it && !ex->leader_gone) {
        ex->killed = !killed_meanwhile(ex);
        kill(ex->pid, SIGKILL);
    }
    if (kill_it || ex->leader_gone)
        kill_children(ex);
    uint64_t give_up = monotonic_ns() + 5000000000u;
    bool killed = kill_it;
    struct tracee_event ev;
    /* Stops queued earlier need resuming too, or the thread never dies. */
    for (size_t i = 0; i < ex->n_queue; i++)
        if (!is_exit_status(ex->queue[i].status))
            tracee_cont(ex->queue[i].tid, 0);
    ex->n_queue = 0;
    for (;;) {
        /* Done when the leader is reaped and no child is left: waiting
         * for "no child at all" would wait for the fork server too. */
        if (ex->leader_gone && ex->n_passive == 0)
            break;
        int r = tracee_wait_any(&ev, killed ? give_up : ex->deadline_ns);
        if (r < 0)
            break;
        if (r == 0) {
            if (killed)
                break;  /* should not happen: SIGKILL cannot be ignored */
            killed = true;
            give_up = monotonic_ns() + 5000000000u;
            kill(ex->pid, SIGKILL);
            kill_children(ex);
            continue;
        }
        if (template_event(ex, &ev))
            continue;
        if (is_exit_status(ev.status)) {
            if (ev.tid == ex->pid) {
                ex->leader_gone = true;
                ex->leader_status = ev.status;
                kill_children(ex);
            }
            remove_passive(ex, ev.tid);
            continue;
        }
        if (exec_is_passive(ex, ev.tid))
            passive_stop(ex, &ev);
        else
            tracee_cont(ev.tid, 0);
    }
    tracee_hold_stop(false);
}
