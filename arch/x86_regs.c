/* x86_regs: general-purpose registers by the decoder's names (rax, eax,
 * ax, al, ah...), read and written in a user_regs_struct as the CPU does. */
#include "arch/x86_regs.h"

#include <Zydis/Zydis.h>
#include <stddef.h>

/* Where each general-purpose register name's value lives: indexed by
 * Zydis register id (a lookup, not a search: the decoder asks for every
 * register operand of every instruction). number is 1 + the register's
 * number in the encoding, 0 for names that are not general registers. */
struct register_name {
    uint8_t number, width, shift;
};

/* Zydis lists each width's names in the encoding's order (al cl dl bl ah
 * ch dh bh spl bpl sil dil r8b..., ax cx dx bx sp bp si di r8w...). */
#define NAMES(n) \
    [ZYDIS_REGISTER_RAX + n] = {n + 1, 8, 0}, [ZYDIS_REGISTER_EAX + n] = {n + 1, 4, 0}, \
    [ZYDIS_REGISTER_AX + n] = {n + 1, 2, 0}
static const struct register_name register_names[ZYDIS_REGISTER_MAX_VALUE + 1] = {
    NAMES(0), NAMES(1), NAMES(2), NAMES(3), NAMES(4), NAMES(5), NAMES(6), NAMES(7),
    NAMES(8), NAMES(9), NAMES(10), NAMES(11), NAMES(12), NAMES(13), NAMES(14), NAMES(15),
    [ZYDIS_REGISTER_AL] = {1, 1, 0}, [ZYDIS_REGISTER_CL] = {2, 1, 0}, [ZYDIS_REGISTER_DL] = {3, 1, 0},
    [ZYDIS_REGISTER_BL] = {4, 1, 0},
    /* ah, ch, dh, bh: bits 8..15 of the first four. */
    [ZYDIS_REGISTER_AH] = {1, 1, 8}, [ZYDIS_REGISTER_CH] = {2, 1, 8}, [ZYDIS_REGISTER_DH] = {3, 1, 8},
    [ZYDIS_REGISTER_BH] = {4, 1, 8},
    [ZYDIS_REGISTER_SPL] = {5, 1, 0}, [ZYDIS_REGISTER_BPL] = {6, 1, 0}, [ZYDIS_REGISTER_SIL] = {7, 1, 0},
    [ZYDIS_REGISTER_DIL] = {8, 1, 0},
    [ZYDIS_REGISTER_R8B] = {9, 1, 0}, [ZYDIS_REGISTER_R9B] = {10, 1, 0}, [ZYDIS_REGISTER_R10B] = {11, 1, 0},
    [ZYDIS_REGISTER_R11B] = {12, 1, 0}, [ZYDIS_REGISTER_R12B] = {13, 1, 0}, [ZYDIS_REGISTER_R13B] = {14, 1, 0},
    [ZYDIS_REGISTER_R14B] = {15, 1, 0}, [ZYDIS_REGISTER_R15B] = {16, 1, 0},
};
#undef NAMES

/* user_regs_struct's fields in the encoding's order. */
static const size_t number_offset[16] = {
    offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
    offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
    offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
    offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
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
    *part = (struct register_part){(unsigned long long *)((char *)r + number_offset[n->number - 1]), n->width,
                                   n->shift};
    return true;
}

bool x86_is_general_register(uint16_t reg)
{
    return reg <= ZYDIS_REGISTER_MAX_VALUE && register_names[reg].number != 0;
}

int x86_general_register_number(uint16_t reg)
{
    return x86_is_general_register(reg) ? register_names[reg].number - 1 : -1;
}

bool x86_read_register(uint16_t reg, const struct user_regs_struct *r, uint64_t *value)
{
    struct register_part part;
    if (!x86_register_part(reg, (struct user_regs_struct *)r, &part))
        return false;
    uint64_t v = *part.full >> part.shift;
    *value = part.width == 8 ? v : v & ((1ull << (part.width * 8)) - 1);
    return true;
}

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
