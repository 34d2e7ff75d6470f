/* spawn: fork, seize, filter and exec the traced program. */
#include "supervisor/spawn.h"
#include "supervisor/tracee.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long spawn_ptrace_options(void)
{
    return PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
           PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;
}

/* Only the syscalls mdat models stop the tracee; everything else runs at full
 * speed. clone, exit and execve are seen through ptrace events instead. */
static int install_seccomp_filter(void)
{
    static const int modeled[] = {
        SYS_futex, SYS_sched_yield, SYS_nanosleep, SYS_clock_nanosleep,
        /* Signals between threads: a thread blocked in mdat's model must
         * see the ones sent to it (they run; mdat only takes note). */
        SYS_kill, SYS_tkill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
#ifdef SYS_futex_waitv
        SYS_futex_waitv,
#else
        449,
#endif
    };
    enum { N = sizeof modeled / sizeof modeled[0] };
    struct sock_filter code[4 + N + 2];
    int k = 0;
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    /* Other ABIs (int 0x80) are not modeled: let them through. */
    code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < N; i++)
        code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)modeled[i],
                                                 (unsigned char)(N - i), 0);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    struct sock_fprog prog = {.len = (unsigned short)k, .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
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

static void redirect(int from, int to)
{
    if (from >= 0 && from != to)
        dup2(from, to);
}

pid_t spawn_traced(const struct spawn_request *req, char *err, size_t errlen)
{
    int go[2], report[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t supervisor = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
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
        /* A program that does not use the terminal gets a session of its
         * own: the terminal's signals (a resize, Ctrl-C) then go to mdat,
         * not into the middle of a step, and the program cannot draw on a
         * screen mdat owns (mdat attach). With the terminal as its stdio it
         * stays in mdat's foreground process group, as before. */
        if (!isatty(0) && !isatty(1) && !isatty(2))
            setsid();
        if (personality(ADDR_NO_RANDOMIZE) < 0)
            child_fail(report[1], "personality");
        if (install_seccomp_filter() != 0)
            child_fail(report[1], "seccomp");
        execv(req->path, req->argv);
        child_fail(report[1], "exec");
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
            char msg[256] = "";
            ssize_t n = read(report[0], msg, sizeof msg - 1);
            msg[n > 0 ? n : 0] = '\0';
            snprintf(err, errlen, "could not start the program: %s", n > 0 ? msg : "it exited before exec");
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
