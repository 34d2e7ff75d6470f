/* x86_emulate: carrying out an instruction a thread is stopped at, on its
 * registers and (through callbacks with the program's own page rights) its
 * memory, exactly as the CPU would: plain loads, stores, register sets and
 * pushes; arithmetic and logic with a memory operand, with the flags
 * (CF, PF, AF, ZF, SF, OF) computed as the CPU computes them; xchg, xadd
 * and cmpxchg. Also the split of a non-atomic read-modify-write into its
 * load and its store (x86_rmw_*) and what a cmpxchg did. */
#include "arch/x86_insn.h"
#include "arch/x86_regs.h"

#include <string.h>

bool x86_store_value(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *value)
{
    if (!insn->store_known || insn->n_mem != 1)
        return false;
    uint64_t v = (uint64_t)insn->store_imm;
    if (insn->store_reg && !x86_read_register(insn->store_reg, regs, &v))
        return false;
    unsigned size = insn->mem[0].size;
    *value = size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
    return true;
}

enum {
    FLAG_CF = 1u << 0, FLAG_PF = 1u << 2, FLAG_AF = 1u << 4, FLAG_ZF = 1u << 6, FLAG_SF = 1u << 7,
    FLAG_OF = 1u << 11,
    FLAGS_ARITH = FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF | FLAG_SF | FLAG_OF,
};

static uint64_t mask_of(unsigned size)
{
    return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

static uint64_t sign_bit(unsigned size)
{
    return 1ull << (size * 8 - 1);
}

/* ZF, SF and PF of a result (PF: the low byte has an even number of ones). */
static uint64_t result_flags(uint64_t r, unsigned size)
{
    uint64_t f = 0;
    if ((r & mask_of(size)) == 0)
        f |= FLAG_ZF;
    if (r & sign_bit(size))
        f |= FLAG_SF;
    if (!(__builtin_popcount((unsigned)(r & 0xff)) & 1))
        f |= FLAG_PF;
    return f;
}

/* a + b + carry, with its flags. */
static uint64_t add_flags(uint64_t a, uint64_t b, unsigned carry, unsigned size, uint64_t *flags)
{
    uint64_t m = mask_of(size);
    a &= m;
    b &= m;
    uint64_t r = (a + b + carry) & m;
    unsigned __int128 wide = (unsigned __int128)a + b + carry;
    *flags = result_flags(r, size);
    if (wide > m)
        *flags |= FLAG_CF;
    if (((a ^ r) & (b ^ r)) & sign_bit(size))
        *flags |= FLAG_OF;
    if ((a ^ b ^ r) & 0x10)
        *flags |= FLAG_AF;
    return r;
}

/* a - b - borrow, with its flags. */
static uint64_t sub_flags(uint64_t a, uint64_t b, unsigned borrow, unsigned size, uint64_t *flags)
{
    uint64_t m = mask_of(size);
    a &= m;
    b &= m;
    uint64_t r = (a - b - borrow) & m;
    *flags = result_flags(r, size);
    if ((unsigned __int128)a < (unsigned __int128)b + borrow)
        *flags |= FLAG_CF;
    if (((a ^ b) & (a ^ r)) & sign_bit(size))
        *flags |= FLAG_OF;
    if ((a ^ b ^ r) & 0x10)
        *flags |= FLAG_AF;
    return r;
}

/* dest OP src as the CPU computes it. *flags gets the flags the operation
 * sets, *set which of them (inc and dec leave CF; not sets none; the
 * logic operations leave AF undefined: it is cleared, as Intel and AMD
 * cores do). Returns the result; *stores says whether it is written back. */
static uint64_t alu(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size, uint64_t eflags,
                    uint64_t *flags, uint64_t *set, bool *stores)
{
    unsigned cf = (unsigned)(eflags & FLAG_CF);
    uint64_t r;
    *set = FLAGS_ARITH;
    *stores = true;
    switch (op) {
    case X86_ALU_ADD: return add_flags(dest, src, 0, size, flags);
    case X86_ALU_ADC: return add_flags(dest, src, cf, size, flags);
    case X86_ALU_SUB: return sub_flags(dest, src, 0, size, flags);
    case X86_ALU_SBB: return sub_flags(dest, src, cf, size, flags);
    case X86_ALU_CMP:
        *stores = false;
        return sub_flags(dest, src, 0, size, flags);
    case X86_ALU_INC:
        *set = FLAGS_ARITH & ~FLAG_CF;
        return add_flags(dest, 1, 0, size, flags);
    case X86_ALU_DEC:
        *set = FLAGS_ARITH & ~FLAG_CF;
        return sub_flags(dest, 1, 0, size, flags);
    case X86_ALU_NEG:
        r = sub_flags(0, dest, 0, size, flags);
        return r;
    case X86_ALU_NOT:
        *set = 0;
        *flags = 0;
        return ~dest & mask_of(size);
    case X86_ALU_AND:
    case X86_ALU_TEST:
        r = dest & src & mask_of(size);
        *stores = op == X86_ALU_AND;
        break;
    case X86_ALU_OR:
        r = (dest | src) & mask_of(size);
        break;
    case X86_ALU_XOR:
        r = (dest ^ src) & mask_of(size);
        break;
    default:
        *stores = false;
        *set = 0;
        return dest;
    }
    *flags = result_flags(r, size);
    return r;
}

static void set_flags(struct user_regs_struct *regs, uint64_t flags, uint64_t which)
{
    regs->eflags = (regs->eflags & ~which) | (flags & which);
}

/* The second operand of an ALU instruction with a memory destination. */
static bool alu_source(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *src)
{
    switch (insn->alu_form) {
    case X86_ALU_MEM_REG:
        return x86_read_register(insn->load_reg, regs, src);
    case X86_ALU_MEM_IMM:
        *src = (uint64_t)insn->store_imm;
        return true;
    case X86_ALU_MEM:
        *src = 0;
        return true;
    default:
        return false;
    }
}

bool x86_emulated_access(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *addr,
                         unsigned *size, bool *write)
{
    switch (insn->emulation) {
    case X86_EMU_PUSH:
        *addr = regs->rsp - 8;
        *size = 8;
        *write = true;
        return true;
    case X86_EMU_STORE:
    case X86_EMU_LOAD:
    case X86_EMU_LOAD_ZERO:
    case X86_EMU_LOAD_SIGN:
    case X86_EMU_ALU:
    case X86_EMU_XCHG:
    case X86_EMU_XADD:
    case X86_EMU_CMPXCHG:
        *addr = x86_effective_address(insn, 0, regs);
        *size = insn->n_mem == 1 ? insn->mem[0].size : 0;
        *write = insn->emulation == X86_EMU_STORE || (insn->emulation != X86_EMU_LOAD &&
                 insn->emulation != X86_EMU_LOAD_ZERO && insn->emulation != X86_EMU_LOAD_SIGN &&
                 !(insn->emulation == X86_EMU_ALU && (insn->alu_op == X86_ALU_CMP || insn->alu_op == X86_ALU_TEST ||
                                                      insn->alu_form == X86_ALU_REG_MEM)));
        return true;
    default:
        return false;
    }
}

bool x86_is_split_rmw(const struct x86_insn *insn)
{
    return insn->emulation == X86_EMU_ALU && !(insn->flags & X86_ATOMIC) && insn->alu_form != X86_ALU_REG_MEM &&
           insn->alu_op != X86_ALU_CMP && insn->alu_op != X86_ALU_TEST;
}

bool x86_rmw_load(const struct x86_insn *insn, const struct user_regs_struct *regs, const struct x86_memory *mem,
                  uint64_t *old)
{
    uint64_t addr;
    unsigned size;
    bool write;
    *old = 0;
    return x86_is_split_rmw(insn) && x86_emulated_access(insn, regs, &addr, &size, &write) &&
           mem->read(mem->ctx, addr, old, size);
}

bool x86_rmw_result(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t old, uint64_t *result)
{
    uint64_t src, flags, set;
    bool stores;
    if (!x86_is_split_rmw(insn) || !alu_source(insn, regs, &src))
        return false;
    *result = alu((enum x86_alu_op)insn->alu_op, old, src, insn->mem[0].size, regs->eflags, &flags, &set, &stores);
    return stores;
}

bool x86_rmw_store(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                   uint64_t old)
{
    uint64_t addr, src, flags, set;
    unsigned size;
    bool write, stores;
    if (!x86_is_split_rmw(insn) || !x86_emulated_access(insn, regs, &addr, &size, &write) ||
        !alu_source(insn, regs, &src))
        return false;
    uint64_t r = alu((enum x86_alu_op)insn->alu_op, old, src, size, regs->eflags, &flags, &set, &stores);
    if (stores && !mem->write(mem->ctx, addr, &r, size))
        return false;
    set_flags(regs, flags, set);
    regs->rip += insn->length;
    return true;
}

bool x86_cas_outcome(const struct x86_insn *insn, const struct user_regs_struct *before, uint64_t found,
                     struct x86_cas *out)
{
    if (insn->emulation != X86_EMU_CMPXCHG)
        return false;
    unsigned size = insn->mem[0].size;
    uint64_t m = mask_of(size), desired;
    if (!x86_read_register(insn->load_reg, before, &desired))
        return false;
    *out = (struct x86_cas){before->rax & m, found & m, desired & m, (before->rax & m) == (found & m), size};
    return true;
}

/* An ALU instruction with a memory operand, whole. */
static bool emulate_alu(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                        uint64_t addr, unsigned size)
{
    uint64_t value = 0, src, flags, set;
    bool stores;
    if (!mem->read(mem->ctx, addr, &value, size))
        return false;
    if (insn->alu_form == X86_ALU_REG_MEM) {
        struct register_part reg;
        uint64_t dest;
        if (!x86_read_register(insn->load_reg, regs, &dest) || !x86_register_part(insn->load_reg, regs, &reg))
            return false;
        uint64_t r = alu((enum x86_alu_op)insn->alu_op, dest, value, size, regs->eflags, &flags, &set, &stores);
        if (stores)
            x86_write_register(&reg, r);
    } else {
        if (!alu_source(insn, regs, &src))
            return false;
        uint64_t r = alu((enum x86_alu_op)insn->alu_op, value, src, size, regs->eflags, &flags, &set, &stores);
        if (stores && !mem->write(mem->ctx, addr, &r, size))
            return false;
    }
    set_flags(regs, flags, set);
    return true;
}

/* xchg, xadd, cmpxchg: atomic by construction (nothing else runs while
 * mdat carries them out). */
static bool emulate_exchange(const struct x86_insn *insn, struct user_regs_struct *regs,
                             const struct x86_memory *mem, uint64_t addr, unsigned size)
{
    uint64_t value = 0, src;
    struct register_part reg;
    if (!mem->read(mem->ctx, addr, &value, size) || !x86_read_register(insn->load_reg, regs, &src) ||
        !x86_register_part(insn->load_reg, regs, &reg))
        return false;
    uint64_t flags;
    switch (insn->emulation) {
    case X86_EMU_XCHG:
        if (!mem->write(mem->ctx, addr, &src, size))
            return false;
        x86_write_register(&reg, value);
        return true;
    case X86_EMU_XADD: {
        uint64_t sum = add_flags(value, src, 0, size, &flags);
        if (!mem->write(mem->ctx, addr, &sum, size))
            return false;
        x86_write_register(&reg, value);
        set_flags(regs, flags, FLAGS_ARITH);
        return true;
    }
    case X86_EMU_CMPXCHG: {
        uint64_t m = mask_of(size), acc = regs->rax & m;
        sub_flags(acc, value, 0, size, &flags);
        if (acc == (value & m)) {
            if (!mem->write(mem->ctx, addr, &src, size))
                return false;
        } else {
            struct register_part a = {(unsigned long long *)&regs->rax, size, 0};
            x86_write_register(&a, value);
        }
        set_flags(regs, flags, FLAGS_ARITH);
        return true;
    }
    default:
        return false;
    }
}

bool x86_emulate(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem)
{
    struct register_part reg;
    uint64_t addr, value = 0;
    unsigned size;
    bool write;
    if (insn->emulation == X86_EMU_NONE)
        return false;
    if (insn->emulation == X86_EMU_SET) {
        if (!x86_register_part(insn->load_reg, regs, &reg))
            return false;
        x86_write_register(&reg, (uint64_t)insn->store_imm);
        regs->rip += insn->length;
        return true;
    }
    if (!x86_emulated_access(insn, regs, &addr, &size, &write) || size == 0 || size > 8 || (size & (size - 1)))
        return false;
    /* Work on a copy: a memory access that fails leaves the thread as it was. */
    struct user_regs_struct r = *regs;
    switch (insn->emulation) {
    case X86_EMU_PUSH:
        if (!x86_read_register(insn->load_reg, &r, &value) || !mem->write(mem->ctx, addr, &value, 8))
            return false;
        r.rsp -= 8;
        break;
    case X86_EMU_STORE:
        if (!x86_store_value(insn, &r, &value) || !mem->write(mem->ctx, addr, &value, size))
            return false;
        break;
    case X86_EMU_ALU:
        if (!emulate_alu(insn, &r, mem, addr, size))
            return false;
        break;
    case X86_EMU_XCHG:
    case X86_EMU_XADD:
    case X86_EMU_CMPXCHG:
        if (!emulate_exchange(insn, &r, mem, addr, size))
            return false;
        break;
    default:
        if (!x86_register_part(insn->load_reg, &r, &reg) || !mem->read(mem->ctx, addr, &value, size))
            return false;
        if (insn->emulation == X86_EMU_LOAD_SIGN && size < 8 && (value >> (size * 8 - 1)) & 1)
            value |= ~0ull << (size * 8);
        x86_write_register(&reg, value);
        break;
    }
    r.rip += insn->length;
    *regs = r;
    return true;
}
