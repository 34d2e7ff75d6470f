/* x86_classify: which instructions x86_emulate carries out, decided once
 * per instruction at decode time (see arch/x86_classify.h).
 *
 * It runs over every instruction of the executable once per batch, so it
 * is switches on capstone ids and operand types, never text. Only general
 * registers and immediates qualify (user_regs_struct has no vector or x87
 * state); anything else stays X86_EMU_NONE and the CPU runs it. A LOCK
 * prefix on an instruction that does not allow one (cmp, bt, a register
 * destination) makes the CPU raise #UD: those are left to the CPU too. */
#include "arch/x86_classify.h"
#include "arch/x86_regs.h"

static bool is_mem(const cs_x86_op *op)
{
    return op->type == X86_OP_MEM;
}

static bool is_imm(const cs_x86_op *op)
{
    return op->type == X86_OP_IMM;
}

static bool is_general_reg(const cs_x86_op *op)
{
    return op->type == X86_OP_REG && x86_is_general_register((uint16_t)op->reg);
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
static bool lockable(unsigned id)
{
    switch (id) {
    case X86_INS_ADD: case X86_INS_ADC: case X86_INS_SUB: case X86_INS_SBB:
    case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
    case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG: case X86_INS_NOT:
    case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC:
    case X86_INS_XCHG: case X86_INS_XADD: case X86_INS_CMPXCHG:
        return true;
    default:
        return false;
    }
}

static bool alu_op_of(unsigned id, enum x86_alu_op *op)
{
    switch (id) {
    case X86_INS_ADD: *op = X86_ALU_ADD; return true;
    case X86_INS_SUB: *op = X86_ALU_SUB; return true;
    case X86_INS_ADC: *op = X86_ALU_ADC; return true;
    case X86_INS_SBB: *op = X86_ALU_SBB; return true;
    case X86_INS_AND: *op = X86_ALU_AND; return true;
    case X86_INS_OR: *op = X86_ALU_OR; return true;
    case X86_INS_XOR: *op = X86_ALU_XOR; return true;
    case X86_INS_CMP: *op = X86_ALU_CMP; return true;
    case X86_INS_TEST: *op = X86_ALU_TEST; return true;
    case X86_INS_INC: *op = X86_ALU_INC; return true;
    case X86_INS_DEC: *op = X86_ALU_DEC; return true;
    case X86_INS_NEG: *op = X86_ALU_NEG; return true;
    case X86_INS_NOT: *op = X86_ALU_NOT; return true;
    case X86_INS_IMUL: *op = X86_ALU_IMUL; return true;
    case X86_INS_BT: *op = X86_ALU_BT; return true;
    case X86_INS_BTS: *op = X86_ALU_BTS; return true;
    case X86_INS_BTR: *op = X86_ALU_BTR; return true;
    case X86_INS_BTC: *op = X86_ALU_BTC; return true;
    case X86_INS_SHL: case X86_INS_SAL: *op = X86_ALU_SHL; return true;
    case X86_INS_SHR: *op = X86_ALU_SHR; return true;
    case X86_INS_SAR: *op = X86_ALU_SAR; return true;
    case X86_INS_ROL: *op = X86_ALU_ROL; return true;
    case X86_INS_ROR: *op = X86_ALU_ROR; return true;
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

static bool condition_of(unsigned id, enum x86_cond *cond, enum conditional *kind)
{
#define CONDITION(c, set, cmov, jump)                                                                  \
    case set: *cond = c; *kind = COND_SET; return true;                                               \
    case cmov: *cond = c; *kind = COND_MOVE; return true;                                             \
    case jump: *cond = c; *kind = COND_JUMP; return true;
    switch (id) {
    CONDITION(X86_COND_O, X86_INS_SETO, X86_INS_CMOVO, X86_INS_JO)
    CONDITION(X86_COND_NO, X86_INS_SETNO, X86_INS_CMOVNO, X86_INS_JNO)
    CONDITION(X86_COND_B, X86_INS_SETB, X86_INS_CMOVB, X86_INS_JB)
    CONDITION(X86_COND_AE, X86_INS_SETAE, X86_INS_CMOVAE, X86_INS_JAE)
    CONDITION(X86_COND_E, X86_INS_SETE, X86_INS_CMOVE, X86_INS_JE)
    CONDITION(X86_COND_NE, X86_INS_SETNE, X86_INS_CMOVNE, X86_INS_JNE)
    CONDITION(X86_COND_BE, X86_INS_SETBE, X86_INS_CMOVBE, X86_INS_JBE)
    CONDITION(X86_COND_A, X86_INS_SETA, X86_INS_CMOVA, X86_INS_JA)
    CONDITION(X86_COND_S, X86_INS_SETS, X86_INS_CMOVS, X86_INS_JS)
    CONDITION(X86_COND_NS, X86_INS_SETNS, X86_INS_CMOVNS, X86_INS_JNS)
    CONDITION(X86_COND_P, X86_INS_SETP, X86_INS_CMOVP, X86_INS_JP)
    CONDITION(X86_COND_NP, X86_INS_SETNP, X86_INS_CMOVNP, X86_INS_JNP)
    CONDITION(X86_COND_L, X86_INS_SETL, X86_INS_CMOVL, X86_INS_JL)
    CONDITION(X86_COND_GE, X86_INS_SETGE, X86_INS_CMOVGE, X86_INS_JGE)
    CONDITION(X86_COND_LE, X86_INS_SETLE, X86_INS_CMOVLE, X86_INS_JLE)
    CONDITION(X86_COND_G, X86_INS_SETG, X86_INS_CMOVG, X86_INS_JG)
    default:
        return false;
    }
#undef CONDITION
}

/* Branches, calls and returns with their target in the encoding, pop and
 * leave; false when id is none of those. Only the 64-bit forms are
 * emulated (an operand-size prefix makes them 16-bit, which compilers do
 * not emit). */
static bool classify_flow(const cs_insn *insn, struct x86_insn *out)
{
    const cs_x86 *x86 = &insn->detail->x86;
    const cs_x86_op *o = x86->operands;
    unsigned id = insn->id;
    enum x86_cond cond;
    enum conditional kind;
    bool conditional = condition_of(id, &cond, &kind) && kind == COND_JUMP;
    bool flow = conditional || id == X86_INS_JMP || id == X86_INS_CALL || id == X86_INS_RET ||
                id == X86_INS_LEAVE || id == X86_INS_POP;
    if (!flow || out->n_mem != 0 || x86->prefix[2] == X86_PREFIX_OPSIZE)
        return flow;
    bool relative = x86->op_count == 1 && is_imm(&o[0]);
    if ((id == X86_INS_JMP || id == X86_INS_CALL || conditional) && relative) {
        out->emulation = conditional ? X86_EMU_JCC : id == X86_INS_JMP ? X86_EMU_JUMP_REL : X86_EMU_CALL_REL;
        out->cond = conditional ? (uint8_t)cond : 0;
        out->store_imm = o[0].imm - (int64_t)insn->address;
    } else if (id == X86_INS_RET && (x86->op_count == 0 || (x86->op_count == 1 && is_imm(&o[0])))) {
        out->emulation = X86_EMU_RET;
        out->store_imm = x86->op_count == 1 ? o[0].imm : 0;
    } else if (id == X86_INS_LEAVE && x86->op_count == 0) {
        out->emulation = X86_EMU_LEAVE;
    } else if (id == X86_INS_POP && x86->op_count == 1 && is_general_reg(&o[0]) && o[0].size == 8) {
        out->emulation = X86_EMU_POP;
        out->load_reg = (uint16_t)o[0].reg;
    }
    return true;
}

/* setcc [m] / setcc reg8; cmovcc reg, [m] / cmovcc reg, reg. */
static bool classify_conditional(unsigned id, const cs_x86 *x86, struct x86_insn *out)
{
    enum x86_cond cond;
    enum conditional kind;
    const cs_x86_op *o = x86->operands;
    if (!condition_of(id, &cond, &kind) || kind == COND_JUMP)
        return false;
    bool is_cmov = kind == COND_MOVE;
    if (!is_cmov && x86->op_count == 1 && is_mem(&o[0]) && one_data_access(out)) {
        out->emulation = X86_EMU_SETCC;
    } else if (!is_cmov && x86->op_count == 1 && is_general_reg(&o[0]) && out->n_mem == 0) {
        out->emulation = X86_EMU_SETCC;
        out->load_reg = (uint16_t)o[0].reg;
    } else if (is_cmov && x86->op_count == 2 && is_general_reg(&o[0]) && is_mem(&o[1]) && one_data_access(out)) {
        out->emulation = X86_EMU_CMOV;
        out->load_reg = (uint16_t)o[0].reg;
    } else if (is_cmov && x86->op_count == 2 && is_general_reg(&o[0]) && is_general_reg(&o[1]) && out->n_mem == 0) {
        out->emulation = X86_EMU_CMOV;
        out->load_reg = (uint16_t)o[0].reg;
        out->src_reg = (uint16_t)o[1].reg;
    }
    out->cond = (uint8_t)cond;
    return true;
}

/* The form of an arithmetic, logic, imul or bit-test instruction, or false
 * when it is not one x86_emulate does. */
static bool alu_form_of(enum x86_alu_op op, const cs_x86 *x86, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    int n = x86->op_count;
    bool memory_form = true;
    if (n == 1 && is_unary(op) && is_mem(&o[0])) {
        out->alu_form = X86_ALU_MEM;
    } else if (n == 1 && is_unary(op) && is_general_reg(&o[0])) {
        out->alu_form = X86_ALU_REG;
        out->load_reg = (uint16_t)o[0].reg;
        memory_form = false;
    } else if (n == 2 && is_mem(&o[0]) && is_general_reg(&o[1]) &&
               (is_classic_binary(op) || is_bit_op(op) || (is_shift(op) && o[1].reg == X86_REG_CL))) {
        out->alu_form = X86_ALU_MEM_REG;
        out->load_reg = (uint16_t)o[1].reg;
    } else if (n == 2 && is_mem(&o[0]) && is_imm(&o[1]) && (is_classic_binary(op) || is_bit_op(op) || is_shift(op))) {
        out->alu_form = X86_ALU_MEM_IMM;
        out->store_imm = o[1].imm;
    } else if (n == 2 && is_general_reg(&o[0]) && is_mem(&o[1]) && (is_classic_binary(op) || op == X86_ALU_IMUL)) {
        out->alu_form = X86_ALU_REG_MEM;
        out->load_reg = (uint16_t)o[0].reg;
    } else if (n == 3 && op == X86_ALU_IMUL && is_general_reg(&o[0]) && is_mem(&o[1]) && is_imm(&o[2])) {
        out->alu_form = X86_ALU_REG_MEM_IMM;
        out->load_reg = (uint16_t)o[0].reg;
        out->store_imm = o[2].imm;
    } else if (n == 2 && is_general_reg(&o[0]) && is_general_reg(&o[1]) &&
               (((is_classic_binary(op) || op == X86_ALU_IMUL || is_bit_op(op)) && o[0].size == o[1].size) ||
                (is_shift(op) && o[1].reg == X86_REG_CL))) {
        out->alu_form = X86_ALU_REG_REG;
        out->load_reg = (uint16_t)o[0].reg;
        out->src_reg = (uint16_t)o[1].reg;
        memory_form = false;
    } else if (n == 2 && is_general_reg(&o[0]) && is_imm(&o[1]) &&
               (is_classic_binary(op) || is_bit_op(op) || is_shift(op))) {
        out->alu_form = X86_ALU_REG_IMM;
        out->load_reg = (uint16_t)o[0].reg;
        out->store_imm = o[1].imm;
        memory_form = false;
    } else {
        return false;
    }
    return memory_form ? one_data_access(out) : out->n_mem == 0;
}

static void classify_alu(unsigned id, const cs_x86 *x86, struct x86_insn *out)
{
    enum x86_alu_op op;
    if (!alu_op_of(id, &op) || !alu_form_of(op, x86, out))
        return;
    out->alu_op = (uint8_t)op;
    out->emulation = X86_EMU_ALU;
}

/* mov: a store, a load, a register set or a register move. */
static void classify_mov(const cs_x86 *x86, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    if (x86->op_count != 2)
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
        out->load_reg = (uint16_t)o[0].reg;
    if (out->emulation == X86_EMU_SET)
        out->store_imm = o[1].imm;
    if (out->emulation == X86_EMU_MOVE)
        out->src_reg = (uint16_t)o[1].reg;
}

/* movzx, movsx, movsxd from memory. */
static void classify_extending_load(unsigned id, const cs_x86 *x86, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    if (x86->op_count != 2 || !is_general_reg(&o[0]) || !is_mem(&o[1]) || !one_data_access(out))
        return;
    out->emulation = id == X86_INS_MOVZX ? X86_EMU_LOAD_ZERO : X86_EMU_LOAD_SIGN;
    out->load_reg = (uint16_t)o[0].reg;
}

/* Widening within registers: movzx, movsx, movsxd reg, reg and the
 * accumulator's cbw, cwde, cdqe, cwd, cdq, cqo. */
static bool classify_extend(unsigned id, const cs_x86 *x86, struct x86_insn *out)
{
    static const struct {
        unsigned id;
        uint16_t dest, src;
        bool fill;
    } accumulator[] = {
        {X86_INS_CBW, X86_REG_AX, X86_REG_AL, false},    {X86_INS_CWDE, X86_REG_EAX, X86_REG_AX, false},
        {X86_INS_CDQE, X86_REG_RAX, X86_REG_EAX, false}, {X86_INS_CWD, X86_REG_DX, X86_REG_AX, true},
        {X86_INS_CDQ, X86_REG_EDX, X86_REG_EAX, true},   {X86_INS_CQO, X86_REG_RDX, X86_REG_RAX, true},
    };
    for (size_t i = 0; i < sizeof accumulator / sizeof accumulator[0]; i++) {
        if (accumulator[i].id != id)
            continue;
        out->emulation = accumulator[i].fill ? X86_EMU_SIGN_FILL : X86_EMU_EXTEND;
        out->load_reg = accumulator[i].dest;
        out->src_reg = accumulator[i].src;
        out->cond = 1;
        return true;
    }
    const cs_x86_op *o = x86->operands;
    bool extending = id == X86_INS_MOVZX || id == X86_INS_MOVSX || id == X86_INS_MOVSXD;
    if (!extending || x86->op_count != 2 || !is_general_reg(&o[0]) || !is_general_reg(&o[1]) || out->n_mem != 0)
        return false;
    out->emulation = X86_EMU_EXTEND;
    out->load_reg = (uint16_t)o[0].reg;
    out->src_reg = (uint16_t)o[1].reg;
    out->cond = id != X86_INS_MOVZX;
    return true;
}

/* lea reg, [m]: the address expression goes to mem[0], though nothing is
 * accessed (n_mem stays 0). lea ignores segment prefixes. */
static void classify_lea(const cs_x86 *x86, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    if (x86->op_count != 2 || !is_general_reg(&o[0]) || !is_mem(&o[1]) || o[0].size < 2 || out->n_mem != 0)
        return;
    uint16_t index = (uint16_t)o[1].mem.index;
    if (index == X86_REG_RIZ || index == X86_REG_EIZ)
        index = 0;
    out->mem[0] = (struct x86_mem_operand){
        .base = (uint16_t)o[1].mem.base, .index = index, .scale = o[1].mem.scale, .disp = o[1].mem.disp,
    };
    out->emulation = X86_EMU_LEA;
    out->load_reg = (uint16_t)o[0].reg;
}

/* xchg, xadd, cmpxchg with one memory operand and a general register. */
static void classify_exchange(unsigned id, const cs_x86 *x86, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    if (x86->op_count != 2 || !one_data_access(out))
        return;
    const cs_x86_op *reg = is_general_reg(&o[1]) && is_mem(&o[0]) ? &o[1]
                           : is_general_reg(&o[0]) && is_mem(&o[1]) ? &o[0]
                                                                      : NULL;
    if (!reg)
        return;
    if (id == X86_INS_XCHG)
        out->emulation = X86_EMU_XCHG;
    else if (id == X86_INS_XADD && is_mem(&o[0]))
        out->emulation = X86_EMU_XADD;
    else if (id == X86_INS_CMPXCHG && is_mem(&o[0]))
        out->emulation = X86_EMU_CMPXCHG;
    else
        return;
    out->load_reg = (uint16_t)reg->reg;
}

/* A plain store (mov to memory): where the value comes from, known to
 * x86_store_value even when the register is not one mdat can emulate. */
static void note_store_value(unsigned id, const cs_x86 *x86, bool string, struct x86_insn *out)
{
    const cs_x86_op *o = x86->operands;
    if ((id != X86_INS_MOV && id != X86_INS_MOVABS) || x86->op_count != 2 || !is_mem(&o[0]) || out->n_mem != 1 ||
        string)
        return;
    if (o[1].type == X86_OP_REG) {
        out->store_known = true;
        out->store_reg = (uint16_t)o[1].reg;
    } else if (is_imm(&o[1])) {
        out->store_known = true;
        out->store_imm = o[1].imm;
    }
}

void x86_classify(const cs_insn *insn, bool lock, bool string, struct x86_insn *out)
{
    const cs_x86 *x86 = &insn->detail->x86;
    const cs_x86_op *o = x86->operands;
    unsigned id = insn->id;
    note_store_value(id, x86, string, out);
    if (string)
        return;
    if (lock && !(lockable(id) && x86->op_count >= 1 && is_mem(&o[0])))
        return;     /* #UD on the CPU: let it raise it */
    switch (id) {
    case X86_INS_MOV:
    case X86_INS_MOVABS:
        classify_mov(x86, out);
        break;
    case X86_INS_MOVZX:
    case X86_INS_MOVSX:
    case X86_INS_MOVSXD:
        if (!classify_extend(id, x86, out))
            classify_extending_load(id, x86, out);
        break;
    case X86_INS_CBW:
    case X86_INS_CWDE:
    case X86_INS_CDQE:
    case X86_INS_CWD:
    case X86_INS_CDQ:
    case X86_INS_CQO:
        classify_extend(id, x86, out);
        break;
    case X86_INS_PUSH:
        if (x86->op_count == 1 && is_general_reg(&o[0]) && o[0].size == 8) {
            out->emulation = X86_EMU_PUSH;
            out->load_reg = (uint16_t)o[0].reg;
        }
        break;
    case X86_INS_LEA:
        classify_lea(x86, out);
        break;
    case X86_INS_NOP:
    case X86_INS_ENDBR64:
    case X86_INS_ENDBR32:
    case X86_INS_PAUSE:     /* a spin-wait hint: nothing to the program's state */
        if (out->n_mem == 0)
            out->emulation = X86_EMU_NOP;
        break;
    case X86_INS_JMP:
    case X86_INS_CALL:
        if (x86->op_count == 1 && is_mem(&o[0]) && out->n_mem == 1 && out->mem[0].size == 8) {
            out->emulation = id == X86_INS_JMP ? X86_EMU_JUMP_MEM : X86_EMU_CALL_MEM;
        } else if (x86->op_count == 1 && is_general_reg(&o[0]) && o[0].size == 8 &&
                   x86->prefix[2] != X86_PREFIX_OPSIZE) {
            out->emulation = id == X86_INS_JMP ? X86_EMU_JUMP_REG : X86_EMU_CALL_REG;
            out->load_reg = (uint16_t)o[0].reg;
        } else
            classify_flow(insn, out);
        break;
    case X86_INS_RET:
    case X86_INS_LEAVE:
    case X86_INS_POP:
        classify_flow(insn, out);
        break;
    case X86_INS_XCHG:
    case X86_INS_XADD:
    case X86_INS_CMPXCHG:
        classify_exchange(id, x86, out);
        break;
    default:
        if (!classify_conditional(id, x86, out) && !classify_flow(insn, out))
            classify_alu(id, x86, out);
        break;
    }
}
