/* exec_pages: observing sharing, not data, in a running execution.
 *
 * With page ownership on, a user instruction that touches memory is no
 * breakpoint (only atomic instructions are); each thread runs with
 * protection-key rights (pkru.h) that let it touch natively exactly the
 * pages page_owners.h says it may: its stack, the pages it owns, the
 * read-shared ones for reading. A touch of any other page faults (or is
 * found the same way while mdat runs the thread ahead), and is judged:
 * taken over (the thread goes on natively), a visible operation (an
 * observed page, another thread's stack), or a conflict (two threads
 * touched the page without an order between them while it was not
 * observed: the execution must run again with the page observed from its
 * start, exec_result.restart). Happens-before comes from what the engine
 * sees of synchronisation (hb_clocks.h): thread creation and ends, joins,
 * modeled calls, futex wakes, atomic instructions.
 *
 * The key each page must carry changes in the books at once and in the
 * program before a thread runs natively again, through mdat's stub
 * (inject_stub.h) on the way into the resumed thread. System calls that
 * map memory are followed to their end (exec_pages_syscall_exit); those
 * whose buffers the kernel reaches with the thread's rights run with
 * every key open.
 *
 * Owns the glue between the books and the running program; the books
 * are page_owners.c's, the order hb_clocks.c's. */
#ifndef MDAT_ENGINE_EXEC_PAGES_H
#define MDAT_ENGINE_EXEC_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/engine/exec_core.h"

struct x86_insn;

/* Starts following pages for this execution (forked from a template
 * prepared by pages_setup); false with ex->res's error set. */
bool exec_pages_begin(struct execution *ex);
/* What the execution found: pages to observe from the start next time,
 * or that it must run with every access observed. */
void exec_pages_end(struct execution *ex);

/* A thread may touch addr natively now (the running-ahead check). */
bool exec_pages_native(struct execution *ex, const struct mthread *t, uint64_t addr, bool write);

/* What a touch of a page the thread may not touch natively comes to. */
enum page_verdict {
    PV_GO_ON,           /* taken over: run the instruction again, natively */
    PV_VISIBLE,         /* a visible operation of the user's code: the step ends before it */
    PV_CARRY,           /* not the user's (library code): carried out within the step */
    PV_RESTART,         /* the execution runs again (no key for a new thread; a long probe) */
};
/* t, with registers regs (its own, or those it has while mdat runs it
 * ahead), touches addr with the instruction at regs->rip (in, NULL when
 * not decoded). PV_VISIBLE: t's op is that access, t stops at it
 * (STOP_FAULT); PV_CARRY: t->bp_insn is in. */
enum page_verdict exec_pages_touch(struct execution *ex, struct mthread *t, const struct user_regs_struct *regs,
                                   const struct x86_insn *in, uint64_t addr, bool write);
/* t is stopped at a protection-key fault on addr (its signal-delivery
 * stop): judged as above; PV_GO_ON also when only t's rights or a
 * pending key change were behind. */
enum page_verdict exec_pages_fault(struct execution *ex, struct mthread *t, uint64_t addr);
/* t's rights for one instruction the CPU runs for it that touches a page
 * it may not touch natively (a visible operation, or library code's), and
 * back. */
bool exec_pages_open_keys(struct execution *ex, struct mthread *t);
/* t lost its rights (a signal handler starts with the kernel's default):
 * true when they were not t's, and are now. */
bool exec_pages_restore_rights(struct execution *ex, struct mthread *t);

bool exec_pages_close_keys(struct execution *ex, struct mthread *t);

/* Before t runs natively from its stop (PTRACE_CONT): pending key changes
 * are made on the way (t's registers then point at the stub). false on an
 * error (set). */
bool exec_pages_before_native(struct execution *ex, struct mthread *t);
/* Right before t is resumed with PTRACE_CONT and no signal, after
 * exec_pages_before_native: the copies page_cache.c holds of observed
 * pages stay true across the resume when nothing can write them
 * meanwhile (page_cache_keep_next). */
void exec_pages_keep_cache(struct execution *ex, const struct mthread *t);


/* Before t runs one instruction under the CPU's single-step: its rights
 * as the books say. */
bool exec_pages_before_single_step(struct execution *ex, struct mthread *t);

/* Synchronisation as the engine sees it. */
void exec_pages_before_step(struct execution *ex, struct mthread *t);
void exec_pages_woke(struct execution *ex, int waker, int woken, uint64_t word);
void exec_pages_library_atomic(struct execution *ex, struct mthread *t, uint64_t addr);
/* A new thread (its stack [stack_lo, stack_hi) and thread block at tls):
 * false when no key is left for it (the execution must restart). */
bool exec_pages_thread_start(struct execution *ex, struct mthread *parent, struct mthread *child);
/* t enters pthread_create (from any code): the kernel writes the new
 * thread's id into its descriptor with t's rights (clone3's parent_tid,
 * out of any filter's reach), and glibc may reuse the stack of a thread
 * that ended, closed to all; every key is open to t until the thread is
 * born (exec_pages_thread_start). false: t is lost. */
bool exec_pages_creating(struct execution *ex, struct mthread *t);

void exec_pages_thread_end(struct execution *ex, struct mthread *t);
/* The allocator handed t the block [addr, addr + size): what its pages
 * held is dead, whoever touched it before. */
void exec_pages_allocated(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size);
/* t is about to free (or realloc) the block [addr, addr + size): the free
 * is t's use of the whole block. A page of it another thread used
 * unobserved and unordered with t (the block may still be in use there)
 * is a conflict: the execution runs again with the page observed from its
 * start, where the other thread's uses are steps a schedule can put after
 * the free (detect/heap_errors.c judges them). */
void exec_pages_freeing(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size);
/* t freed the block [addr, addr + size): a page of it one thread owns
 * (another thread, or t itself) would let its owner use the block after
 * the free natively, unjudged; it is observed for the rest of the
 * execution, and a later touch by a thread the owner's uses until now are
 * not known to is a conflict (page_owners_observe_owned). */
void exec_pages_freed(struct execution *ex, struct mthread *t, uint64_t addr, uint64_t size);
/* A forked child runs free with every key open. */

void exec_pages_child(struct execution *ex, pid_t child);

/* How long a step may run natively before exec_pages_spin looks at it. */
#define SPIN_WATCH_SEC 1.0
enum spin_verdict {
    SPIN_NONE,          /* no spin on memory it owns: t is stopped, to be resumed */
    SPIN_RESTART,       /* it reads pages nobody shared yet in a loop: run again observing them */
    SPIN_STOPPED,       /* it stopped by itself meanwhile: *status */
    SPIN_LOST,
};
/* t has run natively for SPIN_WATCH_SEC without a stop: interrupts it and
 * follows it for a while, instruction by instruction. A loop that reads
 * only pages some thread owns, none of which another thread could change
 * while it runs alone, never ends under mdat though it might on a CPU:
 * the pages it reads are observed from the start of the next run, where
 * each read is a step and the others get their turn. */
enum spin_verdict exec_pages_spin(struct execution *ex, struct mthread *t, int *status);

/* At the seccomp stop of t's system call: true when the call must be

 * followed to its end (resume with PTRACE_SYSCALL). */
bool exec_pages_syscall_entry(struct execution *ex, struct mthread *t);
/* At its syscall-exit stop. */
void exec_pages_syscall_exit(struct execution *ex, struct mthread *t);

#endif
