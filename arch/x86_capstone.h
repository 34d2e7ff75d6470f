/* x86_capstone: the one way to include <capstone/capstone.h> in mdat.
 *
 * capstone's x86.h declares `enum x86_insn`, and C has a single tag namespace
 * for struct, union and enum, so it cannot share a translation unit with
 * arch/x86_insn.h's `struct x86_insn`. This header renames capstone's enum tag
 * (and its typedef) to capstone_x86_insn while including it; the X86_INS_* and
 * X86_REG_* constants keep their names. Include it, never capstone directly,
 * wherever arch/x86_insn.h is also visible (e.g. to compare
 * x86_mem_operand.base with X86_REG_RSP). */
#ifndef MDAT_ARCH_X86_CAPSTONE_H
#define MDAT_ARCH_X86_CAPSTONE_H

#define x86_insn capstone_x86_insn
#include <capstone/capstone.h>
#undef x86_insn

#endif
