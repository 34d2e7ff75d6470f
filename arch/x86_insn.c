/* x86_insn: decodes one x86-64 instruction with capstone and classifies its
 * memory accesses for the supervisor (see arch/x86_insn.h).
 *
 * Owns: the capstone handle, the list of instructions whose "memory operand"
 * is not a memory access (lea, nops, prefetches, cache-line hints), the
 * corrections to capstone 4's per-operand read/write information (wrong for
 * many stores and a few read-modify-writes), the implicit memory operands
 * capstone does not list (xlat, maskmov*), atomicity, and the mapping from
 * capstone register ids to user_regs_struct for effective addresses.
 *
 * Operand order is capstone's default Intel syntax: the destination is
 * operand 0. */
#include "arch/x86_insn.h"
#include "arch/x86_capstone.h"
#include "arch/x86_classify.h"
#include "arch/x86_regs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct x86_decoder {
    csh handle;
    cs_insn *scratch; /* reused by every x86_decode: cs_malloc once, not per call */
};

x86_decoder *x86_decoder_new(void)
{
    x86_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->handle) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
    d->scratch = cs_malloc(d->handle);
    if (!d->scratch) {
        cs_close(&d->handle);
        free(d);
        return NULL;
    }
    return d;
}

void x86_decoder_free(x86_decoder *d)
{
    if (!d)
        return;
    cs_free(d->scratch, 1);
    cs_close(&d->handle);
    free(d);
}

/* ---- raw-byte facts capstone 4 reports unreliably ---------------------- */

static bool is_legacy_prefix(uint8_t b)
{
    switch (b) {
    case 0xf0: case 0xf2: case 0xf3:
    case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
    case 0x66: case 0x67:
        return true;
    default:
        return false;
    }
}

struct prefix_scan {
    bool lock;
    bool address_size_32;   /* 0x67: addresses are computed in 32 bits */
    size_t opcode_offset;   /* first byte after legacy prefixes and REX */
};

/* capstone keeps a single REP/REPNE/LOCK slot, so "lock" next to an
 * xacquire/xrelease prefix can be hidden by the order of the bytes; the raw
 * prefix bytes are authoritative. */
static struct prefix_scan scan_prefixes(const uint8_t *bytes, size_t length)
{
    struct prefix_scan scan = {0};
    size_t i = 0;
    while (i < length && is_legacy_prefix(bytes[i])) {
        if (bytes[i] == 0xf0)
            scan.lock = true;
        if (bytes[i] == 0x67)
            scan.address_size_32 = true;
        i++;
    }
    if (i < length && (bytes[i] & 0xf0) == 0x40)
        i++;
    scan.opcode_offset = i;
    return scan;
}

/* movs a4/a5, cmps a6/a7, stos aa/ab, lods ac/ad, scas ae/af. Decided by
 * opcode because capstone's X86_INS_MOVSD names both the string move and the
 * SSE scalar-double move. */
static bool is_string_opcode(const uint8_t *bytes, size_t length, const struct prefix_scan *scan)
{
    if (scan->opcode_offset >= length)
        return false;
    uint8_t op = bytes[scan->opcode_offset];
    return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf);
}

/* ---- instruction classes ----------------------------------------------- */

/* The operand names an address but nothing is loaded or stored: lea computes,
 * nops and the bnd* hints capstone 4 decodes as nop ignore it, prefetches and
 * cache-line maintenance cannot change or observe a value. */
static bool operand_is_not_an_access(unsigned id)
{
    switch (id) {
    case X86_INS_LEA:
    case X86_INS_NOP:
    case X86_INS_PREFETCH:
    case X86_INS_PREFETCHNTA:
    case X86_INS_PREFETCHT0:
    case X86_INS_PREFETCHT1:
    case X86_INS_PREFETCHT2:
    case X86_INS_PREFETCHW:
    case X86_INS_CLFLUSH:
    case X86_INS_CLFLUSHOPT:
    case X86_INS_CLWB:
        return true;
    default:
        return false;
    }
}

/* Destination operands that are only read (flags are the only result). */
static bool destination_is_read_only(unsigned id)
{
    switch (id) {
    case X86_INS_CMP:
    case X86_INS_TEST:
    case X86_INS_BT:
        return true;
    default:
        return false;
    }
}

/* Read-modify-write destinations, listed because capstone 4 reports some of
 * them (rotates, cmpxchg) as read-only. */
static bool destination_is_read_modify_write(unsigned id)
{
    switch (id) {
    case X86_INS_ADD: case X86_INS_ADC: case X86_INS_SUB: case X86_INS_SBB:
    case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
    case X86_INS_INC: case X86_INS_DEC: case X86_INS_NEG: case X86_INS_NOT:
    case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR: case X86_INS_SAR:
    case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR:
    case X86_INS_SHLD: case X86_INS_SHRD:
    case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC:
    case X86_INS_XCHG: case X86_INS_XADD:
    case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
        return true;
    default:
        return false;
    }
}

/* Single-operand stores capstone 4 reports inconsistently (fst, fisttp,
 * fnstcw, stmxcsr and setg as reads; setne correctly as a write). */
static bool single_operand_is_store(unsigned id)
{
    switch (id) {
    case X86_INS_FST: case X86_INS_FSTP: case X86_INS_FIST: case X86_INS_FISTP:
    case X86_INS_FISTTP: case X86_INS_FBSTP:
    case X86_INS_FNSTCW: case X86_INS_FNSTSW: case X86_INS_FNSTENV: case X86_INS_FNSAVE:
    case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
    case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEC: case X86_INS_XSAVEC64:
    case X86_INS_XSAVES: case X86_INS_XSAVES64: case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64:
    case X86_INS_STMXCSR: case X86_INS_VSTMXCSR:
    case X86_INS_SGDT: case X86_INS_SIDT: case X86_INS_SLDT: case X86_INS_STR: case X86_INS_SMSW:
    case X86_INS_VMPTRST:
    case X86_INS_POP:
    case X86_INS_SETA: case X86_INS_SETAE: case X86_INS_SETB: case X86_INS_SETBE:
    case X86_INS_SETE: case X86_INS_SETNE: case X86_INS_SETG: case X86_INS_SETGE:
    case X86_INS_SETL: case X86_INS_SETLE: case X86_INS_SETO: case X86_INS_SETNO:
    case X86_INS_SETP: case X86_INS_SETNP: case X86_INS_SETS: case X86_INS_SETNS:
        return true;
    default:
        return false;
    }
}

/* Single-operand loads capstone 4 reports as stores (frstor) or might. */
static bool single_operand_is_load(unsigned id)
{
    switch (id) {
    case X86_INS_FRSTOR: case X86_INS_FLDENV: case X86_INS_FLDCW:
    case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
    case X86_INS_XRSTOR: case X86_INS_XRSTOR64: case X86_INS_XRSTORS: case X86_INS_XRSTORS64:
    case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
    case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_JMP:
    case X86_INS_MUL: case X86_INS_IMUL: case X86_INS_DIV: case X86_INS_IDIV:
        return true;
    default:
        return false;
    }
}

/* Read/write direction of explicit memory operand position `position` of an
 * instruction with `op_count` operands, starting from capstone's answer and
 * overriding it where capstone 4 is known to be wrong. */
static void memory_direction(unsigned id, bool string, int position, int op_count,
                             uint8_t capstone_access, bool *read, bool *write)
{
    uint8_t access = capstone_access;
    if (string) {
        /* capstone gets movs/cmps/stos/lods/scas right; keep it. */
    } else if (id == X86_INS_XCHG || id == X86_INS_XADD) {
        access = CS_AC_READ | CS_AC_WRITE;
    } else if (position == 0 && op_count == 1) {
        if (single_operand_is_store(id))
            access = CS_AC_WRITE;
        else if (single_operand_is_load(id))
            access = CS_AC_READ;
        else if (destination_is_read_modify_write(id))
            access = CS_AC_READ | CS_AC_WRITE;
    } else if (position == 0) {
        if (destination_is_read_only(id))
            access = CS_AC_READ;
        else if (destination_is_read_modify_write(id))
            access = CS_AC_READ | CS_AC_WRITE;
        else if (access == CS_AC_READ)
            /* A memory destination that is not compared, tested or modified
             * in place is stored to: capstone 4 reports movups, movq, movnti,
             * movbe, pextrd, vmovdqu, vextracti128 ... stores as reads. */
            access = CS_AC_WRITE;
    } else {
        access = CS_AC_READ; /* Intel syntax: a memory operand after the first is a source */
    }
    if (access == 0)
        access = CS_AC_READ; /* unknown: it has an address, so it is at least read */
    *read = (access & CS_AC_READ) != 0;
    *write = (access & CS_AC_WRITE) != 0;
}

/* ---- per-operand location facts ---------------------------------------- */

static bool is_tls_segment(uint16_t segment)
{
    return segment == X86_REG_FS || segment == X86_REG_GS;
}

static bool is_rip_base(uint16_t base)
{
    return base == X86_REG_RIP || base == X86_REG_EIP;
}

/* Only 64-bit rsp/rbp bases count: with a 0x67 prefix [esp+x] is computed in
 * 32 bits and zero-extended, which is not the stack of a 64-bit thread. */
static bool is_sp_based(const struct x86_mem_operand *m)
{
    return m->base == X86_REG_RSP && m->index == 0 && !is_tls_segment(m->segment);
}

static bool is_bp_based(const struct x86_mem_operand *m)
{
    return (m->base == X86_REG_RBP || m->base == X86_REG_RSP) && m->index == 0 &&
           !is_tls_segment(m->segment);
}

static bool is_own_stack(const struct x86_mem_operand *m, bool frame_pointer)
{
    return frame_pointer ? is_bp_based(m) : is_sp_based(m);
}

static bool is_rip_relative(const struct x86_mem_operand *m)
{
    return is_rip_base(m->base) && m->index == 0 && !is_tls_segment(m->segment);
}

/* ---- decoding ---------------------------------------------------------- */

static void add_memory_operand(struct x86_insn *out, uint16_t base, uint16_t index,
                               uint16_t segment, int32_t scale, int64_t disp, uint8_t size,
                               bool read, bool write)
{
    if (out->n_mem >= X86_MAX_MEM_OPERANDS)
        return;
    /* riz/eiz are encoding artefacts meaning "no index" (padding like
     * lea rsi, [rsi + riz]); normalise so "no index" tests stay simple. */
    if (index == X86_REG_RIZ || index == X86_REG_EIZ)
        index = 0;
    out->mem[out->n_mem++] = (struct x86_mem_operand){
        .base = base, .index = index, .segment = segment,
        .scale = scale, .disp = disp, .size = size,
        .read = read, .write = write,
    };
}

/* Memory accessed by instructions whose operands do not name it. */
static void add_implicit_memory_operands(unsigned id, const struct prefix_scan *scan,
                                         const cs_x86 *x86, struct x86_insn *out)
{
    uint16_t segment = 0;
    if (x86->prefix[1] == X86_PREFIX_FS)
        segment = X86_REG_FS;
    else if (x86->prefix[1] == X86_PREFIX_GS)
        segment = X86_REG_GS;
    switch (id) {
    case X86_INS_XLATB: /* al = [rbx + zero-extended al] */
        add_memory_operand(out, scan->address_size_32 ? X86_REG_EBX : X86_REG_RBX, X86_REG_AL,
                           segment, 1, 0, 1, true, false);
        break;
    case X86_INS_MASKMOVQ: /* byte-masked store to ds:[rdi] */
        add_memory_operand(out, scan->address_size_32 ? X86_REG_EDI : X86_REG_RDI, 0, segment,
                           1, 0, 8, false, true);
        break;
    case X86_INS_MASKMOVDQU:
    case X86_INS_VMASKMOVDQU:
        add_memory_operand(out, scan->address_size_32 ? X86_REG_EDI : X86_REG_RDI, 0, segment,
                           1, 0, 16, false, true);
        break;
    default:
        break;
    }
}

static bool has_group(const cs_detail *detail, uint8_t group)
{
    for (uint8_t i = 0; i < detail->groups_count; i++)
        if (detail->groups[i] == group)
            return true;
    return false;
}

static uint32_t control_flags(const cs_insn *insn, const cs_x86 *x86)
{
    uint32_t flags = 0;
    switch (insn->id) {
    case X86_INS_SYSCALL:
    case X86_INS_SYSENTER:
        flags |= X86_SYSCALL;
        break;
    case X86_INS_INT:
        if (x86->op_count == 1 && x86->operands[0].type == X86_OP_IMM &&
            x86->operands[0].imm == 0x80)
            flags |= X86_SYSCALL;
        break;
    default:
        break;
    }
    if (has_group(insn->detail, X86_GRP_CALL))
        flags |= X86_CALL;
    if (has_group(insn->detail, X86_GRP_RET))
        flags |= X86_RET;
    return flags;
}

/* The "every memory operand is ..." summary flags of the header. */
static uint32_t location_flags(const struct x86_insn *insn)
{
    if (insn->n_mem == 0)
        return 0;
    bool all_sp = true, all_bp = true, all_tls = true, all_rip = true;
    for (int i = 0; i < insn->n_mem; i++) {
        const struct x86_mem_operand *m = &insn->mem[i];
        all_sp = all_sp && is_sp_based(m);
        all_bp = all_bp && is_bp_based(m);
        all_tls = all_tls && is_tls_segment(m->segment);
        all_rip = all_rip && is_rip_relative(m);
    }
    return (all_sp ? X86_MEM_SP_BASED : 0) | (all_bp ? X86_MEM_BP_BASED : 0) |
           (all_tls ? X86_MEM_TLS : 0) | (all_rip ? X86_MEM_RIP_RELATIVE : 0);
}

/* "mnemonic op_str", cut to fit: text is for people, a long AVX-512 operand
 * list losing its tail is fine. */
static void format_text(char *text, size_t capacity, const char *mnemonic, const char *operands)
{
    size_t length = 0;
    const char *parts[] = {mnemonic, operands[0] ? " " : "", operands};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        size_t n = strlen(parts[p]);
        if (n > capacity - 1 - length)
            n = capacity - 1 - length;
        memcpy(text + length, parts[p], n);
        length += n;
    }
    text[length] = '\0';
}

bool x86_decode(x86_decoder *d, const uint8_t *code, size_t size, uint64_t address,
                struct x86_insn *out)
{
    if (!d || !code || size == 0 || !out)
        return false;
    const uint8_t *cursor = code;
    size_t remaining = size;
    uint64_t next_address = address;
    cs_insn *insn = d->scratch;
    if (!cs_disasm_iter(d->handle, &cursor, &remaining, &next_address, insn))
        return false;

    memset(out, 0, sizeof *out);
    out->address = address;
    out->length = (uint8_t)insn->size;
    format_text(out->text, sizeof out->text, insn->mnemonic, insn->op_str);

    const cs_x86 *x86 = &insn->detail->x86;
    struct prefix_scan scan = scan_prefixes(insn->bytes, insn->size);
    bool string = is_string_opcode(insn->bytes, insn->size, &scan);
    bool has_explicit_memory = false;

    if (!operand_is_not_an_access(insn->id)) {
        for (int i = 0; i < x86->op_count; i++) {
            const cs_x86_op *op = &x86->operands[i];
            if (op->type != X86_OP_MEM)
                continue;
            has_explicit_memory = true;
            bool read, write;
            memory_direction(insn->id, string, i, x86->op_count, op->access, &read, &write);
            add_memory_operand(out, (uint16_t)op->mem.base, (uint16_t)op->mem.index,
                               (uint16_t)op->mem.segment, op->mem.scale, op->mem.disp,
                               op->size, read, write);
        }
        add_implicit_memory_operands(insn->id, &scan, x86, out);
    }

    uint32_t flags = control_flags(insn, x86);
    if (string)
        flags |= X86_STRING;
    for (int i = 0; i < out->n_mem; i++) {
        flags |= out->mem[i].read ? X86_MEM_READ : 0;
        flags |= out->mem[i].write ? X86_MEM_WRITE : 0;
    }
    bool always_atomic = insn->id == X86_INS_CMPXCHG || insn->id == X86_INS_CMPXCHG8B ||
                         insn->id == X86_INS_CMPXCHG16B;
    bool implicitly_locked = insn->id == X86_INS_XCHG && has_explicit_memory;
    if (scan.lock || always_atomic || implicitly_locked)
        flags |= X86_ATOMIC;
    out->flags = flags;
    out->flags |= location_flags(out);

    x86_classify(insn, scan.lock, string, out);

    if (out->n_mem > 0 && is_rip_relative(&out->mem[0])) {
        uint64_t target = address + out->length + (uint64_t)out->mem[0].disp;
        out->rip_target = out->mem[0].base == X86_REG_EIP ? (uint32_t)target : target;
    }
    return true;
}

/* ---- run-time questions ------------------------------------------------ */

bool x86_insn_may_be_visible(const struct x86_insn *insn, bool frame_pointer)
{
    if (insn->flags & X86_ATOMIC)
        return true;
    for (int i = 0; i < insn->n_mem; i++) {
        const struct x86_mem_operand *m = &insn->mem[i];
        if (!is_tls_segment(m->segment) && !is_own_stack(m, frame_pointer))
            return true;
    }
    return false;
}

static bool is_32bit_register(uint16_t reg)
{
    switch (reg) {
    case X86_REG_EAX: case X86_REG_EBX: case X86_REG_ECX: case X86_REG_EDX:
    case X86_REG_ESI: case X86_REG_EDI: case X86_REG_EBP: case X86_REG_ESP:
    case X86_REG_R8D: case X86_REG_R9D: case X86_REG_R10D: case X86_REG_R11D:
    case X86_REG_R12D: case X86_REG_R13D: case X86_REG_R14D: case X86_REG_R15D:
    case X86_REG_EIP: case X86_REG_EIZ:
        return true;
    default:
        return false;
    }
}

/* Value of an address register. 32-bit names give the low half, which is
 * what the CPU adds when a 0x67 prefix makes addresses 32-bit. Registers not
 * in user_regs_struct (vector indexes of gathers) read as 0: such operands
 * only get their base + displacement. */
static uint64_t register_value(uint16_t reg, const struct user_regs_struct *r)
{
    switch (reg) {
    case X86_REG_RAX: return r->rax;
    case X86_REG_RBX: return r->rbx;
    case X86_REG_RCX: return r->rcx;
    case X86_REG_RDX: return r->rdx;
    case X86_REG_RSI: return r->rsi;
    case X86_REG_RDI: return r->rdi;
    case X86_REG_RBP: return r->rbp;
    case X86_REG_RSP: return r->rsp;
    case X86_REG_R8: return r->r8;
    case X86_REG_R9: return r->r9;
    case X86_REG_R10: return r->r10;
    case X86_REG_R11: return r->r11;
    case X86_REG_R12: return r->r12;
    case X86_REG_R13: return r->r13;
    case X86_REG_R14: return r->r14;
    case X86_REG_R15: return r->r15;
    case X86_REG_EAX: return (uint32_t)r->rax;
    case X86_REG_EBX: return (uint32_t)r->rbx;
    case X86_REG_ECX: return (uint32_t)r->rcx;
    case X86_REG_EDX: return (uint32_t)r->rdx;
    case X86_REG_ESI: return (uint32_t)r->rsi;
    case X86_REG_EDI: return (uint32_t)r->rdi;
    case X86_REG_EBP: return (uint32_t)r->rbp;
    case X86_REG_ESP: return (uint32_t)r->rsp;
    case X86_REG_R8D: return (uint32_t)r->r8;
    case X86_REG_R9D: return (uint32_t)r->r9;
    case X86_REG_R10D: return (uint32_t)r->r10;
    case X86_REG_R11D: return (uint32_t)r->r11;
    case X86_REG_R12D: return (uint32_t)r->r12;
    case X86_REG_R13D: return (uint32_t)r->r13;
    case X86_REG_R14D: return (uint32_t)r->r14;
    case X86_REG_R15D: return (uint32_t)r->r15;
    case X86_REG_AL: return (uint8_t)r->rax; /* xlat's index */
    default: return 0;
    }
}

/* Note for pop with an rsp-based destination: the CPU uses rsp after the
 * pop, this returns the address with rsp before it. Such operands are own
 * stack and never visible, so nobody asks. */
/* bt/bts/btr/btc [m], reg address a bit string: the register is a signed
 * bit offset, and the CPU accesses the operand-sized word it falls in. */
static bool is_bit_string_access(const struct x86_insn *insn, int i)
{
    return i == 0 && insn->emulation == X86_EMU_ALU && insn->alu_form == X86_ALU_MEM_REG &&
           insn->alu_op >= X86_ALU_BT && insn->alu_op <= X86_ALU_BTC;
}

static int64_t bit_string_displacement(const struct x86_insn *insn, const struct user_regs_struct *regs)
{
    uint64_t offset = 0;
    unsigned size = insn->mem[0].size, bits = size * 8;
    x86_read_register(insn->load_reg, regs, &offset);
    int64_t signed_offset = bits == 64 ? (int64_t)offset : (int64_t)(offset << (64 - bits)) >> (64 - bits);
    int shift = size == 2 ? 4 : size == 4 ? 5 : 6;
    return (signed_offset >> shift) * (int64_t)size;   /* >> rounds down, as the CPU does */
}

uint64_t x86_effective_address(const struct x86_insn *insn, int i,
                               const struct user_regs_struct *regs)
{
    bool lea = i == 0 && insn->emulation == X86_EMU_LEA;
    if (i < 0 || (i >= insn->n_mem && !lea))
        return 0;
    const struct x86_mem_operand *m = &insn->mem[i];
    uint64_t address = (uint64_t)m->disp;
    if (is_bit_string_access(insn, i))
        address += (uint64_t)bit_string_displacement(insn, regs);
    /* regs->rip, not insn->address: the code may run relocated (PIE) from
     * where it was decoded. */
    if (m->base == X86_REG_RIP)
        address += regs->rip + insn->length;
    else if (m->base == X86_REG_EIP)
        address += (uint32_t)(regs->rip + insn->length);
    else if (m->base)
        address += register_value(m->base, regs);
    if (m->index)
        address += register_value(m->index, regs) * (uint64_t)m->scale;
    if (is_32bit_register(m->base) || is_32bit_register(m->index))
        address = (uint32_t)address;
    if (m->segment == X86_REG_FS)
        address += regs->fs_base;
    else if (m->segment == X86_REG_GS)
        address += regs->gs_base;
    return address;
}

bool x86_is_frame_pointer_prologue(const uint8_t *code, size_t size)
{
    static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
    if (!code)
        return false;
    if (size >= sizeof endbr64 && memcmp(code, endbr64, sizeof endbr64) == 0) {
        code += sizeof endbr64;
        size -= sizeof endbr64;
    }
    if (size < 4 || code[0] != 0x55 /* push rbp */)
        return false;
    /* mov rbp, rsp has two encodings: 89 /r (store form) and 8b /r (load form) */
    return code[1] == 0x48 && ((code[2] == 0x89 && code[3] == 0xe5) ||
                               (code[2] == 0x8b && code[3] == 0xec));
}
