/* x86_regs: general-purpose registers by their capstone names (rax, eax,
 * ax, al, ah...), read and written in a user_regs_struct as the CPU does. */
#include "arch/x86_regs.h"
#include "arch/x86_capstone.h"

#include <stddef.h>

/* Where each general-purpose register name's value lives: indexed by
 * capstone register id (a lookup, not a search: the decoder asks for every
 * register operand of every instruction). slot is 1 + the index in
 * slot_offset, 0 for names that are not general registers. */
struct register_name {
    uint8_t slot, width, shift;
};

#define NAMES(i, q, d, w, b) \
    [q] = {i + 1, 8, 0}, [d] = {i + 1, 4, 0}, [w] = {i + 1, 2, 0}, [b] = {i + 1, 1, 0}
static const struct register_name register_names[X86_REG_ENDING] = {
    NAMES(0, X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL),
    NAMES(1, X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL),
    NAMES(2, X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL),
    NAMES(3, X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL),
    NAMES(4, X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL),
    NAMES(5, X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL),
    NAMES(6, X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL),
    NAMES(7, X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL),
    NAMES(8, X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B),
    NAMES(9, X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B),
    NAMES(10, X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B),
    NAMES(11, X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B),
    NAMES(12, X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B),
    NAMES(13, X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B),
    NAMES(14, X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B),
    NAMES(15, X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B),
    /* ah, bh, ch, dh: bits 8..15 of the first four. */
    [X86_REG_AH] = {1, 1, 8}, [X86_REG_BH] = {2, 1, 8}, [X86_REG_CH] = {3, 1, 8}, [X86_REG_DH] = {4, 1, 8},
};
#undef NAMES

static const size_t slot_offset[16] = {
    offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rbx),
    offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rdx),
    offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
    offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
    offsetof(struct user_regs_struct, r8), offsetof(struct user_regs_struct, r9),
    offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
    offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
    offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
};

bool x86_register_part(uint16_t reg, struct user_regs_struct *r, struct register_part *part)
{
    if (!x86_is_general_register(reg))
        return false;
    const struct register_name *n = &register_names[reg];
    *part = (struct register_part){(unsigned long long *)((char *)r + slot_offset[n->slot - 1]), n->width, n->shift};
    return true;
}

bool x86_is_general_register(uint16_t reg)
{
    return reg < X86_REG_ENDING && register_names[reg].slot != 0;
}

/* The value a register name reads. */
bool x86_read_register(uint16_t reg, const struct user_regs_struct *r, uint64_t *value)
{
    struct register_part part;
    if (!x86_register_part(reg, (struct user_regs_struct *)r, &part))
        return false;
    uint64_t v = *part.full >> part.shift;
    *value = part.width == 8 ? v : v & ((1ull << (part.width * 8)) - 1);
    return true;
}

/* Writes through a register name as the CPU does: a 32-bit name clears the
 * upper half, 8- and 16-bit names leave the other bits alone. */
void x86_write_register(const struct register_part *part, uint64_t value)
{
    switch (part->width) {
    case 8:
        *part->full = value;
        break;
    case 4:
        *part->full = (uint32_t)value;
        break;
    default: {
        uint64_t mask = ((1ull << (part->width * 8)) - 1) << part->shift;
        *part->full = (*part->full & ~mask) | ((value << part->shift) & mask);
        break;
    }
    }
}

