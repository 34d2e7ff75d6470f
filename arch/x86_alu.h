/* x86_alu: the results and RFLAGS of x86 arithmetic, logic, imul, bit
 * tests, shifts and rotates, as the CPU computes them (internal to arch/:
 * x86_emulate.c carries instructions out with it). */
#ifndef MDAT_ARCH_X86_ALU_H
#define MDAT_ARCH_X86_ALU_H

#include "arch/x86_insn_types.h"

#include <stdbool.h>
#include <stdint.h>

/* The RFLAGS bits arithmetic sets. */
enum {
    X86_FLAG_CF = 1u << 0, X86_FLAG_PF = 1u << 2, X86_FLAG_AF = 1u << 4, X86_FLAG_ZF = 1u << 6,
    X86_FLAG_SF = 1u << 7, X86_FLAG_OF = 1u << 11,
    X86_FLAGS_ARITH = X86_FLAG_CF | X86_FLAG_PF | X86_FLAG_AF | X86_FLAG_ZF | X86_FLAG_SF | X86_FLAG_OF,
};

/* The result of an operation, the flags it sets (set: which ones), and
 * whether the result is written back. */
struct alu_result {
    uint64_t value, flags, set;
    bool stores;
};

/* dest OP src on operands of size bytes (1, 2, 4, 8), with the flags
 * before it (adc and sbb read CF). For shifts and rotates src is the
 * count; for bt* the bit number (the caller has moved a memory bit
 * string's address to the word it is in). */
struct alu_result x86_alu(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size, uint64_t eflags);

/* Whether setcc / cmovcc's condition holds under eflags. */
bool x86_condition_holds(enum x86_cond cond, uint64_t eflags);

/* The bits of a size-byte operand. */
uint64_t x86_mask_of(unsigned size);

#endif
