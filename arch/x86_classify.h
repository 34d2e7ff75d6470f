/* x86_classify: what x86_emulate could carry out of one decoded
 * instruction with its own C code (internal to arch/: x86_decode calls
 * it; x86_native.c takes what it leaves).
 *
 * Owns the x86_insn fields that describe the instruction in register and
 * value terms: store_known/store_reg/store_imm (what a plain store writes),
 * emulation, load_reg, src_reg, alu_op, alu_form, cond, and for lea the
 * address expression in mem[0]. Memory operands, flags and atomicity are
 * x86_insn.c's and are already filled in when it is called. */
#ifndef MDAT_ARCH_X86_CLASSIFY_H
#define MDAT_ARCH_X86_CLASSIFY_H

#include "arch/x86_insn_types.h"

#include <Zydis/Zydis.h>

/* string: movs/cmps/stos/lods/scas. */
void x86_classify(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, bool string,
                  struct x86_insn *out);

#endif
