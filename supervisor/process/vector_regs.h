/* vector_regs: the vector registers (xmm, ymm, zmm, k, MXCSR) of stopped
 * threads, for the instructions mdat carries out by running them itself
 * (arch/x86_native.c).
 *
 * Read from the kernel (PTRACE_GETREGSET NT_X86_XSTATE) the first time an
 * instruction of a thread needs them while it is stopped, kept while it
 * stays stopped, and written back (PTRACE_SETREGSET) only if an
 * instruction changed them, just before the thread runs again: tracee.c's
 * resumes call vector_regs_before_resume. The engine says whose
 * instructions it carries out (vector_regs_set_thread) and hands the
 * callbacks to the emulator; it knows nothing else of the registers. */
#ifndef MDAT_ENGINE_VECTOR_REGS_H
#define MDAT_ENGINE_VECTOR_REGS_H

#include <stdbool.h>
#include <sys/types.h>

#include "arch/x86_insn.h"

/* The thread whose instructions mdat carries out from now on. */
void vector_regs_set_thread(pid_t tid);
/* struct x86_memory's vector_regs and vector_regs_changed, for that
 * thread (ctx is not used). */
struct x86_vector_regs *vector_regs_fetch(void *ctx);
void vector_regs_mark_changed(void *ctx);
/* tid is about to run: what mdat changed goes to the kernel, and what it
 * held is stale from then on. false when the kernel did not take it. */
bool vector_regs_before_resume(pid_t tid);
/* The same before anything else reads or writes tid's extended state
 * (pkru.c): the copy held here is the whole XSAVE area, whose write-back
 * would otherwise undo a change made beside it (the protection-key
 * rights of page ownership). */
bool vector_regs_flush(pid_t tid);
/* A new thread may have a dead one's tid: nothing held for it holds. */
void vector_regs_forget(pid_t tid);

#endif
