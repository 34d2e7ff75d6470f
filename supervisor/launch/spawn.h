/* spawn: starting the program under mdat's control.
 *
 * Owns everything between fork and the first stop after execve: ASLR off, the
 * seccomp filter (syscall_filter.c), CPU pinning inherited from the
 * supervisor, stdio redirection (a program with no terminal for stdio gets
 * a session of its own), the program's user, PTRACE_SEIZE with our
 * options. */
#ifndef MDAT_SUPERVISOR_SPAWN_H
#define MDAT_SUPERVISOR_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Resource limits of the traced program, set with setrlimit in the child
 * before exec (soft and hard alike, never above the hard limit it
 * inherited); 0 leaves a limit as inherited. */
struct spawn_limits {
    uint64_t cpu_sec;           /* RLIMIT_CPU: SIGXCPU, then SIGKILL a second later */
    uint64_t address_space;     /* RLIMIT_AS, bytes: mmap/malloc fail beyond it */
    uint64_t nproc;             /* RLIMIT_NPROC: counts every process and thread of the
                                 * real user, not only the program's; the kernel does
                                 * not apply it to root */
    uint64_t file_size;         /* RLIMIT_FSIZE, bytes: SIGXFSZ beyond it */
};

struct spawn_request {
    const char *path;
    char *const *argv;      /* argv[0] included, NULL-terminated */
    int stdin_fd;           /* -1: inherit */
    int stdout_fd;          /* -1: inherit */
    int stderr_fd;          /* -1: inherit */
    bool follow_pages;      /* page ownership: the system calls it needs stop too (pages_setup.h) */
};


/* The limits of every program this process spawns from now on (NULL:
 * none, the default). Process-wide rather than a request field because
 * the execution engine builds its requests itself: the batch driver sets
 * them once, in the process that explores. The struct is copied. */
void spawn_set_limits(const struct spawn_limits *limits);

/* The user every program this process spawns from now on runs as (set:
 * false, the default: this process's own). mdat grade, as root, runs the
 * program under a user of its own, whom mdat's processes do not share:
 * the kernel then refuses it every signal, trace, limit and read of
 * them. This process must be allowed to become that user and to trace
 * it (CAP_SETUID, CAP_SETGID, CAP_SYS_PTRACE over it). */
void spawn_set_program_user(bool set, uid_t uid, gid_t gid);
/* In a child about to exec the program outside mdat's control (mdat
 * lincheck's native serial runs): the limits spawn_set_limits set. false
 * when setrlimit refused. */
bool spawn_apply_limits(void);
/* In a child about to exec something of the program's (its build):
 * becomes that user, when one is set. false when it cannot. */
bool spawn_become_program_user(void);

/* Processes and threads of the program's user (this process's unless
 * spawn_set_program_user set one) right now (what RLIMIT_NPROC counts),
 * read from /proc. */
uint64_t spawn_user_tasks(void);

/* Forks and execs the program traced. On success returns the pid, stopped at
 * its PTRACE_EVENT_EXEC stop. On failure returns -1 with a one-line reason. */
pid_t spawn_traced(const struct spawn_request *req, char *err, size_t errlen);

/* The ptrace options every tracee gets (inherited by auto-attached threads
 * and children). */
long spawn_ptrace_options(void);

/* mdat's allocator (inprogram/mdat_alloc.c), preloaded into a program
 * whose memory mdat follows by page: beside the mdat binary in a build
 * tree, in libexec/mdat when installed. NULL when neither is there (page
 * ownership goes on with glibc's allocator). */
const char *spawn_allocator_path(void);


#endif
