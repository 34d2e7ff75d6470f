/* io_wait: probing descriptors and children of the traced process. */
#include "supervisor/process/io_wait.h"
#include "supervisor/process/proc_stat.h"
#include "supervisor/process/tracee.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif
#ifndef CLONE_VM
#define CLONE_VM 0x00000100
#endif

enum io_call io_call_of(long nr, const uint64_t args[6])
{
    switch (nr) {
    case SYS_read: case SYS_write: case SYS_readv: case SYS_writev:
        /* Standard input never waits (mdat's input file or /dev/null) and
         * the standard outputs are files mdat captures, or the terminal:
         * their calls stop only for the order of the steps that make them
         * (exec_syscalls.c tell_descriptor) and, with page ownership, for
         * their buffers, which is no wait. */
        return args[0] > 2 ? IO_FD : IO_NONE;
    case SYS_recvfrom:
 case SYS_recvmsg: case SYS_sendto: case SYS_sendmsg:
    case SYS_accept: case SYS_accept4: case SYS_connect:
        return IO_FD;
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait:
        return IO_MULTI;
    case SYS_wait4: case SYS_waitid:
        return IO_CHILD;
    case SYS_fork: case SYS_vfork: case SYS_execve: case SYS_execveat:
        return IO_PROCESS;
    case SYS_clone:
        return (args[0] & CLONE_THREAD) ? IO_NONE : IO_PROCESS;
    default:
        return IO_NONE;
    }
}

static bool is_write(long nr)
{
    return nr == SYS_write || nr == SYS_writev || nr == SYS_sendto || nr == SYS_sendmsg || nr == SYS_connect;
}

/* What kind of file fd of pid is: "pipe", "socket", "eventfd", "file"... */
static void fd_kind(pid_t pid, int fd, char *buf, size_t len)
{
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) {
        snprintf(buf, len, "closed");
        return;
    }
    target[n] = '\0';
    if (strncmp(target, "pipe:", 5) == 0)
        snprintf(buf, len, "pipe");
    else if (strncmp(target, "socket:", 7) == 0)
        snprintf(buf, len, "socket");
    else if (strstr(target, "eventfd"))
        snprintf(buf, len, "eventfd");
    else if (strncmp(target, "anon_inode:", 11) == 0)
        snprintf(buf, len, "%s", target + 11);
    else
        snprintf(buf, len, "%s", target);
}

/* Duplicates the program's fd into mdat; -1 when it is not open. */
static int borrow(int pidfd, int fd)
{
    if (fd < 0 || pidfd < 0)
        return -1;
    return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

/* poll() on the program's descriptors, zero timeout: how many are ready,
 * -1 when one could not be looked at. */
static int poll_borrowed(int pidfd, const int *fds, const short *events, int n)
{
    struct pollfd small[16], *p = n <= 16 ? small : calloc((size_t)n, sizeof *p);
    if (!p)
        return -1;
    int ok = 0;
    for (int i = 0; i < n; i++) {
        p[i] = (struct pollfd){.fd = borrow(pidfd, fds[i]), .events = events[i]};
        if (p[i].fd < 0 && fds[i] >= 0)
            ok = -1;
    }
    int ready = ok < 0 ? -1 : poll(p, (nfds_t)n, 0);
    for (int i = 0; i < n; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    if (p != small)
        free(p);
    return ready;
}

/* Bytes waiting to be read in the pipe behind fd. */
static bool ioctl_fionread(int fd, int *bytes)
{
    return ioctl(fd, FIONREAD, bytes) == 0;
}

/* Files, terminals and devices answer at once (or wait for the outside
 * world, which mdat cannot schedule): only pipes, sockets and the like are
 * waits on the program itself. */
static bool may_wait_on_program(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return false;
    return !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
}

static enum io_readiness fd_readiness(int pidfd, long nr, const uint64_t args[6])
{
    int fd = (int)args[0];
    int mine = borrow(pidfd, fd);
    if (mine < 0)
        return IO_PASS;
    if (!may_wait_on_program(mine)) {
        close(mine);
        return IO_PASS;
    }
    int flags = fcntl(mine, F_GETFL);
    struct pollfd p = {.fd = mine, .events = is_write(nr) ? POLLOUT : POLLIN};
    bool ready = poll(&p, 1, 0) > 0;
    /* A blocking write to a pipe finishes only when all of it fits. */
    if (ready && (nr == SYS_write) && args[2] > 0) {
        int size = fcntl(mine, F_GETPIPE_SZ), used = 0;
        if (size > 0 && ioctl_fionread(mine, &used) && (uint64_t)(size - used) < args[2] && args[2] <= (uint64_t)size)
            ready = false;
    }
    /* recv/send with MSG_DONTWAIT never wait. */
    bool dontwait = (nr == SYS_recvfrom || nr == SYS_sendto || nr == SYS_recvmsg || nr == SYS_sendmsg) &&
                    (args[3] & 0x40 /* MSG_DONTWAIT */);
    close(mine);
    if (flags >= 0 && (flags & O_NONBLOCK))
        return IO_PASS;
    if (dontwait)
        return IO_PASS;
    return ready ? IO_READY : IO_WOULD_BLOCK;
}

/* poll/ppoll: the pollfd array in the program's memory. */
static int read_pollfds(int mem_fd, uint64_t addr, uint64_t n, int **fds, short **events)
{
    if (n == 0 || n > 4096)
        return 0;
    struct pollfd *p = calloc(n, sizeof *p);
    *fds = calloc(n, sizeof **fds);
    *events = calloc(n, sizeof **events);
    if (!p || !*fds || !*events || !tracee_read(mem_fd, addr, p, n * sizeof *p)) {
        free(p);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        (*fds)[i] = p[i].fd;
        (*events)[i] = p[i].events;
    }
    free(p);
    return (int)n;
}

/* select/pselect6: the three fd_sets (read, write, except) in memory. */
static int read_fdsets(int mem_fd, const uint64_t args[6], int **fds, short **events)
{
    int nfds = (int)args[0];
    if (nfds <= 0 || nfds > FD_SETSIZE)
        return 0;
    fd_set sets[3];
    short kinds[3] = {POLLIN, POLLOUT, POLLPRI};
    int n = 0;
    *fds = calloc((size_t)nfds * 3, sizeof **fds);
    *events = calloc((size_t)nfds * 3, sizeof **events);
    if (!*fds || !*events)
        return -1;
    for (int k = 0; k < 3; k++) {
        FD_ZERO(&sets[k]);
        if (args[1 + k] && !tracee_read(mem_fd, args[1 + k], &sets[k], sizeof sets[k]))
            return -1;
        for (int fd = 0; fd < nfds; fd++)
            if (args[1 + k] && FD_ISSET(fd, &sets[k])) {
                (*fds)[n] = fd;
                (*events)[n++] = kinds[k];
            }
    }
    return n;
}

/* The descriptors a poll-like call watches; -1 when unreadable. */
static int watched_fds(int mem_fd, long nr, const uint64_t args[6], int **fds, short **events)
{
    *fds = NULL;
    *events = NULL;
    if (nr == SYS_poll || nr == SYS_ppoll)
        return read_pollfds(mem_fd, args[0], args[1], fds, events);
    if (nr == SYS_select || nr == SYS_pselect6)
        return read_fdsets(mem_fd, args, fds, events);
    /* epoll: the epoll descriptor itself is readable when events are due. */
    *fds = calloc(1, sizeof **fds);
    *events = calloc(1, sizeof **events);
    if (!*fds || !*events)
        return -1;
    (*fds)[0] = (int)args[0];
    (*events)[0] = POLLIN;
    return 1;
}

/* A zero timeout asks, it does not wait. */
static bool timeout_is_zero(int mem_fd, long nr, const uint64_t args[6])
{
    int64_t ts[2] = {1, 0};
    switch (nr) {
    case SYS_poll:
        return (int)args[2] == 0;
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
        return (int)args[3] == 0;
    case SYS_ppoll:
        return args[2] && tracee_read(mem_fd, args[2], ts, sizeof ts) && ts[0] == 0 && ts[1] == 0;
    case SYS_select:
    case SYS_pselect6:
        return args[4] && tracee_read(mem_fd, args[4], ts, sizeof ts) && ts[0] == 0 && ts[1] == 0;
    default:
        return false;
    }
}

static enum io_readiness multi_readiness(int pidfd, int mem_fd, long nr, const uint64_t args[6])
{
    if (timeout_is_zero(mem_fd, nr, args))
        return IO_PASS;
    int *fds;
    short *events;
    int n = watched_fds(mem_fd, nr, args, &fds, &events);
    int ready = n > 0 ? poll_borrowed(pidfd, fds, events, n) : -1;
    free(fds);
    free(events);
    if (n <= 0 || ready < 0)
        return IO_PASS;     /* nothing to watch (a sleep) or unreadable: let it run */
    return ready > 0 ? IO_READY : IO_WOULD_BLOCK;
}

/* The state letter of a process ('Z' zombie), 0 if gone. */
static char process_state(pid_t pid)
{
    struct proc_stat st;
    return proc_stat_read(pid, 0, &st) ? st.state : 0;
}

/* wait4/waitid: ready when a child it waits for has ended (or there is
 * none: the call fails at once). */
static enum io_readiness child_readiness(pid_t pid, long nr, const uint64_t args[6])
{
    bool nohang = nr == SYS_wait4 ? (args[2] & WNOHANG) : (args[3] & WNOHANG);
    if (nohang)
        return IO_PASS;
    pid_t want = -1;
    if (nr == SYS_wait4 && (pid_t)args[0] > 0)
        want = (pid_t)args[0];
    else if (nr == SYS_waitid && args[0] == P_PID)
        want = (pid_t)args[1];
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return IO_PASS;
    bool any = false, ended = false;
    struct dirent *e;
    while (!ended && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%s/children", (int)pid, e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        int child;
        while (!ended && fscanf(f, "%d", &child) == 1) {
            if (want > 0 && child != want)
                continue;
            any = true;
            char st = process_state(child);
            ended = st == 'Z' || st == 'X' || st == 0;
        }
        fclose(f);
    }
    closedir(d);
    if (!any)
        return IO_PASS;     /* no such child: ECHILD at once */
    return ended ? IO_READY : IO_WOULD_BLOCK;
}

enum io_readiness io_readiness(int pidfd, pid_t pid, pid_t tid, int mem_fd, long nr, const uint64_t args[6])
{
    (void)tid;
    switch (io_call_of(nr, args)) {
    case IO_FD:
        return fd_readiness(pidfd, nr, args);
    case IO_MULTI:
        return multi_readiness(pidfd, mem_fd, nr, args);
    case IO_CHILD:
        return child_readiness(pid, nr, args);
    case IO_PROCESS:
        return IO_READY;
    case IO_NONE:
        break;
    }
    return IO_PASS;
}

const char *io_verb(long nr)
{
    switch (nr) {
    case SYS_read: case SYS_readv: return "read";
    case SYS_write: case SYS_writev: return "write";
    case SYS_recvfrom: case SYS_recvmsg: return "recv";
    case SYS_sendto: case SYS_sendmsg: return "send";
    case SYS_accept: case SYS_accept4: return "accept";
    case SYS_connect: return "connect";
    case SYS_poll: case SYS_ppoll: return "poll";
    case SYS_select: case SYS_pselect6: return "select";
    case SYS_epoll_wait: case SYS_epoll_pwait: return "epoll_wait";
    case SYS_wait4: case SYS_waitid: return "wait";
    case SYS_fork: case SYS_vfork: case SYS_clone: return "fork";
    case SYS_execve: case SYS_execveat: return "exec";
    default: return "syscall";
    }
}

void io_describe(pid_t pid, long nr, const uint64_t args[6], char *buf, size_t len)
{
    char kind[64];
    switch (io_call_of(nr, args)) {
    case IO_FD:
        fd_kind(pid, (int)args[0], kind, sizeof kind);
        snprintf(buf, len, "%s(fd %d: %s)", io_verb(nr), (int)args[0], kind);
        return;
    case IO_MULTI:
        if (nr == SYS_poll || nr == SYS_ppoll)
            snprintf(buf, len, "%s(%d fd%s)", io_verb(nr), (int)args[1], args[1] == 1 ? "" : "s");
        else if (nr == SYS_select || nr == SYS_pselect6)
            snprintf(buf, len, "%s(fds below %d)", io_verb(nr), (int)args[0]);
        else
            snprintf(buf, len, "%s(fd %d)", io_verb(nr), (int)args[0]);
        return;
    case IO_CHILD:
        /* Never the pid: it differs from one execution to the next. */
        snprintf(buf, len, "wait(%s)", (nr == SYS_wait4 && (pid_t)args[0] > 0) ? "a child" : "any child");
        return;
    default:
        snprintf(buf, len, "%s", io_verb(nr));
        return;
    }
}

bool io_waits_only_inside(pid_t pid, int mem_fd, long nr, const uint64_t args[6])
{
    enum io_call call = io_call_of(nr, args);
    if (call != IO_FD && call != IO_MULTI)
        return false;
    int single = (int)args[0], *fds = &single;
    short ev = 0, *events = &ev;
    int n = call == IO_FD ? 1 : watched_fds(mem_fd, nr, args, &fds, &events);
    bool inside = n > 0;
    for (int i = 0; i < n && inside; i++) {
        char kind[64];
        fd_kind(pid, fds[i], kind, sizeof kind);
        inside = strcmp(kind, "pipe") == 0 || strcmp(kind, "eventfd") == 0;
    }
    if (call == IO_MULTI) {
        free(fds);
        free(events);
    }
    return inside;
}
