/* x86_insn: decoding and classifying one x86-64 instruction (Zydis underneath).
 *
 * Owns the question "what memory does this instruction touch, and how": the
 * supervisor asks it once per instruction of the main executable when it builds
 * its breakpoint table, and again at run time to compute the effective address
 * of the access a stopped thread is about to make. Knows nothing of scheduling.
 * The instruction as data is in arch/x86_insn_types.h; x86_decode is in
 * x86_insn.c (with x86_classify.c deciding what can be emulated), the
 * emulation functions below in x86_emulate.c. */
#ifndef MDAT_ARCH_X86_INSN_H
#define MDAT_ARCH_X86_INSN_H

#include "arch/x86_insn_types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* The vector registers in the layout of an XSAVE area in standard form
 * (what PTRACE_GETREGSET NT_X86_XSTATE gives): components this CPU lacks
 * or that the area says are in their initial state read as zeros. */
bool x86_vector_regs_from_xsave(const void *xsave, size_t size, struct x86_vector_regs *out);
/* Writes them back into such an area (marking their components as in
 * use), for PTRACE_SETREGSET. */
bool x86_vector_regs_to_xsave(const struct x86_vector_regs *regs, void *xsave, size_t size);

typedef struct x86_decoder x86_decoder;

x86_decoder *x86_decoder_new(void);
void x86_decoder_free(x86_decoder *d);

/* Decodes the instruction at code[0..size) located at address. False when the
 * bytes are not a valid instruction. */
bool x86_decode(x86_decoder *d, const uint8_t *code, size_t size, uint64_t address,
                struct x86_insn *out);

/* True when the instruction may be a visible operation: it accesses memory
 * that is not provably the running thread's own stack frame or TLS, or it is
 * atomic. frame_pointer says whether rbp is the frame pointer in the function
 * this instruction belongs to. */
bool x86_insn_may_be_visible(const struct x86_insn *insn, bool frame_pointer);

/* Effective address of memory operand i given the registers of the thread
 * stopped *at* this instruction (regs->rip == insn->address). fs/gs-based
 * operands add regs->fs_base / gs_base. Two cases say more than the
 * operand's text: for bt/bts/btr/btc [m], reg (X86_EMU_ALU) it is the
 * operand-sized word the CPU accesses, [m] moved by the bit offset's
 * multiple of the operand size (the bit string may extend far beyond [m]);
 * for X86_EMU_LEA, i == 0 is the address lea computes (nothing accessed). */
uint64_t x86_effective_address(const struct x86_insn *insn, int i,
                               const struct user_regs_struct *regs);

/* The value a plain store (insn->store_known) is about to write, given the
 * registers of the thread stopped at it, truncated to the store's size.
 * False for other instructions and for registers not in user_regs_struct. */
bool x86_store_value(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *value);

/* Performs an emulatable instruction (insn->emulation) on regs and mem as
 * the CPU would (X86_EMU_NATIVE: on mem's vector registers too), rip included (jmp [m] and call [m] set it to the target), for a
 * thread stopped at it. RFLAGS: CF, PF, AF, ZF, SF and OF as the CPU sets
 * them; flags the manuals leave undefined (AF after logic operations is
 * cleared, SF/ZF/AF/PF after imul and bt* are left as they were, as AMD
 * cores do) may differ from another CPU's; other bits untouched. False, with
 * nothing changed, when the instruction is not one of those or the memory
 * could not be reached (the caller then lets the CPU run it, fault and
 * all). The caller decides whether the address (x86_emulated_access) is one
 * the program may access: mem may well reach pages the program could not. */
bool x86_emulate(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem);
/* The memory an emulatable instruction would touch: false when none
 * (set, move, lea, nop, arithmetic, setcc and cmov on registers), else its
 * address, size and direction (write: it may store; cmp, test, bt, cmov
 * and loads only read). */
bool x86_emulated_access(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *addr,
                         unsigned *size, bool *write);

/* A read-modify-write on memory without LOCK (add, sub, adc, sbb, and, or,
 * xor, inc, dec, neg, not, bts, btr, btc with a memory destination): on
 * real hardware the load and the store are two accesses another core can
 * come between. The engine splits it into two steps: x86_rmw_load reads
 * the old value (nothing else changes), and later x86_rmw_store computes
 * from that old value (not from memory as it is then), stores, sets the
 * flags and advances rip, as the whole instruction would have done had it
 * read `old`. */
bool x86_is_split_rmw(const struct x86_insn *insn);
bool x86_rmw_load(const struct x86_insn *insn, const struct user_regs_struct *regs, const struct x86_memory *mem,
                  uint64_t *old);
bool x86_rmw_store(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                   uint64_t old);
/* The value x86_rmw_store would write from old (for traces: "5 -> 6"). */
bool x86_rmw_result(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t old, uint64_t *result);

/* What a cmpxchg does, from the registers before it and the memory value
 * it found: expected (the accumulator), desired (the source register),
 * and whether it stores (found == expected, which is ZF after it). Around
 * one emulated step: read `found` (size bytes at x86_emulated_access's
 * address) and keep the registers, then x86_emulate; or ask before the
 * step, to say what it will do, as the memory is now. */
struct x86_cas {
    uint64_t expected, found, desired;
    bool stored;
    unsigned size;
};
bool x86_cas_outcome(const struct x86_insn *insn, const struct user_regs_struct *before, uint64_t found,
                     struct x86_cas *out);

/* True when code (the first bytes of a function) starts with the frame-pointer
 * prologue "[endbr64] push rbp; mov rbp, rsp". */
bool x86_is_frame_pointer_prologue(const uint8_t *code, size_t size);

#endif
