/* tracee: ptrace and /proc/PID/mem wrappers, and waiting with a deadline. */
#include "supervisor/process/tracee.h"
#include "supervisor/process/page_cache.h"
#include "supervisor/process/vector_regs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Memory of the followed address space goes through page_cache.c: a read
 * that bypasses the copies writes them back first, a write that bypasses
 * them updates them after. */
bool tracee_read(int mem_fd, uint64_t addr, void *buf, size_t len)
{
    if (page_cache_read(mem_fd, -1, addr, buf, len))
        return true;
    page_cache_write_back();
    return pread(mem_fd, buf, len, (off_t)addr) == (ssize_t)len;
}

bool tracee_write(int mem_fd, uint64_t addr, const void *buf, size_t len)
{
    if (page_cache_write(mem_fd, -1, addr, buf, len))
        return true;
    if (pwrite(mem_fd, buf, len, (off_t)addr) != (ssize_t)len)
        return false;
    page_cache_wrote(mem_fd, -1, addr, buf, len, false);
    return true;
}

bool tracee_read_as_program(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    if (page_cache_read(-1, pid, addr, buf, len))
        return true;
    page_cache_write_back();
    struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* Whether the program may write every page of [addr, addr + len): each
 * piece is written with what it holds (nothing else runs meanwhile). x86
 * stores are all or nothing, and process_vm_writev writes page by page. */
static bool pages_writable(pid_t pid, uint64_t addr, size_t len)
{
    enum { PAGE = 4096 };
    for (uint64_t at = addr; at < addr + len;) {
        uint64_t next = (at | (PAGE - 1)) + 1;
        size_t n = (size_t)((next < addr + len ? next : addr + len) - at);
        uint8_t bytes[PAGE];
        if (!tracee_read_as_program(pid, at, bytes, n))
            return false;
        struct iovec local = {bytes, n}, remote = {(void *)(uintptr_t)at, n};
        if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != (ssize_t)n)
            return false;
        at = next;
    }
    return true;
}

bool tracee_writable_as_program(pid_t pid, uint64_t addr, size_t len)
{
    return len == 0 || pages_writable(pid, addr, len);
}

bool tracee_write_as_program(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
    if (page_cache_write(-1, pid, addr, buf, len))
        return true;
    if (len && (addr ^ (addr + len - 1)) >> 12 && !pages_writable(pid, addr, len))
        return false;   /* across pages one of which it may not write: nothing written */
    struct iovec local = {(void *)buf, len}, remote = {(void *)(uintptr_t)addr, len};
    if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
        return false;
    page_cache_wrote(-1, pid, addr, buf, len, true);
    return true;
}

void tracee_read_string(int mem_fd, uint64_t addr, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (cap == 0 || addr == 0)
        return;
    page_cache_write_back();
    /* Read in small chunks: a string near the end of a mapping would make one
     * large read fail as a whole. */
    size_t got = 0;
    while (got + 1 < cap) {
        size_t chunk = 64 - ((addr + got) & 63);
        if (chunk > cap - 1 - got)
            chunk = cap - 1 - got;
        ssize_t n = pread(mem_fd, buf + got, chunk, (off_t)(addr + got));
        if (n <= 0)
            break;
        void *nul = memchr(buf + got, '\0', (size_t)n);
        got += (size_t)n;
        if (nul)
            return;
    }
    buf[got] = '\0';
}

int tracee_open_mem(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    return open(path, O_RDWR | O_CLOEXEC);
}

bool tracee_get_regs(pid_t tid, struct user_regs_struct *regs)
{
    return ptrace(PTRACE_GETREGS, tid, 0, regs) == 0;
}

bool tracee_set_regs(pid_t tid, const struct user_regs_struct *regs)
{
    return ptrace(PTRACE_SETREGS, tid, 0, regs) == 0;
}

/* Before a thread runs, what mdat changed of its memory and vector
 * registers reaches the kernel. */
bool tracee_cont(pid_t tid, int sig)
{
    return vector_regs_before_resume(tid) && page_cache_forget() && ptrace(PTRACE_CONT, tid, 0, (long)sig) == 0;
}

bool tracee_cont_to_syscall(pid_t tid)
{
    return page_cache_forget() && ptrace(PTRACE_SYSCALL, tid, 0, 0) == 0;
}

bool tracee_step(pid_t tid, int sig)

{
    return vector_regs_before_resume(tid) && page_cache_forget() &&
           ptrace(PTRACE_SINGLESTEP, tid, 0, (long)sig) == 0;
}

uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void tracee_block_sigchld(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
}

static void (*wait_hook)(void *);
static void *wait_hook_ctx;
static uint64_t wait_hook_last_ns;

void tracee_set_wait_hook(void (*hook)(void *ctx), void *ctx)
{
    wait_hook = hook;
    wait_hook_ctx = ctx;
    wait_hook_last_ns = monotonic_ns();
}

static void maybe_call_hook(void)
{
    if (!wait_hook)
        return;
    uint64_t now = monotonic_ns();
    if (now - wait_hook_last_ns >= TRACEE_HOOK_PERIOD_NS) {
        wait_hook_last_ns = now;
        wait_hook(wait_hook_ctx);
    }
}

static const volatile int *stop_flags[2];
static int stop_held;

void tracee_set_stop_flags(const volatile int *a, const volatile int *b)
{
    stop_flags[0] = a;
    stop_flags[1] = b;
}

static bool stop_flag_set(void)
{
    return (stop_flags[0] && *stop_flags[0]) || (stop_flags[1] && *stop_flags[1]);
}

void tracee_hold_stop(bool hold)
{
    stop_held += hold ? 1 : -1;
}

bool tracee_stop_requested(void)
{
    return stop_held == 0 && stop_flag_set();
}

/* Waits for an event of pid (-1: of any tracee). */
static int wait_event(pid_t pid, struct tracee_event *ev, uint64_t deadline_ns)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        maybe_call_hook();
        int status;
        pid_t tid = waitpid(pid, &status, __WALL | WNOHANG);
        if (tid > 0) {
            ev->tid = tid;
            ev->status = status;
            return 1;
        }
        if (tid < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        /* Nothing yet: sleep until a SIGCHLD or the deadline. A SIGCHLD that
         * arrived between waitpid and here stays pending, so none is lost. */
        bool watch_stop = (stop_flags[0] || stop_flags[1]) && stop_held == 0;
        if (watch_stop && stop_flag_set())
            return 0;
        if (deadline_ns == 0 && !wait_hook && !watch_stop) {
            int sig;
            sigwait(&chld, &sig);
            continue;
        }
        uint64_t now = monotonic_ns();
        if (deadline_ns && now >= deadline_ns)
            return 0;
        uint64_t left = deadline_ns ? deadline_ns - now : TRACEE_HOOK_PERIOD_NS;
        if ((wait_hook || watch_stop) && left > TRACEE_HOOK_PERIOD_NS)
            left = TRACEE_HOOK_PERIOD_NS;   /* wake up to call it, or to look at the stop flag */
        struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
        if (sigtimedwait(&chld, NULL, &ts) < 0 && errno == EAGAIN && deadline_ns && monotonic_ns() >= deadline_ns)
            return 0;
    }
}

int tracee_wait_any(struct tracee_event *ev, uint64_t deadline_ns)
{
    return wait_event(-1, ev, deadline_ns);
}

int tracee_wait_pid(pid_t pid, uint64_t deadline_ns)
{
    struct tracee_event ev;
    int r = wait_event(pid, &ev, deadline_ns);
    return r > 0 ? ev.status : -1;
}
