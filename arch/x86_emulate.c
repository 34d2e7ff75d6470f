/* x86_emulate: carrying out an instruction a thread is stopped at, on its
 * registers and (through callbacks with the program's own page rights) its
 * memory, exactly as the CPU would: plain loads, stores, register sets,
 * moves, lea, nops and pushes; arithmetic, logic, shifts, rotates, imul and
 * bit tests with the flags (CF, PF, AF, ZF, SF, OF) computed as the CPU
 * computes them; setcc and cmovcc; xchg, xadd, cmpxchg; jmp and call
 * through memory; direct jumps, jcc, calls, ret, pop and leave; and, by
 * running them in mdat (x86_native.c), vector and other register-only
 * instructions with at most one memory operand. Also the split of a non-atomic read-modify-write into
 * its load and its store (x86_rmw_*) and what a cmpxchg did. Which
 * instructions qualify is decided at decode time (x86_classify.c); this
 * file never looks at bytes. */
#include "arch/x86_alu.h"
#include "arch/x86_insn.h"
#include "arch/x86_native.h"
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

static void set_flags(struct user_regs_struct *regs, const struct alu_result *res)
{
    regs->eflags = (regs->eflags & ~res->set) | (res->flags & res->set);
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
    case X86_EMU_CALL_REL:
    case X86_EMU_CALL_REG:
        *addr = regs->rsp - 8;
        *size = 8;
        *write = true;
        return true;
    case X86_EMU_POP:
    case X86_EMU_RET:
    case X86_EMU_LEAVE:
        *addr = insn->emulation == X86_EMU_LEAVE ? regs->rbp : regs->rsp;
        *size = 8;
        *write = false;
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
    case X86_EMU_NATIVE:
        if (insn->n_mem != 1)
            return false;
        *write = insn->mem[0].write;
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
    struct alu_result res = x86_alu((enum x86_alu_op)insn->alu_op, old, src, insn->mem[0].size, regs->eflags);
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
    struct alu_result res = x86_alu((enum x86_alu_op)insn->alu_op, old, src, size, regs->eflags);
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
    uint64_t m = x86_mask_of(size), desired;
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
        res = insn->alu_form == X86_ALU_REG_MEM ? x86_alu(op, dest, value, size, regs->eflags)
                                                : x86_alu(op, value, (uint64_t)insn->store_imm, size, regs->eflags);
        if (res.stores)
            x86_write_register(&reg, res.value);
    } else {
        if (!alu_source(insn, regs, &src))
            return false;
        res = x86_alu(op, value, src, size, regs->eflags);
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
        res = x86_alu(X86_ALU_ADD, value, src, size, regs->eflags);
        if (!mem->write(mem->ctx, addr, &res.value, size))
            return false;
        x86_write_register(&reg, value);
        set_flags(regs, &res);
        return true;
    case X86_EMU_CMPXCHG: {
        uint64_t acc = regs->rax & x86_mask_of(size);
        res = x86_alu(X86_ALU_CMP, acc, value, size, regs->eflags);
        if (acc == (value & x86_mask_of(size))) {
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
    case X86_EMU_EXTEND:
    case X86_EMU_SIGN_FILL: {
        struct register_part from;
        if (!x86_register_part(insn->src_reg, regs, &from) || !x86_read_register(insn->src_reg, regs, &value))
            return false;
        bool negative = from.width < 8 ? (value >> (from.width * 8 - 1)) & 1 : value >> 63;
        if (insn->emulation == X86_EMU_SIGN_FILL)
            value = negative ? ~0ull : 0;
        else if (insn->cond && negative && from.width < 8)
            value |= ~0ull << (from.width * 8);
        break;
    }
    case X86_EMU_SETCC:
        value = x86_condition_holds((enum x86_cond)insn->cond, regs->eflags);
        break;
    case X86_EMU_CMOV:
        /* Written even when the condition fails: a 32-bit cmov clears the upper half. */
        if (!x86_read_register(insn->load_reg, regs, &value) || !x86_read_register(insn->src_reg, regs, &src))
            return false;
        if (x86_condition_holds((enum x86_cond)insn->cond, regs->eflags))
            value = src;
        break;
    case X86_EMU_ALU: {
        if (!x86_read_register(insn->load_reg, regs, &value))
            return false;
        if (insn->alu_form == X86_ALU_REG_REG && !x86_read_register(insn->src_reg, regs, &src))
            return false;
        if (insn->alu_form == X86_ALU_REG_IMM)
            src = (uint64_t)insn->store_imm;
        struct alu_result res = x86_alu((enum x86_alu_op)insn->alu_op, value, src, dest.width, regs->eflags);
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

/* jmp [m] and call [m]: rip becomes the target read from memory; call
 * pushes the return address. */
static bool emulate_transfer(const struct x86_insn *insn, struct user_regs_struct *regs,
                             const struct x86_memory *mem, uint64_t addr)
{
    uint64_t target, back = regs->rip + insn->length;
    if (!mem->read(mem->ctx, addr, &target, 8))
        return false;
    if (insn->emulation == X86_EMU_CALL_MEM) {
        /* The target was read before the push moves rsp (call [rsp+8] reads above it). */
        if (!mem->write(mem->ctx, regs->rsp - 8, &back, 8))
            return false;
        regs->rsp -= 8;
    }
    regs->rip = target;
    return true;
}

/* pop, leave, ret, call rel32 and call reg: the stack and rip (r is the
 * work copy, addr the stack slot x86_emulated_access named). */
static bool emulate_stack_flow(const struct x86_insn *insn, struct user_regs_struct *r, const struct x86_memory *mem,
                               uint64_t addr)
{
    uint64_t value;
    if (insn->emulation == X86_EMU_CALL_REL || insn->emulation == X86_EMU_CALL_REG) {
        uint64_t target = r->rip + (uint64_t)insn->store_imm;
        /* call rsp goes where rsp pointed before the push. */
        if (insn->emulation == X86_EMU_CALL_REG && !x86_read_register(insn->load_reg, r, &target))
            return false;
        value = r->rip + insn->length;
        if (!mem->write(mem->ctx, addr, &value, 8))
            return false;
        r->rsp -= 8;
        r->rip = target;
        return true;
    }
    if (!mem->read(mem->ctx, addr, &value, 8))
        return false;
    switch (insn->emulation) {
    case X86_EMU_POP: {
        struct register_part reg;
        if (!x86_register_part(insn->load_reg, r, &reg))
            return false;
        r->rsp += 8;
        x86_write_register(&reg, value);    /* pop rsp: the value read, not the increment */
        break;
    }
    case X86_EMU_LEAVE:
        r->rsp = r->rbp + 8;
        r->rbp = value;
        break;
    case X86_EMU_RET:
        r->rsp += 8 + (uint64_t)insn->store_imm;
        r->rip = value;
        return true;
    default:
        return false;
    }
    r->rip += insn->length;
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
    if (insn->emulation == X86_EMU_NATIVE)
        return x86_native_run(insn, regs, mem, insn->n_mem ? x86_effective_address(insn, 0, regs) : 0);
    if (insn->emulation == X86_EMU_JUMP_REL || insn->emulation == X86_EMU_JCC) {
        bool taken = insn->emulation == X86_EMU_JUMP_REL ||
                     x86_condition_holds((enum x86_cond)insn->cond, regs->eflags);
        regs->rip += taken ? (uint64_t)insn->store_imm : insn->length;
        return true;
    }
    if (insn->emulation == X86_EMU_JUMP_REG) {
        uint64_t target;
        if (!x86_read_register(insn->load_reg, regs, &target))
            return false;
        regs->rip = target;
        return true;
    }
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
    case X86_EMU_CALL_MEM:
        if (!emulate_transfer(insn, &r, mem, addr))
            return false;
        *regs = r;
        return true;
    case X86_EMU_POP:
    case X86_EMU_LEAVE:
    case X86_EMU_RET:
    case X86_EMU_CALL_REL:
    case X86_EMU_CALL_REG:
        if (!emulate_stack_flow(insn, &r, mem, addr))
            return false;
        *regs = r;
        return true;
    case X86_EMU_SETCC:
        value = x86_condition_holds((enum x86_cond)insn->cond, r.eflags);
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
        x86_write_register(&reg, x86_condition_holds((enum x86_cond)insn->cond, r.eflags) ? value : current);
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
