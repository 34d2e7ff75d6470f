/* io_wait: system calls that can wait for something another thread of the
 * program (or a child process) will do: reads and writes on pipes, sockets
 * and eventfds, poll/select/epoll, accept/connect, wait4/waitid.
 *
 * Decides, from mdat's side and without waiting, whether such a call would
 * block now: the program's file descriptors are duplicated into mdat
 * (pidfd_getfd) and polled with a zero timeout; for wait4, the children's
 * states are read from /proc. Knows nothing of scheduling: the engine turns
 * "would block" into a thread waiting in its model (exec_syscalls.c). */
#ifndef MDAT_ENGINE_IO_WAIT_H
#define MDAT_ENGINE_IO_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum io_call {
    IO_NONE,            /* not a call this file models */
    IO_FD,              /* one descriptor: read, write, recv, send, accept, connect */
    IO_MULTI,           /* several: poll, select, epoll_wait */
    IO_CHILD,           /* wait4, waitid */
    IO_PROCESS,         /* fork, vfork, a clone that makes a process, execve */
};

enum io_readiness {
    IO_PASS,            /* never blocks (a regular file, O_NONBLOCK, WNOHANG...): just run it */
    IO_READY,           /* would complete now */
    IO_WOULD_BLOCK,     /* would wait in the kernel */
};

/* What the call is, from its number and arguments (clone's flags say
 * thread or process). */
enum io_call io_call_of(long nr, const uint64_t args[6]);
/* Whether the call of process pid (its thread tid, memory mem_fd, pidfd)
 * would block now. Errors (a closed descriptor) are IO_PASS: the call
 * then fails by itself. */
enum io_readiness io_readiness(int pidfd, pid_t pid, pid_t tid, int mem_fd, long nr, const uint64_t args[6]);
/* "read(fd 3: pipe)", "accept(fd 5: socket)", "poll(2 fds)", "wait4(any child)", "fork". */
void io_describe(pid_t pid, long nr, const uint64_t args[6], char *buf, size_t len);
/* The short verb of the call for traces: "read", "write", "poll", "wait", "fork", "exec". */
const char *io_verb(long nr);
/* Every descriptor the call waits on is a pipe or an eventfd (nothing
 * outside the program is expected to complete it). */
bool io_waits_only_inside(pid_t pid, int mem_fd, long nr, const uint64_t args[6]);

#endif
