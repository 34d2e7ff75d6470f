/* x86_classify: which instructions x86_emulate carries out with its own C
 * code, decided once per instruction at decode time (see
 * arch/x86_classify.h).
 *
 * It runs over every instruction of the executable once per batch, so it
 * is switches on Zydis mnemonics and operand types, never text. Only
 * general registers and immediates qualify here; the rest is
 * x86_native.c's to take or leave to the CPU. A LOCK prefix on an
 * instruction that does not allow one (cmp, bt, a register destination)
 * makes the CPU raise #UD: those are left to the CPU too. */
#include "arch/x86_classify.h"
#include "arch/x86_regs.h"

typedef ZydisDecodedOperand operand;

static bool is_mem(const operand *op)
{
    return op->type == ZYDIS_OPERAND_TYPE_MEMORY;
}

static bool is_imm(const operand *op)
{
    return op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

static bool is_general_reg(const operand *op)
{
    return op->type == ZYDIS_OPERAND_TYPE_REGISTER && x86_is_general_register((uint16_t)op->reg.value);
}

static uint16_t reg_of(const operand *op)
{
    return (uint16_t)op->reg.value;
}

/* Bytes a general register operand names. */
static unsigned reg_size(const operand *op)
{
    return op->size / 8;
}

static bool is_data_size(unsigned size)
{
    return size == 1 || size == 2 || size == 4 || size == 8;
}

/* The one memory operand x86_insn.c found is a 1, 2, 4 or 8-byte access. */
static bool one_data_access(const struct x86_insn *out)
{
    return out->n_mem == 1 && is_data_size(out->mem[0].size);
}

/* The instructions a LOCK prefix is allowed on, with a memory destination. */
static bool lockable(ZydisMnemonic m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_ADC: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_SBB:
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR:
    case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC: case ZYDIS_MNEMONIC_NEG: case ZYDIS_MNEMONIC_NOT:
    case ZYDIS_MNEMONIC_BTS: case ZYDIS_MNEMONIC_BTR: case ZYDIS_MNEMONIC_BTC:
    case ZYDIS_MNEMONIC_XCHG: case ZYDIS_MNEMONIC_XADD: case ZYDIS_MNEMONIC_CMPXCHG:
        return true;
    default:
        return false;
    }
}

static bool alu_op_of(ZydisMnemonic m, enum x86_alu_op *op)
{
    switch (m) {
    case ZYDIS_MNEMONIC_ADD: *op = X86_ALU_ADD; return true;
    case ZYDIS_MNEMONIC_SUB: *op = X86_ALU_SUB; return true;
    case ZYDIS_MNEMONIC_ADC: *op = X86_ALU_ADC; return true;
    case ZYDIS_MNEMONIC_SBB: *op = X86_ALU_SBB; return true;
    case ZYDIS_MNEMONIC_AND: *op = X86_ALU_AND; return true;
    case ZYDIS_MNEMONIC_OR: *op = X86_ALU_OR; return true;
    case ZYDIS_MNEMONIC_XOR: *op = X86_ALU_XOR; return true;
    case ZYDIS_MNEMONIC_CMP: *op = X86_ALU_CMP; return true;
    case ZYDIS_MNEMONIC_TEST: *op = X86_ALU_TEST; return true;
    case ZYDIS_MNEMONIC_INC: *op = X86_ALU_INC; return true;
    case ZYDIS_MNEMONIC_DEC: *op = X86_ALU_DEC; return true;
    case ZYDIS_MNEMONIC_NEG: *op = X86_ALU_NEG; return true;
    case ZYDIS_MNEMONIC_NOT: *op = X86_ALU_NOT; return true;
    case ZYDIS_MNEMONIC_IMUL: *op = X86_ALU_IMUL; return true;
    case ZYDIS_MNEMONIC_BT: *op = X86_ALU_BT; return true;
    case ZYDIS_MNEMONIC_BTS: *op = X86_ALU_BTS; return true;
    case ZYDIS_MNEMONIC_BTR: *op = X86_ALU_BTR; return true;
    case ZYDIS_MNEMONIC_BTC: *op = X86_ALU_BTC; return true;
    case ZYDIS_MNEMONIC_SHL: *op = X86_ALU_SHL; return true;
    case ZYDIS_MNEMONIC_SHR: *op = X86_ALU_SHR; return true;
    case ZYDIS_MNEMONIC_SAR: *op = X86_ALU_SAR; return true;
    case ZYDIS_MNEMONIC_ROL: *op = X86_ALU_ROL; return true;
    case ZYDIS_MNEMONIC_ROR: *op = X86_ALU_ROR; return true;
    default: return false;
    }
}

static bool is_unary(enum x86_alu_op op)
{
    return op == X86_ALU_INC || op == X86_ALU_DEC || op == X86_ALU_NEG || op == X86_ALU_NOT;
}

static bool is_bit_op(enum x86_alu_op op)
{
    return op >= X86_ALU_BT && op <= X86_ALU_BTC;
}

static bool is_shift(enum x86_alu_op op)
{
    return op >= X86_ALU_SHL;
}

/* add ... test: the two-operand arithmetic and logic with every form. */
static bool is_classic_binary(enum x86_alu_op op)
{
    return op <= X86_ALU_TEST;
}

/* setcc, cmovcc and jcc: their condition, and which of the three. */
enum conditional { COND_SET, COND_MOVE, COND_JUMP };

static bool condition_of(ZydisMnemonic m, enum x86_cond *cond, enum conditional *kind)
{
#define CONDITION(c, cc)                                                                              \
    case ZYDIS_MNEMONIC_SET##cc: *cond = c; *kind = COND_SET; return true;                           \
    case ZYDIS_MNEMONIC_CMOV##cc: *cond = c; *kind = COND_MOVE; return true;                         \
    case ZYDIS_MNEMONIC_J##cc: *cond = c; *kind = COND_JUMP; return true;
    switch (m) {
    CONDITION(X86_COND_O, O)
    CONDITION(X86_COND_NO, NO)
    CONDITION(X86_COND_B, B)
    CONDITION(X86_COND_AE, NB)
    CONDITION(X86_COND_E, Z)
    CONDITION(X86_COND_NE, NZ)
    CONDITION(X86_COND_BE, BE)
    CONDITION(X86_COND_A, NBE)
    CONDITION(X86_COND_S, S)
    CONDITION(X86_COND_NS, NS)
    CONDITION(X86_COND_P, P)
    CONDITION(X86_COND_NP, NP)
    CONDITION(X86_COND_L, L)
    CONDITION(X86_COND_GE, NL)
    CONDITION(X86_COND_LE, LE)
    CONDITION(X86_COND_G, NLE)
    default:
        return false;
    }
#undef CONDITION
}

/* A branch, call or return that works on 64-bit addresses: an operand-size
 * prefix makes them 16-bit on AMD cores (compilers do not emit one). */
static bool is_64bit_flow(const ZydisDecodedInstruction *in)
{
    return in->operand_width == 64 && !(in->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) &&
           in->meta.branch_type != ZYDIS_BRANCH_TYPE_FAR;
}

/* Branches, calls and returns with their target in the encoding, pop and
 * leave; false when the mnemonic is none of those. */
static bool classify_flow(const ZydisDecodedInstruction *in, const operand *o, struct x86_insn *out)
{
    ZydisMnemonic m = in->mnemonic;
    int n = in->operand_count_visible;
    enum x86_cond cond;
    enum conditional kind;
    bool conditional = condition_of(m, &cond, &kind) && kind == COND_JUMP;
    bool flow = conditional || m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL || m == ZYDIS_MNEMONIC_RET ||
                m == ZYDIS_MNEMONIC_LEAVE || m == ZYDIS_MNEMONIC_POP;
    if (!flow || out->n_mem != 0 || !is_64bit_flow(in))
        return flow;
    bool relative = n == 1 && is_imm(&o[0]) && o[0].imm.is_relative;
    if ((m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL || conditional) && relative) {
        out->emulation = conditional ? X86_EMU_JCC : m == ZYDIS_MNEMONIC_JMP ? X86_EMU_JUMP_REL : X86_EMU_CALL_REL;
        out->cond = conditional ? (uint8_t)cond : 0;
        out->store_imm = (int64_t)in->length + o[0].imm.value.s;
    } else if (m == ZYDIS_MNEMONIC_RET && (n == 0 || (n == 1 && is_imm(&o[0])))) {
        out->emulation = X86_EMU_RET;
        out->store_imm = n == 1 ? (int64_t)o[0].imm.value.u : 0;
    } else if (m == ZYDIS_MNEMONIC_LEAVE && n == 0) {
        out->emulation = X86_EMU_LEAVE;
    } else if (m == ZYDIS_MNEMONIC_POP && n == 1 && is_general_reg(&o[0]) && reg_size(&o[0]) == 8) {
        out->emulation = X86_EMU_POP;
        out->load_reg = reg_of(&o[0]);
    }
    return true;
}

/* setcc [m] / setcc reg8; cmovcc reg, [m] / cmovcc reg, reg. */
static bool classify_conditional(const ZydisDecodedInstruction *in, const operand *o, struct x86_insn *out)
{
    enum x86_cond cond;
    enum conditional kind;
    int n = in->operand_count_visible;
    if (!condition_of(in->mnemonic, &cond, &kind) || kind == COND_JUMP)
        return false;
    bool is_cmov = kind == COND_MOVE;
    if (!is_cmov && n == 1 && is_mem(&o[0]) && one_data_access(out)) {
        out->emulation = X86_EMU_SETCC;
    } else if (!is_cmov && n == 1 && is_general_reg(&o[0]) && out->n_mem == 0) {
        out->emulation = X86_EMU_SETCC;
        out->load_reg = reg_of(&o[0]);
    } else if (is_cmov && n == 2 && is_general_reg(&o[0]) && is_mem(&o[1]) && one_data_access(out)) {
        out->emulation = X86_EMU_CMOV;
        out->load_reg = reg_of(&o[0]);
    } else if (is_cmov && n == 2 && is_general_reg(&o[0]) && is_general_reg(&o[1]) && out->n_mem == 0) {
        out->emulation = X86_EMU_CMOV;
        out->load_reg = reg_of(&o[0]);
        out->src_reg = reg_of(&o[1]);
    }
    out->cond = (uint8_t)cond;
    return true;
}

/* The form of an arithmetic, logic, imul or bit-test instruction, or false
 * when it is not one x86_emulate does. */
static bool alu_form_of(enum x86_alu_op op, int n, const operand *o, struct x86_insn *out)
{
    bool memory_form = true;
    if (n == 1 && is_unary(op) && is_mem(&o[0])) {
        out->alu_form = X86_ALU_MEM;
    } else if (n == 1 && is_unary(op) && is_general_reg(&o[0])) {
        out->alu_form = X86_ALU_REG;
        out->load_reg = reg_of(&o[0]);
        memory_form = false;
    } else if (n == 2 && is_mem(&o[0]) && is_general_reg(&o[1]) &&
               (is_classic_binary(op) || is_bit_op(op) || (is_shift(op) && o[1].reg.value == ZYDIS_REGISTER_CL))) {
        out->alu_form = X86_ALU_MEM_REG;
        out->load_reg = reg_of(&o[1]);
    } else if (n == 2 && is_mem(&o[0]) && is_imm(&o[1]) && (is_classic_binary(op) || is_bit_op(op) || is_shift(op))) {
        out->alu_form = X86_ALU_MEM_IMM;
        out->store_imm = o[1].imm.value.s;
    } else if (n == 2 && is_general_reg(&o[0]) && is_mem(&o[1]) && (is_classic_binary(op) || op == X86_ALU_IMUL)) {
        out->alu_form = X86_ALU_REG_MEM;
        out->load_reg = reg_of(&o[0]);
    } else if (n == 3 && op == X86_ALU_IMUL && is_general_reg(&o[0]) && is_mem(&o[1]) && is_imm(&o[2])) {
        out->alu_form = X86_ALU_REG_MEM_IMM;
        out->load_reg = reg_of(&o[0]);
        out->store_imm = o[2].imm.value.s;
    } else if (n == 2 && is_general_reg(&o[0]) && is_general_reg(&o[1]) &&
               (((is_classic_binary(op) || op == X86_ALU_IMUL || is_bit_op(op)) && reg_size(&o[0]) == reg_size(&o[1])) ||
                (is_shift(op) && o[1].reg.value == ZYDIS_REGISTER_CL))) {
        out->alu_form = X86_ALU_REG_REG;
        out->load_reg = reg_of(&o[0]);
        out->src_reg = reg_of(&o[1]);
        memory_form = false;
    } else if (n == 2 && is_general_reg(&o[0]) && is_imm(&o[1]) &&
               (is_classic_binary(op) || is_bit_op(op) || is_shift(op))) {
        out->alu_form = X86_ALU_REG_IMM;
        out->load_reg = reg_of(&o[0]);
        out->store_imm = o[1].imm.value.s;
        memory_form = false;
    } else {
        return false;
    }
    return memory_form ? one_data_access(out) : out->n_mem == 0;
}

static void classify_alu(const ZydisDecodedInstruction *in, const operand *o, struct x86_insn *out)
{
    enum x86_alu_op op;
    if (!alu_op_of(in->mnemonic, &op) || !alu_form_of(op, in->operand_count_visible, o, out))
        return;
    out->alu_op = (uint8_t)op;
    out->emulation = X86_EMU_ALU;
}

/* mov: a store, a load, a register set or a register move. */
static void classify_mov(int n, const operand *o, struct x86_insn *out)
{
    if (n != 2)
        return;
    if (out->store_known && (out->store_reg == 0 || x86_is_general_register(out->store_reg)))
        out->emulation = one_data_access(out) ? X86_EMU_STORE : X86_EMU_NONE;
    else if (!is_general_reg(&o[0]))
        return;
    else if (is_mem(&o[1]) && one_data_access(out))
        out->emulation = X86_EMU_LOAD;
    else if (is_imm(&o[1]))
        out->emulation = X86_EMU_SET;
    else if (is_general_reg(&o[1]) && out->n_mem == 0)
        out->emulation = X86_EMU_MOVE;
    if (out->emulation == X86_EMU_LOAD || out->emulation == X86_EMU_SET || out->emulation == X86_EMU_MOVE)
        out->load_reg = reg_of(&o[0]);
    if (out->emulation == X86_EMU_SET)
        out->store_imm = o[1].imm.value.s;
    if (out->emulation == X86_EMU_MOVE)
        out->src_reg = reg_of(&o[1]);
}

/* movzx, movsx, movsxd from memory. */
static void classify_extending_load(ZydisMnemonic m, int n, const operand *o, struct x86_insn *out)
{
    if (n != 2 || !is_general_reg(&o[0]) || !is_mem(&o[1]) || !one_data_access(out))
        return;
    out->emulation = m == ZYDIS_MNEMONIC_MOVZX ? X86_EMU_LOAD_ZERO : X86_EMU_LOAD_SIGN;
    out->load_reg = reg_of(&o[0]);
}

/* Widening within registers: movzx, movsx, movsxd reg, reg and the
 * accumulator's cbw, cwde, cdqe, cwd, cdq, cqo. */
static bool classify_extend(ZydisMnemonic m, int n, const operand *o, struct x86_insn *out)
{
    static const struct {
        ZydisMnemonic mnemonic;
        uint16_t dest, src;
        bool fill;
    } accumulator[] = {
        {ZYDIS_MNEMONIC_CBW, ZYDIS_REGISTER_AX, ZYDIS_REGISTER_AL, false},
        {ZYDIS_MNEMONIC_CWDE, ZYDIS_REGISTER_EAX, ZYDIS_REGISTER_AX, false},
        {ZYDIS_MNEMONIC_CDQE, ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_EAX, false},
        {ZYDIS_MNEMONIC_CWD, ZYDIS_REGISTER_DX, ZYDIS_REGISTER_AX, true},
        {ZYDIS_MNEMONIC_CDQ, ZYDIS_REGISTER_EDX, ZYDIS_REGISTER_EAX, true},
        {ZYDIS_MNEMONIC_CQO, ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RAX, true},
    };
    for (size_t i = 0; i < sizeof accumulator / sizeof accumulator[0]; i++) {
        if (accumulator[i].mnemonic != m)
            continue;
        out->emulation = accumulator[i].fill ? X86_EMU_SIGN_FILL : X86_EMU_EXTEND;
        out->load_reg = accumulator[i].dest;
        out->src_reg = accumulator[i].src;
        out->cond = 1;
        return true;
    }
    bool extending = m == ZYDIS_MNEMONIC_MOVZX || m == ZYDIS_MNEMONIC_MOVSX || m == ZYDIS_MNEMONIC_MOVSXD;
    if (!extending || n != 2 || !is_general_reg(&o[0]) || !is_general_reg(&o[1]) || out->n_mem != 0)
        return false;
    out->emulation = X86_EMU_EXTEND;
    out->load_reg = reg_of(&o[0]);
    out->src_reg = reg_of(&o[1]);
    out->cond = m != ZYDIS_MNEMONIC_MOVZX;
    return true;
}

/* lea reg, [m]: the address expression goes to mem[0], though nothing is
 * accessed (n_mem stays 0). lea ignores segment prefixes. */
static void classify_lea(int n, const operand *o, struct x86_insn *out)
{
    if (n != 2 || !is_general_reg(&o[0]) || !is_mem(&o[1]) || reg_size(&o[0]) < 2 || out->n_mem != 0)
        return;
    out->mem[0] = (struct x86_mem_operand){
        .base = (uint16_t)o[1].mem.base,
        .index = (uint16_t)o[1].mem.index,
        .scale = o[1].mem.index ? o[1].mem.scale : 0,
        .disp = o[1].mem.disp.value,
    };
    out->emulation = X86_EMU_LEA;
    out->load_reg = reg_of(&o[0]);
}

/* xchg, xadd, cmpxchg with one memory operand and a general register. */
static void classify_exchange(ZydisMnemonic m, int n, const operand *o, struct x86_insn *out)
{
    if (n != 2 || !one_data_access(out))
        return;
    const operand *reg = is_general_reg(&o[1]) && is_mem(&o[0])   ? &o[1]
                         : is_general_reg(&o[0]) && is_mem(&o[1]) ? &o[0]
                                                                  : NULL;
    if (!reg)
        return;
    if (m == ZYDIS_MNEMONIC_XCHG)
        out->emulation = X86_EMU_XCHG;
    else if (m == ZYDIS_MNEMONIC_XADD && is_mem(&o[0]))
        out->emulation = X86_EMU_XADD;
    else if (m == ZYDIS_MNEMONIC_CMPXCHG && is_mem(&o[0]))
        out->emulation = X86_EMU_CMPXCHG;
    else
        return;
    out->load_reg = reg_of(reg);
}

/* A plain store (mov to memory): where the value comes from, known to
 * x86_store_value even when the register is not one mdat can emulate. */
static void note_store_value(ZydisMnemonic m, int n, const operand *o, bool string, struct x86_insn *out)
{
    if (m != ZYDIS_MNEMONIC_MOV || n != 2 || !is_mem(&o[0]) || out->n_mem != 1 || string)
        return;
    if (o[1].type == ZYDIS_OPERAND_TYPE_REGISTER) {
        out->store_known = true;
        out->store_reg = reg_of(&o[1]);
    } else if (is_imm(&o[1])) {
        out->store_known = true;
        out->store_imm = o[1].imm.value.s;
    }
}

void x86_classify(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *o, bool string,
                  struct x86_insn *out)
{
    ZydisMnemonic m = in->mnemonic;
    int n = in->operand_count_visible;
    note_store_value(m, n, o, string, out);
    if (string)
        return;
    if ((in->attributes & ZYDIS_ATTRIB_HAS_LOCK) && !(lockable(m) && n >= 1 && is_mem(&o[0])))
        return;     /* #UD on the CPU: let it raise it */
    switch (m) {
    case ZYDIS_MNEMONIC_MOV:
        classify_mov(n, o, out);
        break;
    case ZYDIS_MNEMONIC_MOVZX:
    case ZYDIS_MNEMONIC_MOVSX:
    case ZYDIS_MNEMONIC_MOVSXD:
        if (!classify_extend(m, n, o, out))
            classify_extending_load(m, n, o, out);
        break;
    case ZYDIS_MNEMONIC_CBW:
    case ZYDIS_MNEMONIC_CWDE:
    case ZYDIS_MNEMONIC_CDQE:
    case ZYDIS_MNEMONIC_CWD:
    case ZYDIS_MNEMONIC_CDQ:
    case ZYDIS_MNEMONIC_CQO:
        classify_extend(m, n, o, out);
        break;
    case ZYDIS_MNEMONIC_PUSH:
        if (n == 1 && is_general_reg(&o[0]) && reg_size(&o[0]) == 8) {
            out->emulation = X86_EMU_PUSH;
            out->load_reg = reg_of(&o[0]);
        }
        break;
    case ZYDIS_MNEMONIC_LEA:
        classify_lea(n, o, out);
        break;
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_ENDBR64:
    case ZYDIS_MNEMONIC_ENDBR32:
    case ZYDIS_MNEMONIC_PAUSE:     /* a spin-wait hint: nothing to the program's state */
    case ZYDIS_MNEMONIC_PREFETCHNTA: case ZYDIS_MNEMONIC_PREFETCHT0: case ZYDIS_MNEMONIC_PREFETCHT1:
    case ZYDIS_MNEMONIC_PREFETCHT2: case ZYDIS_MNEMONIC_PREFETCHW: case ZYDIS_MNEMONIC_PREFETCH:
    case ZYDIS_MNEMONIC_PREFETCHWT1:   /* hints: no value changes or is seen */
        if (out->n_mem == 0)
            out->emulation = X86_EMU_NOP;
        break;
    case ZYDIS_MNEMONIC_JMP:
    case ZYDIS_MNEMONIC_CALL:
        if (n == 1 && is_mem(&o[0]) && out->n_mem == 1 && out->mem[0].size == 8 && is_64bit_flow(in)) {
            out->emulation = m == ZYDIS_MNEMONIC_JMP ? X86_EMU_JUMP_MEM : X86_EMU_CALL_MEM;
        } else if (n == 1 && is_general_reg(&o[0]) && reg_size(&o[0]) == 8 && is_64bit_flow(in)) {
            out->emulation = m == ZYDIS_MNEMONIC_JMP ? X86_EMU_JUMP_REG : X86_EMU_CALL_REG;
            out->load_reg = reg_of(&o[0]);
        } else
            classify_flow(in, o, out);
        break;
    case ZYDIS_MNEMONIC_RET:
    case ZYDIS_MNEMONIC_LEAVE:
    case ZYDIS_MNEMONIC_POP:
        classify_flow(in, o, out);
        break;
    case ZYDIS_MNEMONIC_XCHG:
    case ZYDIS_MNEMONIC_XADD:
    case ZYDIS_MNEMONIC_CMPXCHG:
        classify_exchange(m, n, o, out);
        break;
    default:
        if (!classify_conditional(in, o, out) && !classify_flow(in, o, out))
            classify_alu(in, o, out);
        break;
    }
}
