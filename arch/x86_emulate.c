/* x86_emulate: carrying out an instruction a thread is stopped at, on its
 * registers and (through callbacks with the program's own page rights) its
 * memory, exactly as the CPU would: plain loads, stores, register sets,
 * moves, lea, nops and pushes; arithmetic, logic, shifts, rotates, imul and
 * bit tests with the flags (CF, PF, AF, ZF, SF, OF) computed as the CPU
 * computes them; setcc and cmovcc; xchg, xadd, cmpxchg; jmp and call
 * through memory. Also the split of a non-atomic read-modify-write into
 * its load and its store (x86_rmw_*) and what a cmpxchg did. Which
 * instructions qualify is decided at decode time (x86_classify.c); this
 * file never looks at bytes. */
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

static int64_t sign_extend(uint64_t v, unsigned size)
{
    return size >= 8 ? (int64_t)v : (int64_t)(v << (64 - size * 8)) >> (64 - size * 8);
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

/* Signed a * b truncated to size; CF and OF when the truncation lost
 * something. SF, ZF, AF and PF are undefined: left as they were. */
static uint64_t imul_flags(uint64_t a, uint64_t b, unsigned size, uint64_t *flags)
{
    __int128 wide = (__int128)sign_extend(a, size) * sign_extend(b, size);
    uint64_t r = (uint64_t)wide & mask_of(size);
    *flags = (__int128)sign_extend(r, size) != wide ? FLAG_CF | FLAG_OF : 0;
    return r;
}

/* The result of an operation, the flags it sets (set: which ones), and
 * whether the result is written back. */
struct alu_result {
    uint64_t value, flags, set;
    bool stores;
};

/* bt, bts, btr, btc: the bit (src modulo the operand's width; for a
 * memory bit string the address already moved to its word) goes to CF. */
static struct alu_result bit_op(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size)
{
    uint64_t bit = 1ull << (src & (size * 8 - 1));
    struct alu_result res = {dest & mask_of(size), (dest & bit) ? FLAG_CF : 0, FLAG_CF, op != X86_ALU_BT};
    if (op == X86_ALU_BTS)
        res.value |= bit;
    else if (op == X86_ALU_BTR)
        res.value &= ~bit;
    else if (op == X86_ALU_BTC)
        res.value ^= bit;
    return res;
}

/* shl, shr, sar, rol, ror of v by count (masked to 5 bits, 6 for 64-bit
 * operands). A zero count changes nothing, flags included (the value is
 * still written back, as the CPU's read-modify-write does). Undefined
 * flags are set the way AMD cores set them: OF from the result's top bits
 * whatever the count, AF set by shifts. */
static struct alu_result shift_op(enum x86_alu_op op, uint64_t v, uint64_t count, unsigned size)
{
    unsigned bits = size * 8, c = (unsigned)(count & (size == 8 ? 63 : 31));
    uint64_t m = mask_of(size), top = sign_bit(size);
    v &= m;
    struct alu_result res = {v, 0, 0, true};
    if (c == 0)
        return res;
    bool cf;
    unsigned k = c % bits;
    switch (op) {
    case X86_ALU_SHL:
        res.value = c < bits ? (v << c) & m : 0;
        cf = c <= bits && ((v >> (bits - c)) & 1);
        break;
    case X86_ALU_SHR:
        res.value = c < bits ? v >> c : 0;
        cf = c <= bits && ((v >> (c - 1)) & 1);
        break;
    case X86_ALU_SAR: {
        int64_t sv = sign_extend(v, size);
        res.value = (uint64_t)(sv >> (c < bits ? c : bits - 1)) & m;
        cf = (sv >> (c - 1 < bits ? c - 1 : bits - 1)) & 1;
        break;
    }
    case X86_ALU_ROL:
        res.value = k ? ((v << k) | (v >> (bits - k))) & m : v;
        cf = res.value & 1;
        break;
    default:    /* X86_ALU_ROR */
        res.value = k ? ((v >> k) | (v << (bits - k))) & m : v;
        cf = (res.value & top) != 0;
        break;
    }
    bool msb = (res.value & top) != 0, next = (res.value & (top >> 1)) != 0;
    bool of = op == X86_ALU_SHL || op == X86_ALU_ROL ? msb != cf : msb != next;
    bool rotate = op == X86_ALU_ROL || op == X86_ALU_ROR;
    res.flags = (cf ? FLAG_CF : 0) | (of ? FLAG_OF : 0) | (rotate ? 0 : result_flags(res.value, size) | FLAG_AF);
    res.set = rotate ? FLAG_CF | FLAG_OF : FLAGS_ARITH;
    return res;
}

/* dest OP src as the CPU computes it. inc and dec leave CF, not sets no
 * flag; the logic operations leave AF undefined: it is cleared, as Intel
 * and AMD cores do. */
static struct alu_result alu(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size, uint64_t eflags)
{
    unsigned cf = (unsigned)(eflags & FLAG_CF);
    struct alu_result res = {0, 0, FLAGS_ARITH, true};
    switch (op) {
    case X86_ALU_ADD: res.value = add_flags(dest, src, 0, size, &res.flags); break;
    case X86_ALU_ADC: res.value = add_flags(dest, src, cf, size, &res.flags); break;
    case X86_ALU_SUB: res.value = sub_flags(dest, src, 0, size, &res.flags); break;
    case X86_ALU_SBB: res.value = sub_flags(dest, src, cf, size, &res.flags); break;
    case X86_ALU_CMP:
        res.value = sub_flags(dest, src, 0, size, &res.flags);
        res.stores = false;
        break;
    case X86_ALU_INC:
        res.value = add_flags(dest, 1, 0, size, &res.flags);
        res.set = FLAGS_ARITH & ~FLAG_CF;
        break;
    case X86_ALU_DEC:
        res.value = sub_flags(dest, 1, 0, size, &res.flags);
        res.set = FLAGS_ARITH & ~FLAG_CF;
        break;
    case X86_ALU_NEG: res.value = sub_flags(0, dest, 0, size, &res.flags); break;
    case X86_ALU_NOT:
        res.value = ~dest & mask_of(size);
        res.set = 0;
        break;
    case X86_ALU_AND:
    case X86_ALU_TEST:
        res.value = dest & src & mask_of(size);
        res.flags = result_flags(res.value, size);
        res.stores = op == X86_ALU_AND;
        break;
    case X86_ALU_OR:
        res.value = (dest | src) & mask_of(size);
        res.flags = result_flags(res.value, size);
        break;
    case X86_ALU_XOR:
        res.value = (dest ^ src) & mask_of(size);
        res.flags = result_flags(res.value, size);
        break;
    case X86_ALU_IMUL:
        res.value = imul_flags(dest, src, size, &res.flags);
        res.set = FLAG_CF | FLAG_OF;
        break;
    case X86_ALU_BT:
    case X86_ALU_BTS:
    case X86_ALU_BTR:
    case X86_ALU_BTC:
        return bit_op(op, dest, src, size);
    case X86_ALU_SHL:
    case X86_ALU_SHR:
    case X86_ALU_SAR:
    case X86_ALU_ROL:
    case X86_ALU_ROR:
        return shift_op(op, dest, src, size);
    default:
        return (struct alu_result){dest, 0, 0, false};
    }
    return res;
}

static void set_flags(struct user_regs_struct *regs, const struct alu_result *res)
{
    regs->eflags = (regs->eflags & ~res->set) | (res->flags & res->set);
}

/* Whether setcc / cmovcc's condition holds under eflags. */
static bool condition_holds(enum x86_cond cond, uint64_t eflags)
{
    bool cf = eflags & FLAG_CF, zf = eflags & FLAG_ZF, sf = eflags & FLAG_SF, of = eflags & FLAG_OF,
         pf = eflags & FLAG_PF;
    bool holds;
    switch (cond & ~1u) {   /* odd conditions are the even ones negated */
    case X86_COND_O: holds = of; break;
    case X86_COND_B: holds = cf; break;
    case X86_COND_E: holds = zf; break;
    case X86_COND_BE: holds = cf || zf; break;
    case X86_COND_S: holds = sf; break;
    case X86_COND_P: holds = pf; break;
    case X86_COND_L: holds = sf != of; break;
    default: holds = zf || sf != of; break;     /* X86_COND_LE */
    }
    return (cond & 1) ? !holds : holds;
}

static bool alu_has_memory(const struct x86_insn *insn)
{
    return insn->alu_form == X86_ALU_MEM_REG || insn->alu_form == X86_ALU_MEM_IMM ||
           insn->alu_form == X86_ALU_REG_MEM || insn->alu_form == X86_ALU_MEM ||
           insn->alu_form == X86_ALU_REG_MEM_IMM;
}

/* The destination is memory and the operation writes it (not cmp, test, bt). */
static bool alu_writes_memory(const struct x86_insn *insn)
{
    bool memory_destination = insn->alu_form == X86_ALU_MEM_REG || insn->alu_form == X86_ALU_MEM_IMM ||
                              insn->alu_form == X86_ALU_MEM;
    return memory_destination && insn->alu_op != X86_ALU_CMP && insn->alu_op != X86_ALU_TEST &&
           insn->alu_op != X86_ALU_BT;
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
    case X86_EMU_ALU:
        if (!alu_has_memory(insn))
            return false;
        *write = alu_writes_memory(insn);
        break;
    case X86_EMU_SETCC:
    case X86_EMU_CMOV:
        if (insn->n_mem != 1)
            return false;
        *write = insn->emulation == X86_EMU_SETCC;
        break;
    case X86_EMU_STORE:
    case X86_EMU_XCHG:
    case X86_EMU_XADD:
    case X86_EMU_CMPXCHG:
        *write = true;
        break;
    case X86_EMU_LOAD:
    case X86_EMU_LOAD_ZERO:
    case X86_EMU_LOAD_SIGN:
    case X86_EMU_JUMP_MEM:
    case X86_EMU_CALL_MEM:  /* and the push of the return address, on the thread's own stack */
        *write = false;
        break;
    default:
        return false;
    }
    *addr = x86_effective_address(insn, 0, regs);
    *size = insn->n_mem == 1 ? insn->mem[0].size : 0;
    return true;
}

bool x86_is_split_rmw(const struct x86_insn *insn)
{
    return insn->emulation == X86_EMU_ALU && !(insn->flags & X86_ATOMIC) && alu_writes_memory(insn);
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
    uint64_t src;
    if (!x86_is_split_rmw(insn) || !alu_source(insn, regs, &src))
        return false;
    struct alu_result res = alu((enum x86_alu_op)insn->alu_op, old, src, insn->mem[0].size, regs->eflags);
    *result = res.value;
    return res.stores;
}

bool x86_rmw_store(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                   uint64_t old)
{
    uint64_t addr, src;
    unsigned size;
    bool write;
    if (!x86_is_split_rmw(insn) || !x86_emulated_access(insn, regs, &addr, &size, &write) ||
        !alu_source(insn, regs, &src))
        return false;
    struct alu_result res = alu((enum x86_alu_op)insn->alu_op, old, src, size, regs->eflags);
    if (res.stores && !mem->write(mem->ctx, addr, &res.value, size))
        return false;
    set_flags(regs, &res);
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
    uint64_t value = 0, src;
    enum x86_alu_op op = (enum x86_alu_op)insn->alu_op;
    if (!mem->read(mem->ctx, addr, &value, size))
        return false;
    struct alu_result res;
    if (insn->alu_form == X86_ALU_REG_MEM || insn->alu_form == X86_ALU_REG_MEM_IMM) {
        struct register_part reg;
        uint64_t dest;
        if (!x86_register_part(insn->load_reg, regs, &reg) || !x86_read_register(insn->load_reg, regs, &dest))
            return false;
        res = insn->alu_form == X86_ALU_REG_MEM ? alu(op, dest, value, size, regs->eflags)
                                                : alu(op, value, (uint64_t)insn->store_imm, size, regs->eflags);
        if (res.stores)
            x86_write_register(&reg, res.value);
    } else {
        if (!alu_source(insn, regs, &src))
            return false;
        res = alu(op, value, src, size, regs->eflags);
        if (res.stores && !mem->write(mem->ctx, addr, &res.value, size))
            return false;
    }
    set_flags(regs, &res);
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
    struct alu_result res;
    switch (insn->emulation) {
    case X86_EMU_XCHG:
        if (!mem->write(mem->ctx, addr, &src, size))
            return false;
        x86_write_register(&reg, value);
        return true;
    case X86_EMU_XADD:
        res = alu(X86_ALU_ADD, value, src, size, regs->eflags);
        if (!mem->write(mem->ctx, addr, &res.value, size))
            return false;
        x86_write_register(&reg, value);
        set_flags(regs, &res);
        return true;
    case X86_EMU_CMPXCHG: {
        uint64_t acc = regs->rax & mask_of(size);
        res = alu(X86_ALU_CMP, acc, value, size, regs->eflags);
        if (acc == (value & mask_of(size))) {
            if (!mem->write(mem->ctx, addr, &src, size))
                return false;
        } else {
            struct register_part a = {(unsigned long long *)&regs->rax, size, 0};
            x86_write_register(&a, value);
        }
        set_flags(regs, &res);
        return true;
    }
    default:
        return false;
    }
}

/* The forms without memory: set, move, lea, nop, arithmetic on registers,
 * setcc and cmovcc on registers. */
static bool emulate_registers(const struct x86_insn *insn, struct user_regs_struct *regs)
{
    struct register_part dest;
    uint64_t value = 0, src = 0;
    if (insn->emulation == X86_EMU_NOP)
        return true;
    if (!x86_register_part(insn->load_reg, regs, &dest))
        return false;
    switch (insn->emulation) {
    case X86_EMU_SET:
        value = (uint64_t)insn->store_imm;
        break;
    case X86_EMU_MOVE:
        if (!x86_read_register(insn->src_reg, regs, &value))
            return false;
        break;
    case X86_EMU_LEA:
        value = x86_effective_address(insn, 0, regs);
        break;
    case X86_EMU_SETCC:
        value = condition_holds((enum x86_cond)insn->cond, regs->eflags);
        break;
    case X86_EMU_CMOV:
        /* Written even when the condition fails: a 32-bit cmov clears the upper half. */
        if (!x86_read_register(insn->load_reg, regs, &value) || !x86_read_register(insn->src_reg, regs, &src))
            return false;
        if (condition_holds((enum x86_cond)insn->cond, regs->eflags))
            value = src;
        break;
    case X86_EMU_ALU: {
        if (!x86_read_register(insn->load_reg, regs, &value))
            return false;
        if (insn->alu_form == X86_ALU_REG_REG && !x86_read_register(insn->src_reg, regs, &src))
            return false;
        if (insn->alu_form == X86_ALU_REG_IMM)
            src = (uint64_t)insn->store_imm;
        struct alu_result res = alu((enum x86_alu_op)insn->alu_op, value, src, dest.width, regs->eflags);
        set_flags(regs, &res);
        if (!res.stores)
            return true;
        value = res.value;
        break;
    }
    default:
        return false;
    }
    x86_write_register(&dest, value);
    return true;
}

bool x86_emulate(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem)
{
    struct register_part reg;
    uint64_t addr, value = 0;
    unsigned size;
    bool write;
    if (insn->emulation == X86_EMU_NONE)
        return false;
    /* Work on a copy: a memory access that fails leaves the thread as it was. */
    struct user_regs_struct r = *regs;
    if (!x86_emulated_access(insn, regs, &addr, &size, &write)) {
        if (!emulate_registers(insn, &r))
            return false;
        r.rip += insn->length;
        *regs = r;
        return true;
    }
    if (size == 0 || size > 8 || (size & (size - 1)))
        return false;
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
    case X86_EMU_JUMP_MEM:
        if (!mem->read(mem->ctx, addr, &value, 8))
            return false;
        r.rip = value;
        *regs = r;
        return true;
    case X86_EMU_CALL_MEM: {
        /* The target is read before the push moves rsp (call [rsp+8] reads above it). */
        uint64_t back = r.rip + insn->length;
        if (!mem->read(mem->ctx, addr, &value, 8) || !mem->write(mem->ctx, r.rsp - 8, &back, 8))
            return false;
        r.rsp -= 8;
        r.rip = value;
        *regs = r;
        return true;
    }
    case X86_EMU_SETCC:
        value = condition_holds((enum x86_cond)insn->cond, r.eflags);
        if (!mem->write(mem->ctx, addr, &value, 1))
            return false;
        break;
    case X86_EMU_CMOV: {
        /* The load happens whatever the condition; a 32-bit destination
         * loses its upper half either way. */
        uint64_t current;
        if (!mem->read(mem->ctx, addr, &value, size) || !x86_register_part(insn->load_reg, &r, &reg) ||
            !x86_read_register(insn->load_reg, &r, &current))
            return false;
        x86_write_register(&reg, condition_holds((enum x86_cond)insn->cond, r.eflags) ? value : current);
        break;
    }
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
