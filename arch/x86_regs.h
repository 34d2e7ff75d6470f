/* x86_regs: the general-purpose registers of a thread (user_regs_struct)
 * by the decoder's register names (ZydisRegister: rax, eax, ax, al, ah...),
 * for the decoder and the emulator (internal to arch/). */
#ifndef MDAT_ARCH_X86_REGS_H
#define MDAT_ARCH_X86_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

/* A general-purpose register name: which 64-bit register it is part of,
 * how many bytes it names, and where in the register they start. */
struct register_part {
    unsigned long long *full;
    unsigned width;     /* 1, 2, 4 or 8 */
    int shift;          /* 8 for ah..dh */
};

bool x86_register_part(uint16_t reg, struct user_regs_struct *r, struct register_part *part);
bool x86_is_general_register(uint16_t reg);
/* The 64-bit register a general register name is part of, by its number
 * in the encoding (rax 0, rcx 1, ... r15 15); -1 for other names. */
int x86_general_register_number(uint16_t reg);
/* The value a register name reads. */
bool x86_read_register(uint16_t reg, const struct user_regs_struct *r, uint64_t *value);
/* Writes through a register name as the CPU does: a 32-bit name clears the
 * upper half, 8- and 16-bit names leave the other bits alone. */
void x86_write_register(const struct register_part *part, uint64_t value);

#endif
