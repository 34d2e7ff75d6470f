/* spawn: starting the program under mdat's control.
 *
 * Owns everything between fork and the first stop after execve: ASLR off, the
 * seccomp filter that makes only modeled syscalls stop, CPU pinning inherited
 * from the supervisor, stdio redirection (a program with no terminal for
 * stdio gets a session of its own), PTRACE_SEIZE with our options. */
#ifndef MDAT_SUPERVISOR_SPAWN_H
#define MDAT_SUPERVISOR_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn_request {
    const char *path;
    char *const *argv;      /* argv[0] included, NULL-terminated */
    int stdin_fd;           /* -1: inherit */
    int stdout_fd;          /* -1: inherit */
    int stderr_fd;          /* -1: inherit */
};

/* Forks and execs the program traced. On success returns the pid, stopped at
 * its PTRACE_EVENT_EXEC stop. On failure returns -1 with a one-line reason. */
pid_t spawn_traced(const struct spawn_request *req, char *err, size_t errlen);

/* The ptrace options every tracee gets (inherited by auto-attached threads
 * and children). */
long spawn_ptrace_options(void);

#endif
