/* tracee: thin, checked wrappers around ptrace and /proc/PID/mem.
 *
 * Owns the low-level conversation with traced threads: registers, memory,
 * resuming, and waiting for the next stop with a deadline. Counts every ptrace
 * stop it waits for, which is the cost figure mdat reports. */
#ifndef MDAT_SUPERVISOR_TRACEE_H
#define MDAT_SUPERVISOR_TRACEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* Reads or writes len bytes of the address space behind mem_fd (an open
 * /proc/PID/mem). Writes go through read-only text pages too (FOLL_FORCE). */
bool tracee_read(int mem_fd, uint64_t addr, void *buf, size_t len);
bool tracee_write(int mem_fd, uint64_t addr, const void *buf, size_t len);
/* The same as the program itself would: pages it may not read or write
 * (read-only, PROT_NONE, unmapped) fail (process_vm_readv/writev). */
bool tracee_read_as_program(pid_t pid, uint64_t addr, void *buf, size_t len);
bool tracee_write_as_program(pid_t pid, uint64_t addr, const void *buf, size_t len);
/* Whether the program may write all of [addr, addr + len) (nothing changes). */
bool tracee_writable_as_program(pid_t pid, uint64_t addr, size_t len);
/* Reads a NUL-terminated string of at most cap-1 bytes; "" when unreadable. */
void tracee_read_string(int mem_fd, uint64_t addr, char *buf, size_t cap);
int tracee_open_mem(pid_t pid);

bool tracee_get_regs(pid_t tid, struct user_regs_struct *regs);
bool tracee_set_regs(pid_t tid, const struct user_regs_struct *regs);
bool tracee_cont(pid_t tid, int sig);
bool tracee_step(pid_t tid, int sig);
/* Resumes tid to its next system-call entry or exit stop (as tracee_cont,
 * the page copies forgotten first). */
bool tracee_cont_to_syscall(pid_t tid);


/* One stop or exit reported by waitpid. */
struct tracee_event {
    pid_t tid;
    int status;
};

/* Waits for the next event of any tracee until deadline_ns (CLOCK_MONOTONIC;
 * 0 = no deadline). Returns 1 with *ev filled, 0 on timeout, -1 when there is
 * no child left. SIGCHLD must be blocked in the caller (tracee_block_sigchld). */
int tracee_wait_any(struct tracee_event *ev, uint64_t deadline_ns);
/* Waits for the next event of pid alone, leaving every other tracee's
 * events to whoever waits for them. Returns its status, -1 on timeout or
 * when pid is gone. */
int tracee_wait_pid(pid_t pid, uint64_t deadline_ns);
void tracee_block_sigchld(void);
/* hook(ctx) is called about every TRACEE_HOOK_PERIOD_NS while mdat waits
 * for tracees, however long the wait (NULL: none): what must be looked at
 * while the program runs on its own (the size of its captured output). */
#define TRACEE_HOOK_PERIOD_NS 50000000u
void tracee_set_wait_hook(void (*hook)(void *ctx), void *ctx);
/* From now on a wait ends, as at its deadline, within TRACEE_HOOK_PERIOD_NS
 * of *a or *b becoming non-zero (a signal that stops mdat; the parent of a
 * worker giving up the batch; NULL: never), unless held: while the stop
 * is held (a program being killed and reaped) waits run to their end.
 * Holds nest. */
void tracee_set_stop_flags(const volatile int *a, const volatile int *b);
void tracee_hold_stop(bool hold);
/* Whether a flag is set and not held. */
bool tracee_stop_requested(void);
uint64_t monotonic_ns(void);

#endif
