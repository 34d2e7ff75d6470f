/* spawn: fork, seize, filter and exec the traced program. */
#include "supervisor/engine/spawn.h"
#include "supervisor/engine/pages_setup.h"
#include "supervisor/engine/proc_maps.h"
#include "supervisor/engine/tracee.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long spawn_ptrace_options(void)
{
    return PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
           PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD;
}

/* Only the syscalls mdat models stop the tracee; everything else runs at full
 * speed. Clones that make threads and exits of single threads are seen
 * through ptrace events instead. */
static const int always_traced[] = {
    SYS_futex, SYS_sched_yield, SYS_nanosleep, SYS_clock_nanosleep,
    /* Ending the process is a step: other threads may run before it. */
    SYS_exit_group,
    /* Signals between threads: a thread blocked in mdat's model must see
     * the ones sent to it (they run; mdat only takes note). */
    SYS_kill, SYS_tkill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
#ifdef SYS_pidfd_send_signal
    SYS_pidfd_send_signal,
#else
    424,
#endif
    /* ... none of which, nor ptrace, may reach mdat (exec_refuse.c). */
    SYS_ptrace,
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#else
    449,
#endif
    /* Calls that can wait for another thread or a child (engine/io_wait.h),
     * and those that make or replace a process: steps of their own. */
    SYS_recvfrom, SYS_recvmsg, SYS_sendto, SYS_sendmsg, SYS_accept, SYS_accept4, SYS_connect,
    SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6, SYS_epoll_wait, SYS_epoll_pwait,
    SYS_wait4, SYS_waitid, SYS_fork, SYS_vfork, SYS_execve, SYS_execveat,
    /* Calls that may map memory twice or share it (engine/page_cache.c),
     * besides mmap with MAP_SHARED (tested below). */
    SYS_mremap, SYS_shmat,
    /* Timers whose signals come while a thread runs ahead in mdat, or
     * waits in its model (engine/exec_signals.c). */
    SYS_alarm, SYS_setitimer, SYS_timer_settime,
};

/* Reads and writes are traced only on descriptors above 2: standard input
 * (mdat's input file or /dev/null) never waits, and the standard outputs
 * are files mdat captures or the terminal; printf stays at full speed. */
static const int traced_above_stdio[] = {SYS_read, SYS_write, SYS_readv, SYS_writev};

static int install_seccomp_filter(void)
{
    enum { N = sizeof always_traced / sizeof always_traced[0],
           M = sizeof traced_above_stdio / sizeof traced_above_stdio[0] };
    struct sock_filter code[4 + N + M + 3 + 17];
    int k = 0;
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    /* Other ABIs (int 0x80) are not modeled: let them through. */
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* Layout after the loads: N+M+3 tests, ALLOW, [fd test: load, jgt,
     * ALLOW], TRACE, [clone test: load, jset, TRACE, ALLOW], [mmap test:
     * load, jset, TRACE, ALLOW], [rt_sigaction test: load, jeq, TRACE,
     * ALLOW]. clone3 is not traced (its flags are in
     * memory, out of the filter's reach): glibc makes threads with it, and
     * a process made with it is seen through ptrace's fork event. */
    enum { AFTER_TESTS = N + M + 3 };
    for (int i = 0; i < N; i++)
        code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)always_traced[i],
                                                 (unsigned char)(AFTER_TESTS - i - 1 + 4), 0);
    for (int i = 0; i < M; i++)
        code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)traced_above_stdio[i],
                                                 (unsigned char)(M - i + 3), 0);
    /* clone: only one that makes a process (not CLONE_THREAD) is a step. */
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 7, 0);
    /* mmap: only one that maps shared memory (MAP_SHARED, and
     * MAP_SHARED_VALIDATE, which has its bit): page_cache.c must know. */
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 10, 0);
    /* rt_sigaction of SIGTRAP: a handler of the program's own must not be
     * blocked while mdat's traps happen (exec_signals.c). */
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 13, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 2, 1, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x00010000 /* CLONE_THREAD */, 1, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3]));
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x01 /* MAP_SHARED */, 0, 1);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGTRAP, 0, 1);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {.len = (unsigned short)k, .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* A second filter, with page ownership (pages_setup.h): the calls that map
 * memory, and those whose buffers the kernel reaches with the calling
 * thread's rights, stop too. (Filters stack: the stricter answer wins.) */
static int install_pages_filter(void)
{
    size_t n;
    const long *nrs = pages_traced_syscalls(&n);
    if (n > 250)
        return -1;
    struct sock_filter code[256 + 4];
    int k = 0;
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < n; i++)
        code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i],
                                                 (unsigned char)(n - i), 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    struct sock_fprog prog = {.len = (unsigned short)k, .filter = code};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static struct spawn_limits limits_in_force;

void spawn_set_limits(const struct spawn_limits *limits)
{
    limits_in_force = limits ? *limits : (struct spawn_limits){0};
}

struct user_count {
    uid_t uid;
    uint64_t tasks;
};

static void count_if_ours(pid_t pid, void *ctx)
{
    struct user_count *c = ctx;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;     /* gone meanwhile */
    long uid = -1, threads = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Uid:", 4) == 0)
            uid = strtol(line + 4, NULL, 10);   /* the real uid comes first */
        else if (strncmp(line, "Threads:", 8) == 0)
            threads = strtol(line + 8, NULL, 10);
    }
    fclose(f);
    if (uid == (long)c->uid)
        c->tasks += (uint64_t)(threads > 0 ? threads : 1);
}

uint64_t spawn_user_tasks(void)
{
    struct user_count c = {getuid(), 0};
    proc_each_process(count_if_ours, &c);
    return c.tasks;
}

/* Lowers one limit to value (0: left alone), keeping below the hard limit
 * inherited: an unprivileged process cannot raise it. */
static int lower_limit(int resource, uint64_t value, uint64_t hard_extra)
{
    struct rlimit cur;
    if (value == 0)
        return 0;
    if (getrlimit(resource, &cur) != 0)
        return -1;
    rlim_t soft = (rlim_t)value, hard = (rlim_t)(value + hard_extra);
    if (cur.rlim_max != RLIM_INFINITY) {
        if (hard > cur.rlim_max)
            hard = cur.rlim_max;
        if (soft > hard)
            soft = hard;
    }
    struct rlimit lim = {soft, hard};
    return setrlimit(resource, &lim);
}

static int apply_limits(const struct spawn_limits *l)
{
    /* The CPU hard limit a second above the soft one: SIGXCPU first, which
     * the report names, SIGKILL only if the program catches it. */
    if (lower_limit(RLIMIT_CPU, l->cpu_sec, 1) != 0 || lower_limit(RLIMIT_AS, l->address_space, 0) != 0 ||
        lower_limit(RLIMIT_NPROC, l->nproc, 0) != 0 || lower_limit(RLIMIT_FSIZE, l->file_size, 0) != 0)
        return -1;
    return 0;
}

/* The child reports why it could not exec through this pipe (CLOEXEC: a
 * successful exec closes it and the parent reads nothing). */
static void child_fail(int report_fd, const char *what)
{
    char msg[256];
    int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
    if (write(report_fd, msg, (size_t)n) < 0) {
        /* nothing left to tell anyone */
    }
    _exit(127);
}

/* The ELF interpreter (PT_INTERP) path names, into buf; false when it has none. */
static bool elf_interpreter(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf64_Ehdr eh;
    bool found = false;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (int i = 0; i < eh.e_phnum && i < 256 && !found; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= len)
                continue;
            ssize_t n = pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset);
            if (n > 0) {
                buf[n] = '\0';
                found = buf[0] != '\0';
            }
        }
    }
    close(fd);
    return found;
}

/* exec failed with ENOENT though the program is there: the kernel could
 * not find its ELF interpreter, which is what to say. */
static void child_exec_fail(int report_fd, const char *path)
{
    char interp[256], msg[400];
    int saved = errno;
    if (saved == ENOENT && access(path, F_OK) == 0 && elf_interpreter(path, interp, sizeof interp) &&
        access(interp, F_OK) != 0) {
        int n = snprintf(msg, sizeof msg, "its ELF interpreter %s does not exist (built for another system, or "
                         "its loader is not installed)", interp);
        if (write(report_fd, msg, (size_t)n) < 0) {
            /* nothing left to tell anyone */
        }
        _exit(127);
    }
    errno = saved;
    child_fail(report_fd, "exec");
}

static void redirect(int from, int to)
{
    if (from >= 0 && from != to)
        dup2(from, to);
}

/* The child ended past exec's point of no return without a word: the
 * kernel could not finish loading the program, most often for lack of
 * memory under an address-space limit. */
static void describe_lost_exec(int status, char *msg, size_t len)
{
    const struct spawn_limits *l = &limits_in_force;
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "it was killed by %s%s while the kernel loaded it",
                 sigabbrev_np(WTERMSIG(status)) ? "SIG" : "signal ",
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(how, sizeof how, "it exited with status %d while the kernel loaded it", WEXITSTATUS(status));
    if (l->address_space)
        snprintf(msg, len, "%s: the memory limit (--max-memory %" PRIu64 " bytes) is too small to load it", how,
                 l->address_space);
    else
        snprintf(msg, len, "%s", how);
}

/* mdat's allocator: beside mdat in a build tree, in libexec/mdat installed;
 * NULL when neither is there (page ownership then goes on with glibc's). */
static const char *allocator_path(void)
{
    static char path[PATH_MAX];
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/libmdat_alloc.so", self);
    if (access(path, R_OK) == 0)
        return path;
    snprintf(path, sizeof path, "%s/%s", self, MDAT_ALLOC_FROM_BINDIR);
    return access(path, R_OK) == 0 ? path : NULL;
}

/* The program's environment: mdat's, and one setting of libgomp's (and
 * with page ownership mdat's allocator and eager binding, below). Its

 * waiting threads spin (300,000 rounds on this machine's thread count)
 * before they sleep; under mdat no other thread runs meanwhile, so the
 * spin can only run out, at a ptrace stop for each lock it meets on the
 * way (omp_constructs: 6,311 stops against 1,694, twice the time). They
 * sleep at once instead, unless the user chose how they wait. The spin is
 * no visible operation: the schedules are the same either way. Built
 * before the fork: the child only execs. NULL: out of memory. */
static char **program_environment(bool follow_pages)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 4) * sizeof *env);
    if (!env)
        return NULL;
    memcpy(env, environ, n * sizeof *env);
    /* With page ownership, mdat's allocator keeps threads' blocks on
     * pages of their own (inprogram/mdat_alloc.c): glibc's puts them side
     * by side, which would make those pages shared. */
    static char preload[PATH_MAX + 64];
    const char *alloc = follow_pages ? allocator_path() : NULL;
    if (alloc) {
        const char *user = getenv("LD_PRELOAD");
        snprintf(preload, sizeof preload, "LD_PRELOAD=%s%s%s", alloc, user ? ":" : "", user ? user : "");
        size_t i = 0;
        while (i < n && strncmp(env[i], "LD_PRELOAD=", 11) != 0)
            i++;
        env[i] = preload;
        n += i == n;
    }

    if (!getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY"))
        env[n++] = "GOMP_SPINCOUNT=0";
    /* With page ownership the executable's PLT reads its function
     * pointers from a copy of mdat's, out of the pages it follows
     * (pages_setup.c): resolved before the program starts, they never
     * change after. */
    if (follow_pages && !getenv("LD_BIND_NOW"))
        env[n++] = "LD_BIND_NOW=1";
    env[n] = NULL;
    return env;
}

pid_t spawn_traced(const struct spawn_request *req, char *err, size_t errlen)
{
    int go[2], report[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char **env = program_environment(req->follow_pages);

    if (!env) {
        snprintf(err, errlen, "out of memory");
        close(go[0]);
        close(go[1]);
        close(report[0]);
        close(report[1]);
        return -1;
    }
    pid_t supervisor = getpid();
    pid_t pid = fork();
    if (pid != 0)
        free(env);      /* the child's copy goes with its exec */
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        /* Never outlive the supervisor, even before PTRACE_O_EXITKILL applies. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != supervisor)
            _exit(127);
        close(go[1]);
        close(report[0]);
        char ready;
        if (read(go[0], &ready, 1) != 1)
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        redirect(req->stdin_fd, 0);
        redirect(req->stdout_fd, 1);
        redirect(req->stderr_fd, 2);
        /* The program gets stdin, stdout and stderr, nothing of mdat's:
         * its own descriptors then start at 3 in every execution and every
         * replay (a pipe is "fd 3" each time), and it cannot reach mdat's
         * files. Closed at exec, so the report pipe still works until then. */
        syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
        /* A program that does not use the terminal gets a session of its
         * own: the terminal's signals (a resize, Ctrl-C) then go to mdat,
         * not into the middle of a step, and the program cannot draw on a
         * screen mdat owns (mdat attach). With the terminal as its stdio it
         * stays in mdat's foreground process group, as before. */
        if (!isatty(0) && !isatty(1) && !isatty(2))
            setsid();
        if (personality(ADDR_NO_RANDOMIZE) < 0)
            child_fail(report[1], "personality");
        if (apply_limits(&limits_in_force) != 0)
            child_fail(report[1], "setrlimit");
        if (install_seccomp_filter() != 0 || (req->follow_pages && install_pages_filter() != 0))
            child_fail(report[1], "seccomp");

        execve(req->path, req->argv, env);
        child_exec_fail(report[1], req->path);
    }
    close(go[0]);
    close(report[1]);
    if (ptrace(PTRACE_SEIZE, pid, 0, spawn_ptrace_options()) != 0) {
        snprintf(err, errlen, "ptrace(PTRACE_SEIZE): %s (is ptrace allowed here?)", strerror(errno));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, __WALL);
        close(go[1]);
        close(report[0]);
        return -1;
    }
    if (write(go[1], "g", 1) != 1) {
        /* the child died: waitpid below tells */
    }
    close(go[1]);

    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, __WALL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            break;
        }
        if (WIFSTOPPED(status) && (status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
            close(report[0]);
            return pid;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            char msg[400] = "";
            ssize_t n = read(report[0], msg, sizeof msg - 1);
            msg[n > 0 ? n : 0] = '\0';
            if (n <= 0)
                describe_lost_exec(status, msg, sizeof msg);
            snprintf(err, errlen, "could not start the program: %s", msg);
            close(report[0]);
            return -1;
        }
        /* A seccomp stop or signal before exec (none is expected): let it go on. */
        int sig = WIFSTOPPED(status) && WSTOPSIG(status) != SIGTRAP && (status >> 16) == 0 ? WSTOPSIG(status) : 0;
        tracee_cont(pid, sig);
    }
    kill(pid, SIGKILL);
    close(report[0]);
    return -1;
}
