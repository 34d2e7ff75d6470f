/* x86_regs: general-purpose registers by their capstone names (rax, eax,
 * ax, al, ah...), read and written in a user_regs_struct as the CPU does. */
#include "arch/x86_regs.h"
#include "arch/x86_capstone.h"

#include <stddef.h>

/* The general-purpose registers by each of their names, and where their
 * value lives in user_regs_struct. */
static const struct { uint16_t q, d, w, b; size_t offset; } general_registers[] = {
    {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, offsetof(struct user_regs_struct, rax)},
    {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, offsetof(struct user_regs_struct, rbx)},
    {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, offsetof(struct user_regs_struct, rcx)},
    {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, offsetof(struct user_regs_struct, rdx)},
    {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, offsetof(struct user_regs_struct, rsi)},
    {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, offsetof(struct user_regs_struct, rdi)},
    {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, offsetof(struct user_regs_struct, rbp)},
    {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, offsetof(struct user_regs_struct, rsp)},
    {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, offsetof(struct user_regs_struct, r8)},
    {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, offsetof(struct user_regs_struct, r9)},
    {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, offsetof(struct user_regs_struct, r10)},
    {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, offsetof(struct user_regs_struct, r11)},
    {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, offsetof(struct user_regs_struct, r12)},
    {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, offsetof(struct user_regs_struct, r13)},
    {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, offsetof(struct user_regs_struct, r14)},
    {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, offsetof(struct user_regs_struct, r15)},
};
/* ah, bh, ch, dh: bits 8..15 of the first four. */
static const uint16_t high_byte_registers[] = {X86_REG_AH, X86_REG_BH, X86_REG_CH, X86_REG_DH};

bool x86_register_part(uint16_t reg, struct user_regs_struct *r, struct register_part *part)
{
    for (size_t i = 0; i < sizeof general_registers / sizeof general_registers[0]; i++) {
        unsigned width = reg == general_registers[i].q ? 8 : reg == general_registers[i].d ? 4
                       : reg == general_registers[i].w ? 2 : reg == general_registers[i].b ? 1 : 0;
        if (width) {
            *part = (struct register_part){(unsigned long long *)((char *)r + general_registers[i].offset), width, 0};
            return true;
        }
    }
    for (size_t i = 0; i < sizeof high_byte_registers / sizeof high_byte_registers[0]; i++) {
        if (reg == high_byte_registers[i]) {
            *part = (struct register_part){(unsigned long long *)((char *)r + general_registers[i].offset), 1, 8};
            return true;
        }
    }
    return false;
}

bool x86_is_general_register(uint16_t reg)
{
    struct user_regs_struct scratch;
    struct register_part part;
    return x86_register_part(reg, &scratch, &part);
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

