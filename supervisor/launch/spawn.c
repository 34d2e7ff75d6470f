/* spawn: fork, seize, filter (syscall_filter.c) and exec the traced program. */
#include "supervisor/launch/spawn.h"
#include "supervisor/launch/pages_setup.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/launch/syscall_filter.h"
#include "supervisor/process/tracee.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <unistd.h>

long spawn_ptrace_options(void)
{
    return PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
           PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD;
}

static struct spawn_limits limits_in_force;

void spawn_set_limits(const struct spawn_limits *limits)
{
    limits_in_force = limits ? *limits : (struct spawn_limits){0};
}

static struct {
    bool set;
    uid_t uid;
    gid_t gid;
} program_user;

void spawn_set_program_user(bool set, uid_t uid, gid_t gid)
{
    program_user.set = set;
    program_user.uid = uid;
    program_user.gid = gid;
}

bool spawn_become_program_user(void)
{
    if (!program_user.set)
        return true;
    gid_t g = program_user.gid;
    uid_t u = program_user.uid;
    return setgroups(0, NULL) == 0 && setresgid(g, g, g) == 0 && setresuid(u, u, u) == 0;
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
    struct user_count c = {program_user.set ? program_user.uid : getuid(), 0};
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

bool spawn_apply_limits(void)
{
    return apply_limits(&limits_in_force) == 0;
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

const char *spawn_allocator_path(void)

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
    /* mdat's own switches (MDAT_NO_RUN_AHEAD, ...) are not the program's:
     * with them in its environment its stack would move, and a schedule
     * recorded under one would not replay to the same addresses without. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MDAT_", 5) != 0)
            env[kept++] = environ[i];
    n = kept;
    /* With page ownership, mdat's allocator keeps threads' blocks on
     * pages of their own (inprogram/mdat_alloc.c): glibc's puts them side
     * by side, which would make those pages shared. */
    static char preload[PATH_MAX + 64];
    const char *alloc = follow_pages ? spawn_allocator_path() : NULL;
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

static void close_pipe(int p[2])
{
    close(p[0]);
    close(p[1]);
}

/* The child, from fork to exec. mdat is not dumpable (a program of the
 * same user may not read or write its memory), nor is this copy of it
 * until the filter is in place: only then may mdat seize it (which takes
 * a dumpable process), and from then on nothing in its memory matters
 * any more (a program that rewrote the exec's path would only run
 * another program under the same filter). Until the exec it makes no
 * call the filter stops: without a tracer such a call would fail. */
static void run_child(const struct spawn_request *req, char **env, int go, int seizable, int report)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* A program that does not use the terminal gets a session of its
     * own: the terminal's signals (a resize, Ctrl-C) then go to mdat,
     * not into the middle of a step, and the program cannot draw on a
     * screen mdat owns (mdat attach). With the terminal as its stdio it
     * stays in mdat's foreground process group, as before. */
    int stdin_src = fcntl(req->stdin_fd >= 0 ? req->stdin_fd : 0, F_DUPFD_CLOEXEC, 3);
    bool own_session = !isatty(stdin_src) && !isatty(req->stdout_fd >= 0 ? req->stdout_fd : 1) &&
                       !isatty(req->stderr_fd >= 0 ? req->stderr_fd : 2);
    redirect(req->stdout_fd, 1);
    redirect(req->stderr_fd, 2);
    /* The word to go comes on standard input. */
    redirect(go, 0);
    /* The program gets stdin, stdout and stderr, nothing of mdat's:
     * its own descriptors then start at 3 in every execution and every
     * replay (a pipe is "fd 3" each time), and it cannot reach mdat's
     * files. Closed at exec, so the report pipe still works until then. */
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    if (own_session)
        setsid();
    if (personality(ADDR_NO_RANDOMIZE) < 0)
        child_fail(report, "personality");
    if (apply_limits(&limits_in_force) != 0)
        child_fail(report, "setrlimit");
    if (!spawn_become_program_user())
        child_fail(report, "cannot become the program's user");
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    close(seizable);
    char ready;
    if (read(0, &ready, 1) != 1)
        _exit(127);
    /* The filter once mdat traces the child: a call it stops (the read
     * above, with page ownership's rules) would fail with ENOSYS while no
     * tracer is there yet. */
    if (syscall_filter_install(req->follow_pages) != 0)
        child_fail(report, "seccomp");

    if (stdin_src >= 0)
        dup2(stdin_src, 0);
    else
        close(0);
    execve(req->path, req->argv, env);
    child_exec_fail(report, req->path);
}

/* The child ended before mdat could seize it: why, from its report. */
static void describe_early_end(pid_t pid, int report, char *err, size_t errlen, int seize_errno)
{
    int status;
    if (waitpid(pid, &status, __WALL | WNOHANG) == pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
        char msg[400] = "";
        ssize_t n = read(report, msg, sizeof msg - 1);
        msg[n > 0 ? n : 0] = '\0';
        if (n > 0) {
            snprintf(err, errlen, "could not start the program: %s", msg);
            return;
        }
    }
    snprintf(err, errlen, "ptrace(PTRACE_SEIZE): %s (is ptrace allowed here?)", strerror(seize_errno));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, __WALL);
}

pid_t spawn_traced(const struct spawn_request *req, char *err, size_t errlen)
{
    int go[2], report[2], seizable[2];
    if (!syscall_filter_prepare(req->follow_pages, err, errlen))
        return -1;
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0 || pipe2(seizable, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char **env = program_environment(req->follow_pages);

    if (!env) {
        snprintf(err, errlen, "out of memory");
        close_pipe(go);
        close_pipe(report);
        close_pipe(seizable);
        return -1;
    }
    pid_t supervisor = getpid();
    pid_t pid = fork();
    if (pid != 0)
        free(env);      /* the child's copy goes with its exec */
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close_pipe(go);
        close_pipe(report);
        close_pipe(seizable);
        return -1;
    }
    if (pid == 0) {
        /* Never outlive the supervisor, even before PTRACE_O_EXITKILL applies. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != supervisor)
            _exit(127);
        close(go[1]);
        close(report[0]);
        close(seizable[0]);
        run_child(req, env, go[0], seizable[1], report[1]);
    }
    close(go[0]);
    close(report[1]);
    close(seizable[1]);
    /* End of file when the child is ready to be seized (or is gone). */
    char none;
    while (read(seizable[0], &none, 1) < 0 && errno == EINTR)
        ;
    close(seizable[0]);
    if (ptrace(PTRACE_SEIZE, pid, 0, spawn_ptrace_options()) != 0) {
        describe_early_end(pid, report[0], err, errlen, errno);
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
