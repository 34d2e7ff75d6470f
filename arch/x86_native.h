/* x86_native: carrying out an instruction by running it, in mdat, on
 * copies of the thread's registers and of the memory it accesses
 * (internal to arch/: x86_decode asks x86_native_classify, x86_emulate
 * calls x86_native_run for X86_EMU_NATIVE).
 *
 * Owns which instructions may be run that way, their translations (the
 * instruction with its memory operand turned into one through a scratch
 * register, then ret, in an executable cache), the register frame they run
 * in and the catching of the faults they raise. The CPU is then its own
 * oracle: SSE, AVX, AVX-512 and FP16 arithmetic, rounding under the
 * program's MXCSR, alignment checks and instructions this CPU lacks all
 * behave as they would in the program, and a fault (#GP, #UD, #DE, an
 * unmasked floating-point exception) makes x86_native_run say no, so that
 * the thread runs the instruction itself and takes the fault there. */
#ifndef MDAT_ARCH_X86_NATIVE_H
#define MDAT_ARCH_X86_NATIVE_H

#include "arch/x86_insn_types.h"

#include <Zydis/Zydis.h>
#include <sys/user.h>

/* Sets out->emulation to X86_EMU_NATIVE when the
 * instruction's only effects are general registers other than rsp, the
 * vector and mask registers, MXCSR, the arithmetic flags and at most one
 * explicit memory operand of 1 to 64 bytes. */
void x86_native_classify(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct x86_insn *out);

/* Runs an X86_EMU_NATIVE instruction as x86_emulate says (see there);
 * addr is its memory operand's effective address (when it has one). */
/* The handlers of SIGILL, SIGSEGV, SIGBUS and SIGFPE that catch a
 * translation's fault are installed on the first run; call this when
 * something has put its own in their place since (a test framework that
 * installs handlers per test). */
void x86_native_claim_fault_signals(void);
bool x86_native_run(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                    uint64_t addr);

#endif
