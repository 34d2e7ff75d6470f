/* foreign_attach: holding still a process mdat did not start, and letting
 * it go exactly as it was.
 *
 * Owns the checks before attaching (one-line reasons: no such process,
 * mdat itself, a thread id, a zombie, a 32-bit program, another user's
 * process, one already traced, Yama's ptrace_scope), seizing every thread
 * (PTRACE_SEIZE + PTRACE_INTERRUPT, threads made or ended meanwhile
 * included), reading each one's registers and /proc state, and the detach:
 * a signal that arrived during the attach goes back, a thread that was
 * stopped (T) stays stopped, no register is written. What the threads wait
 * on is for foreign_waits.c to say. */
#ifndef MDAT_INSPECT_FOREIGN_ATTACH_H
#define MDAT_INSPECT_FOREIGN_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/user.h>

struct foreign_thread {
    pid_t tid;
    char name[32];          /* /proc/PID/task/TID/comm */
    char proc_state;        /* /proc stat state before the attach: R, S, D, T, t, Z... */
    bool seized;            /* ours to detach */
    bool stopped;           /* it reported a stop: registers and memory are readable */
    int resend_signal;      /* a signal it was about to take when it stopped: given back at detach */
    bool have_regs;
    struct user_regs_struct regs;
};

struct foreign_process {
    pid_t pid;
    /* The thread whose /proc entries show the process's files, memory and
     * maps: the pid, or, once the main thread has ended (pthread_exit in
     * main: a zombie leader has none of them), a thread still running. */
    pid_t proc_tid;
    char exe[PATH_MAX];     /* /proc/PROC_TID/exe */
    char comm[32];
    struct foreign_thread *threads;     /* sorted by tid: the leader first */
    size_t n_threads;
    int mem_fd;             /* /proc/PID/mem, -1 when it could not be opened */
};

/* Says why pid cannot be attached to (err, one line, no "mdat:"), or
 * returns true when nothing stands in the way that mdat can see. */
bool foreign_check(pid_t pid, char *err, size_t errlen);

/* Seizes and stops every thread of pid. On failure nothing stays
 * attached and err says why. */
bool foreign_attach(pid_t pid, struct foreign_process *out, char *err, size_t errlen);

/* Lets every thread go as it was (what was read stays in p). Returns
 * false (and why) when a thread could not be detached. */
bool foreign_detach(struct foreign_process *p, char *err, size_t errlen);
void foreign_free(struct foreign_process *p);

/* A thread a held thread of p just made (PTRACE_O_TRACECLONE seized it):
 * added at the end of p->threads (the array may move) once it reported its
 * first stop. NULL (err) when it could not be added or did not stop. */
struct foreign_thread *foreign_adopt_thread(struct foreign_process *p, pid_t tid, char *err, size_t errlen);

/* The tid's number in p, 1 for the leader (T1, T2...), 0 when not one of p's. */
int foreign_thread_number(const struct foreign_process *p, pid_t tid);

#endif
