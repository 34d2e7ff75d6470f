/* exec_template: starting the template, and forking it by making it run
 * `syscall; int3` at its entry point with clone's arguments in its
 * registers. The bytes stay in the template (it never runs anything else);
 * each child gets the entry point's own bytes back before it runs. Also
 * noticing that the template was killed from outside (it runs none of the
 * program's code, so any death is someone else's doing), wherever its
 * exit is seen, and ending it so that it does not linger in its exit stop. */
#include "supervisor/launch/exec_template.h"
#include "supervisor/launch/spawn.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif

static const uint8_t trampoline[3] = {0x0f, 0x05, 0xcc};    /* syscall; int3 */

static int find_cached_tid_offset(int fd, code_map *code);

/* Runs the freshly exec'd program through the dynamic loader to its entry
 * breakpoint, planting the libraries' entries there. */
static bool run_to_entry(struct exec_template *t, code_map *code, uint64_t deadline, bool *not_started, char *err,
                         size_t errlen)
{
    int sig = 0;
    while (code_map_before_entry(code)) {
        if (!tracee_cont(t->pid, sig))
            return false;
        sig = 0;
        int st = tracee_wait_pid(t->pid, deadline);
        if (st < 0) {
            snprintf(err, errlen, "the program did not reach its entry point");
            return false;
        }
        if (WIFEXITED(st) || WIFSIGNALED(st)) {
            *not_started = true;
            snprintf(err, errlen, "it %s %d before reaching its entry point (the dynamic loader failed)",
                     WIFEXITED(st) ? "exited with status" : "was killed by signal",
                     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            t->pid = 0;
            return false;
        }
        if ((st >> 16) != 0 || WSTOPSIG(st) != SIGTRAP) {
            /* seccomp stops of the loader's reads, group stops: go on;
             * a real signal is delivered. */
            if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
                sig = WSTOPSIG(st);
            continue;
        }
        struct user_regs_struct regs;
        if (!tracee_get_regs(t->pid, &regs))
            return false;
        if (regs.rip - 1 != code_map_entry_point(code)) {
            sig = SIGTRAP;  /* not ours */
            continue;
        }
        if (!code_map_plant_libs(code, t->pid, t->mem_fd, err, errlen))
            return false;
        regs.rip--;
        t->entry = regs;
    }
    return tracee_set_regs(t->pid, &t->entry);
}

/* From the exec stop of a static program (already at its entry point) to
 * a plain stop at the same place: registers set at the exec stop would be
 * overwritten by execve's own return value when the thread goes on. An
 * int3 at the entry point is hit at once. */
static bool leave_exec_stop(struct exec_template *t, uint64_t deadline, char *err, size_t errlen)
{
    struct user_regs_struct regs;
    uint8_t orig;
    static const uint8_t int3 = 0xcc;
    bool ok = tracee_get_regs(t->pid, &regs) && tracee_read(t->mem_fd, regs.rip, &orig, 1) &&
              tracee_write(t->mem_fd, regs.rip, &int3, 1) && tracee_cont(t->pid, 0);
    int st = ok ? tracee_wait_pid(t->pid, deadline) : -1;
    ok = st >= 0 && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP && tracee_write(t->mem_fd, regs.rip, &orig, 1) &&
         tracee_set_regs(t->pid, &regs);
    if (!ok)
        snprintf(err, errlen, "the program did not reach its entry point");
    t->entry = regs;
    return ok;
}

/* Page ownership, where this program can have it; else every site gets
 * its int3 (it was planted for ownership) and every access is observed. */
static bool prepare_pages(struct exec_template *t, code_map *code, char *err, size_t errlen)
{
    t->pages = calloc(1, sizeof *t->pages);
    char why[256];
    if (t->pages && pages_setup(t->pid, t->mem_fd, &t->entry, code, t->pages, why, sizeof why))
        return true;
    if (t->pages)
        pages_image_free(t->pages);
    free(t->pages);
    t->pages = NULL;
    code_map_set_planting(code, SITES_ALL);
    if (!code_map_replant_sites(code, t->mem_fd)) {
        snprintf(err, errlen, "cannot plant breakpoints into the program");
        return false;
    }
    return true;
}

bool exec_template_start(struct exec_template *t, const struct exec_template_request *req, bool *not_started,
                         char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->mem_fd = -1;
    t->stdin_fd = req->stdin_fd;
    t->follow_memory = req->follow_memory;
    *not_started = false;
    tracee_block_sigchld();
    bool own_pages = req->own_pages && pages_supported();
    code_map_set_planting(req->code, own_pages ? SITES_ATOMIC : SITES_ALL);
    struct spawn_request sr = {req->path, req->argv, req->stdin_fd, req->stdout_fd, req->stderr_fd, own_pages};
    t->pid = spawn_traced(&sr, err, errlen);
    if (t->pid < 0) {
        t->pid = 0;
        return false;
    }
    t->mem_fd = tracee_open_mem(t->pid);
    uint64_t deadline = monotonic_ns() + (uint64_t)((req->timeout_sec > 0 ? req->timeout_sec : 10) * 1e9);
    bool ok = t->mem_fd >= 0 && code_map_plant_exe(req->code, t->pid, t->mem_fd, req->follow_memory, err, errlen);
    if (ok && code_map_before_entry(req->code))
        ok = run_to_entry(t, req->code, deadline, not_started, err, errlen);
    else if (ok)
        ok = leave_exec_stop(t, deadline, err, errlen);    /* static: the exec stop is at the entry */
    if (ok && own_pages)
        ok = prepare_pages(t, req->code, err, errlen);
    if (ok) {
        t->cached_tid_offset = find_cached_tid_offset(t->mem_fd, req->code);
        t->entry_addr = t->entry.rip;
        ok = tracee_read(t->mem_fd, t->entry_addr, t->entry_orig, sizeof t->entry_orig) &&
             tracee_write(t->mem_fd, t->entry_addr, trampoline, sizeof trampoline);
        if (!ok)
            snprintf(err, errlen, "cannot prepare the program to be forked");
    }
    if (ok)
        t->shared_known = page_cache_ranges_read(t->pid, &t->shared);   /* or each copy reads its own */
    if (!ok)
        exec_template_stop(t);
    return ok;
}

/* Lets the template run its trampoline: clone, and the int3 after it.
 * Returns the child's pid, -1 on failure (t->gone when the template died). */
static pid_t run_trampoline(struct exec_template *t, uint64_t deadline)
{
    struct user_regs_struct regs = t->entry;
    regs.rip = t->entry_addr;
    regs.rax = SYS_clone;
    regs.orig_rax = (uint64_t)-1;
    regs.rdi = CLONE_PARENT | SIGCHLD;  /* a fork whose parent is mdat */
    regs.rsi = regs.rdx = regs.r10 = regs.r8 = 0;
    if (!tracee_set_regs(t->pid, &regs))
        return -1;
    pid_t child = -1;
    bool resume = true;
    for (;;) {
        if (resume && !tracee_cont(t->pid, 0))
            return -1;
        resume = true;
        int st = tracee_wait_pid(t->pid, deadline);
        if (st < 0)
            return -1;
        if (!WIFSTOPPED(st) || (st >> 16) == PTRACE_EVENT_EXIT) {
            /* Killed from outside on the way: let it end, and say so. */
            exec_template_saw(t, st);
            if (t->reaped)
                return -1;
            resume = false;
            continue;
        }
        int event = st >> 16;
        if (event == PTRACE_EVENT_FORK) {
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, t->pid, 0, &msg);
            child = (pid_t)msg;
            continue;
        }
        if (event == 0 && WSTOPSIG(st) == SIGTRAP) {
            /* The int3 after the syscall; a clone that failed says why in rax. */
            struct user_regs_struct after;
            if (child <= 0 && tracee_get_regs(t->pid, &after) && (int64_t)after.rax < 0)
                errno = (int)-(int64_t)after.rax;
            return child;
        }
        /* the seccomp stop of the clone: go on */
    }
}

void exec_template_saw(struct exec_template *t, int status)
{
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        t->gone = t->reaped = true;
        if (WIFSIGNALED(status) && !t->killed_by)
            t->killed_by = WTERMSIG(status);
        return;
    }
    if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXIT) {
        /* The exit code it dies with: a signal's number when killed. */
        unsigned long code = 0;
        ptrace(PTRACE_GETEVENTMSG, t->pid, 0, &code);
        t->gone = true;
        if (code & 0x7f)
            t->killed_by = (int)(code & 0x7f);
        tracee_cont(t->pid, 0);     /* its end is reaped by the next wait */
    }
}

/* After a fork that failed: whether the template is gone. A template
 * killed while stopped is on its way to its exit stop: waited for a moment. */
static bool template_gone(struct exec_template *t, int fork_errno)
{
    uint64_t deadline = monotonic_ns() + 1000000000ull;
    while (!t->reaped) {
        int st = tracee_wait_pid(t->pid, t->gone || fork_errno == ESRCH ? deadline : 1);
        if (st < 0)
            break;
        exec_template_saw(t, st);
        if (!t->gone)
            break;
    }
    return t->gone;
}

static void say_gone(const struct exec_template *t, char *err, size_t errlen)
{
    if (t->killed_by > 0)
        snprintf(err, errlen, "the program's fork server (pid %d) was killed from outside by SIG%s", (int)t->pid,
                 sigabbrev_np(t->killed_by) ? sigabbrev_np(t->killed_by) : "?");
    else
        snprintf(err, errlen, "the program's fork server (pid %d) ended from outside", (int)t->pid);
}

bool exec_template_lost(struct exec_template *t, char *err, size_t errlen)
{
    if (!t->pid || !template_gone(t, 0))
        return false;
    say_gone(t, err, errlen);
    return true;
}

/* glibc caches the main thread's TID in its struct pthread (at fs_base),
 * set by the dynamic loader: the child would carry the template's, and
 * every mutex it locks would name the template as owner. glibc's own fork
 * rewrites it in the child; this fork must too. Where the field is comes
 * from glibc's descriptor for debuggers (libthread_db reads
 * `_thread_db_pthread_tid`: bits, count, offset); a C library without one
 * is searched by value, where the template's TID must appear once in the
 * first kilobyte. By value alone is not enough: after the PID counter
 * wraps, a template numbered 32767 reads like the upper half of every
 * stack and library pointer there. */
static int find_cached_tid_offset(int fd, code_map *code)
{
    uint64_t at;
    uint32_t field[3];  /* size in bits, count, offset in bytes */
    if (!code_map_symbol_address(code, "_thread_db_pthread_tid", &at) || !tracee_read(fd, at, field, sizeof field))
        return -1;
    if (field[0] != 32 || field[2] % 4 != 0 || field[2] >= 4096)
        return -1;
    return (int)field[2];
}

static bool fix_cached_tid(int fd, const struct exec_template *t, pid_t child)
{
    uint64_t fs_base = t->entry.fs_base;
    if (!fs_base)
        return true;    /* no thread block yet (a static program): set later, by the child itself */
    int32_t tid = child;
    if (t->cached_tid_offset >= 0) {
        int32_t cached;
        if (!tracee_read(fd, fs_base + (uint64_t)t->cached_tid_offset, &cached, sizeof cached))
            return false;
        return cached != t->pid || tracee_write(fd, fs_base + (uint64_t)t->cached_tid_offset, &tid, sizeof tid);
    }
    int32_t words[256];
    if (!tracee_read(fd, fs_base, words, sizeof words))
        return true;
    int found = -1;
    for (int i = 0; i < 256; i++)
        if (words[i] == t->pid) {
            if (found >= 0)
                return false;   /* ambiguous: do not guess */
            found = i;
        }
    if (found < 0)
        return true;
    return tracee_write(fd, fs_base + (uint64_t)found * 4, &tid, sizeof tid);
}

static pid_t fork_from(struct exec_template *t, bool *lost, char *err, size_t errlen);

/* A fork is never left half made, even when mdat is being stopped: the
 * execution looks at the stop flag once it has begun. */
pid_t exec_template_fork(struct exec_template *t, bool *lost, char *err, size_t errlen)
{
    tracee_hold_stop(true);
    pid_t child = fork_from(t, lost, err, errlen);
    tracee_hold_stop(false);
    return child;
}

static pid_t fork_from(struct exec_template *t, bool *lost, char *err, size_t errlen)
{
    *lost = false;
    if (!t->pid) {
        snprintf(err, errlen, "no program to fork");
        return -1;
    }
    uint64_t deadline = monotonic_ns() + 10000000000ull;
    /* The program reads its input from the start, in every fork. */
    if (t->stdin_fd >= 0)
        lseek(t->stdin_fd, 0, SEEK_SET);
    pid_t child = t->gone ? -1 : run_trampoline(t, deadline);
    /* Under a process limit (--max-procs) the processes of the execution
     * before may still be dying, and count: give them a moment. */
    for (int tries = 0; child <= 0 && !t->gone && errno == EAGAIN && tries < 200; tries++) {
        usleep(10000);
        child = run_trampoline(t, deadline);
    }
    if (child <= 0) {
        int why = errno;
        if (template_gone(t, why)) {
            *lost = true;
            say_gone(t, err, errlen);
            return -1;
        }
        snprintf(err, errlen, "cannot fork the program: %s", strerror(why));
        return -1;
    }
    /* The child's first stop (it is traced from its birth). */
    int st;
    do
        st = tracee_wait_pid(child, deadline);
    while (st >= 0 && WIFSTOPPED(st) && (st >> 16) != PTRACE_EVENT_STOP && WSTOPSIG(st) != SIGSTOP);
    /* Each way this can fail is named: it has been seen once in thousands
     * of runs, and the name is what finds the cause. */
    const char *failed = NULL;
    int fd = -1;
    if (st < 0)
        failed = "no first stop within 10 s";
    else if (!WIFSTOPPED(st))
        failed = WIFSIGNALED(st) ? "it was killed before its first stop" : "it ended before its first stop";
    else if ((fd = tracee_open_mem(child)) < 0)
        failed = "its memory cannot be opened";
    else if (!tracee_write(fd, t->entry_addr, t->entry_orig, sizeof t->entry_orig))
        failed = "its entry point cannot be restored";
    else if (!fix_cached_tid(fd, t, child))
        failed = "its thread block holds the template's TID twice";
    else if (!tracee_set_regs(child, &t->entry))
        failed = "its registers cannot be set";
    int why = errno;
    if (fd >= 0)
        close(fd);
    if (failed) {
        snprintf(err, errlen, "cannot prepare the forked program (pid %d): %s (%s)", (int)child, failed, strerror(why));
        kill(child, SIGKILL);
        return -1;
    }
    return child;

}

void exec_template_stop(struct exec_template *t)
{
    if (t->pid > 0 && !t->reaped) {
        kill(t->pid, SIGKILL);
        for (;;) {
            int st;
            pid_t w = waitpid(t->pid, &st, __WALL);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
                break;
            /* Its exit stop (PTRACE_O_TRACEEXIT): a SIGKILLed tracee waits
             * there for us, alive, until let go. */
            tracee_cont(t->pid, 0);
        }
    }
    if (t->mem_fd >= 0)
        close(t->mem_fd);
    t->pid = 0;
    t->mem_fd = -1;
    page_cache_ranges_free(&t->shared);
    if (t->pages) {
        pages_image_free(t->pages);
        free(t->pages);
        t->pages = NULL;
    }
}

