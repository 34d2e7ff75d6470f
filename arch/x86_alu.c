/* x86_alu: the arithmetic of x86 as the CPU does it, values and flags:
 * add, sub, adc, sbb, and, or, xor, cmp, test, inc, dec, neg, not, imul,
 * bt*, shifts and rotates, and the conditions of setcc and cmovcc. Pure
 * functions of their operands (see arch/x86_alu.h); carrying an
 * instruction out on registers and memory is x86_emulate.c's. */
#include "arch/x86_alu.h"

uint64_t x86_mask_of(unsigned size)
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
    if ((r & x86_mask_of(size)) == 0)
        f |= X86_FLAG_ZF;
    if (r & sign_bit(size))
        f |= X86_FLAG_SF;
    if (!(__builtin_popcount((unsigned)(r & 0xff)) & 1))
        f |= X86_FLAG_PF;
    return f;
}

/* a + b + carry, with its flags. */
static uint64_t add_flags(uint64_t a, uint64_t b, unsigned carry, unsigned size, uint64_t *flags)
{
    uint64_t m = x86_mask_of(size);
    a &= m;
    b &= m;
    uint64_t r = (a + b + carry) & m;
    unsigned __int128 wide = (unsigned __int128)a + b + carry;
    *flags = result_flags(r, size);
    if (wide > m)
        *flags |= X86_FLAG_CF;
    if (((a ^ r) & (b ^ r)) & sign_bit(size))
        *flags |= X86_FLAG_OF;
    if ((a ^ b ^ r) & 0x10)
        *flags |= X86_FLAG_AF;
    return r;
}

/* a - b - borrow, with its flags. */
static uint64_t sub_flags(uint64_t a, uint64_t b, unsigned borrow, unsigned size, uint64_t *flags)
{
    uint64_t m = x86_mask_of(size);
    a &= m;
    b &= m;
    uint64_t r = (a - b - borrow) & m;
    *flags = result_flags(r, size);
    if ((unsigned __int128)a < (unsigned __int128)b + borrow)
        *flags |= X86_FLAG_CF;
    if (((a ^ b) & (a ^ r)) & sign_bit(size))
        *flags |= X86_FLAG_OF;
    if ((a ^ b ^ r) & 0x10)
        *flags |= X86_FLAG_AF;
    return r;
}

/* Signed a * b truncated to size; CF and OF when the truncation lost
 * something. SF, ZF, AF and PF are undefined: left as they were. */
static uint64_t imul_flags(uint64_t a, uint64_t b, unsigned size, uint64_t *flags)
{
    __int128 wide = (__int128)sign_extend(a, size) * sign_extend(b, size);
    uint64_t r = (uint64_t)wide & x86_mask_of(size);
    *flags = (__int128)sign_extend(r, size) != wide ? X86_FLAG_CF | X86_FLAG_OF : 0;
    return r;
}

/* bt, bts, btr, btc: the bit (src modulo the operand's width; for a
 * memory bit string the address already moved to its word) goes to CF. */
static struct alu_result bit_op(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size)
{
    uint64_t bit = 1ull << (src & (size * 8 - 1));
    struct alu_result res = {dest & x86_mask_of(size), (dest & bit) ? X86_FLAG_CF : 0, X86_FLAG_CF, op != X86_ALU_BT};
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
    uint64_t m = x86_mask_of(size), top = sign_bit(size);
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
    res.flags = (cf ? X86_FLAG_CF : 0) | (of ? X86_FLAG_OF : 0);
    if (!rotate)
        res.flags |= result_flags(res.value, size) | X86_FLAG_AF;
    res.set = rotate ? X86_FLAG_CF | X86_FLAG_OF : X86_FLAGS_ARITH;
    return res;
}

/* dest OP src as the CPU computes it. inc and dec leave CF, not sets no
 * flag; the logic operations leave AF undefined: it is cleared, as Intel
 * and AMD cores do. */
struct alu_result x86_alu(enum x86_alu_op op, uint64_t dest, uint64_t src, unsigned size, uint64_t eflags)
{
    unsigned cf = (unsigned)(eflags & X86_FLAG_CF);
    struct alu_result res = {0, 0, X86_FLAGS_ARITH, true};
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
        res.set = X86_FLAGS_ARITH & ~X86_FLAG_CF;
        break;
    case X86_ALU_DEC:
        res.value = sub_flags(dest, 1, 0, size, &res.flags);
        res.set = X86_FLAGS_ARITH & ~X86_FLAG_CF;
        break;
    case X86_ALU_NEG: res.value = sub_flags(0, dest, 0, size, &res.flags); break;
    case X86_ALU_NOT:
        res.value = ~dest & x86_mask_of(size);
        res.set = 0;
        break;
    case X86_ALU_AND:
    case X86_ALU_TEST:
        res.value = dest & src & x86_mask_of(size);
        res.flags = result_flags(res.value, size);
        res.stores = op == X86_ALU_AND;
        break;
    case X86_ALU_OR:
        res.value = (dest | src) & x86_mask_of(size);
        res.flags = result_flags(res.value, size);
        break;
    case X86_ALU_XOR:
        res.value = (dest ^ src) & x86_mask_of(size);
        res.flags = result_flags(res.value, size);
        break;
    case X86_ALU_IMUL:
        res.value = imul_flags(dest, src, size, &res.flags);
        res.set = X86_FLAG_CF | X86_FLAG_OF;
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

/* Whether setcc / cmovcc's condition holds under eflags. */
bool x86_condition_holds(enum x86_cond cond, uint64_t eflags)
{
    bool cf = eflags & X86_FLAG_CF, zf = eflags & X86_FLAG_ZF, sf = eflags & X86_FLAG_SF, of = eflags & X86_FLAG_OF,
         pf = eflags & X86_FLAG_PF;
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
