/* x86_insn: decodes one x86-64 instruction with Zydis and classifies its
 * memory accesses for the supervisor (see arch/x86_insn.h).
 *
 * Owns: the decoder and formatter, the list of instructions whose "memory
 * operand" is not a memory access (lea, nops, prefetches, cache-line
 * hints), which memory operands count (explicit ones, and the implicit ones
 * of string instructions, xlat and maskmov; not the stack slots of push,
 * pop, call, ret and leave, which are the thread's own stack and which the
 * emulator handles itself), atomicity, and effective addresses from
 * user_regs_struct. Why Zydis and not capstone 4: docs/architecture.md,
 * "The decoder".
 *
 * Operand order is Intel's: the destination is operand 0. */
#include "arch/x86_insn.h"
#include "arch/x86_classify.h"
#include "arch/x86_native.h"
#include "arch/x86_regs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct x86_decoder {
    ZydisDecoder decoder;
    ZydisFormatter formatter;
};

x86_decoder *x86_decoder_new(void)
{
    x86_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisFormatterInit(&d->formatter, ZYDIS_FORMATTER_STYLE_INTEL)) ||
        !ZYAN_SUCCESS(ZydisFormatterSetProperty(&d->formatter, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE)) ||
        !ZYAN_SUCCESS(ZydisFormatterSetProperty(&d->formatter, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE)) ||
        !ZYAN_SUCCESS(ZydisFormatterSetProperty(&d->formatter, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE))) {
        free(d);
        return NULL;
    }
    return d;
}

void x86_decoder_free(x86_decoder *d)
{
    free(d);
}

/* ---- instruction classes ----------------------------------------------- */

/* The operand names an address but nothing is loaded or stored: nops (and
 * the hints decoded as nops), prefetches and cache-line maintenance cannot
 * change or observe a value. lea's operand Zydis already calls an address
 * computation. */
static bool operand_is_not_an_access(ZydisMnemonic m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_PREFETCH:
    case ZYDIS_MNEMONIC_PREFETCHNTA:
    case ZYDIS_MNEMONIC_PREFETCHT0:
    case ZYDIS_MNEMONIC_PREFETCHT1:
    case ZYDIS_MNEMONIC_PREFETCHT2:
    case ZYDIS_MNEMONIC_PREFETCHW:
    case ZYDIS_MNEMONIC_PREFETCHWT1:
    case ZYDIS_MNEMONIC_CLFLUSH:
    case ZYDIS_MNEMONIC_CLFLUSHOPT:
    case ZYDIS_MNEMONIC_CLWB:
    case ZYDIS_MNEMONIC_CLDEMOTE:
        return true;
    default:
        return false;
    }
}

/* ---- per-operand location facts ---------------------------------------- */

static bool is_tls_segment(uint16_t segment)
{
    return segment == ZYDIS_REGISTER_FS || segment == ZYDIS_REGISTER_GS;
}

static bool is_rip_base(uint16_t base)
{
    return base == ZYDIS_REGISTER_RIP || base == ZYDIS_REGISTER_EIP;
}

/* Only 64-bit rsp/rbp bases count: with a 0x67 prefix [esp+x] is computed in
 * 32 bits and zero-extended, which is not the stack of a 64-bit thread. */
static bool is_sp_based(const struct x86_mem_operand *m)
{
    return m->base == ZYDIS_REGISTER_RSP && m->index == 0 && !is_tls_segment(m->segment);
}

static bool is_bp_based(const struct x86_mem_operand *m)
{
    return (m->base == ZYDIS_REGISTER_RBP || m->base == ZYDIS_REGISTER_RSP) && m->index == 0 &&
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

/* The stack slots push, pop, call, ret, enter and leave reach through
 * rsp or rbp: Zydis lists them as hidden operands in the stack segment. */
static bool is_implicit_stack_slot(const ZydisDecodedOperand *op)
{
    return op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && op->mem.segment == ZYDIS_REGISTER_SS;
}

/* Adds the memory operand op; false when it could not be kept (more than
 * X86_MAX_MEM_OPERANDS). */
static bool add_memory_operand(struct x86_insn *out, const ZydisDecodedOperand *op)
{
    if (out->n_mem >= X86_MAX_MEM_OPERANDS)
        return false;
    uint16_t segment = is_tls_segment((uint16_t)op->mem.segment) ? (uint16_t)op->mem.segment : 0;
    /* A gather's operand size is one element's; an unknown size is at
     * least a byte. */
    unsigned bytes = op->size / 8 ? op->size / 8 : 1;
    out->mem[out->n_mem++] = (struct x86_mem_operand){
        .base = (uint16_t)op->mem.base,
        .index = (uint16_t)op->mem.index,
        .segment = segment,
        .scale = op->mem.index ? op->mem.scale : 0,
        .disp = op->mem.disp.value,
        .size = (uint8_t)(bytes > 255 ? 255 : bytes),
        /* A conditional write (a masked store, cmovcc, rep stos) may write. */
        .read = (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0 || op->actions == 0,
        .write = (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0,
    };
    return true;
}

/* Every memory operand that accesses memory, explicit or implicit (string
 * instructions' [rdi] and [rsi], xlat's [rbx + al], maskmov's [rdi]). */
static void collect_memory_operands(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                                    struct x86_insn *out)
{
    if (operand_is_not_an_access(in->mnemonic))
        return;
    for (int i = 0; i < in->operand_count; i++) {
        const ZydisDecodedOperand *op = &ops[i];
        if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
            continue;
        bool vector_index = op->mem.type == ZYDIS_MEMOP_TYPE_VSIB;
        if ((op->mem.type != ZYDIS_MEMOP_TYPE_MEM && !vector_index) || is_implicit_stack_slot(op))
            continue;
        if (vector_index)
            out->flags |= X86_MEM_VECTOR_INDEX;
        if (add_memory_operand(out, op) && in->mnemonic == ZYDIS_MNEMONIC_XLAT) {
            /* [rbx + zero-extended al]: Zydis names only rbx. */
            out->mem[out->n_mem - 1].index = ZYDIS_REGISTER_AL;
            out->mem[out->n_mem - 1].scale = 1;
        }
    }
}

/* Registers beyond user_regs_struct among the operands. */
static bool uses_vector_registers(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    for (int i = 0; i < in->operand_count; i++) {
        if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER && !(ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
                                                              ops[i].mem.type == ZYDIS_MEMOP_TYPE_VSIB))
            continue;
        ZydisRegister reg = ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER ? ops[i].reg.value : ops[i].mem.index;
        switch (ZydisRegisterGetClass(reg)) {
        case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM:
        case ZYDIS_REGCLASS_MASK: case ZYDIS_REGCLASS_X87: case ZYDIS_REGCLASS_MMX: case ZYDIS_REGCLASS_TMM:
            return true;
        default:
            if (reg == ZYDIS_REGISTER_MXCSR || reg == ZYDIS_REGISTER_X87CONTROL || reg == ZYDIS_REGISTER_X87STATUS)
                return true;
            break;
        }
    }
    return false;
}

/* An AVX-512 operation under a mask register other than k0, or a
 * vmaskmov/vpmaskmov: only some elements of the memory operand are
 * touched. */
static bool is_masked_access(const ZydisDecodedInstruction *in)
{
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_VMASKMOVPS: case ZYDIS_MNEMONIC_VMASKMOVPD:
    case ZYDIS_MNEMONIC_VPMASKMOVD: case ZYDIS_MNEMONIC_VPMASKMOVQ:
    case ZYDIS_MNEMONIC_MASKMOVQ: case ZYDIS_MNEMONIC_MASKMOVDQU: case ZYDIS_MNEMONIC_VMASKMOVDQU:
        return true;
    default:
        return in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && in->avx.mask.reg != ZYDIS_REGISTER_NONE &&
               in->avx.mask.reg != ZYDIS_REGISTER_K0;
    }
}

static uint32_t control_flags(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    uint32_t flags = 0;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_SYSCALL:
    case ZYDIS_MNEMONIC_SYSENTER:
        flags |= X86_SYSCALL;
        break;
    case ZYDIS_MNEMONIC_INT:
        if (in->operand_count_visible == 1 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.value.u == 0x80)
            flags |= X86_SYSCALL;
        break;
    default:
        break;
    }
    if (in->meta.category == ZYDIS_CATEGORY_CALL)
        flags |= X86_CALL;
    if (in->meta.category == ZYDIS_CATEGORY_RET)
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

static bool is_atomic(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    if (in->attributes & ZYDIS_ATTRIB_HAS_LOCK)
        return true;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_CMPXCHG:
    case ZYDIS_MNEMONIC_CMPXCHG8B:
    case ZYDIS_MNEMONIC_CMPXCHG16B:
        return true;
    case ZYDIS_MNEMONIC_XCHG:   /* with memory, locked whatever the prefixes */
        return ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY || ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY;
    default:
        return false;
    }
}

bool x86_decode(x86_decoder *d, const uint8_t *code, size_t size, uint64_t address,
                struct x86_insn *out)
{
    if (!d || !code || size == 0 || !out)
        return false;
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->decoder, code, size, &in, ops)))
        return false;

    memset(out, 0, sizeof *out);
    out->address = address;
    out->length = in.length;
    memcpy(out->bytes, code, in.length);
    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->formatter, &in, ops, in.operand_count_visible, out->text,
                                                      sizeof out->text, address, NULL)))
        out->text[0] = '\0';

    bool string = in.meta.category == ZYDIS_CATEGORY_STRINGOP;
    collect_memory_operands(&in, ops, out);
    uint32_t flags = control_flags(&in, ops) | (out->flags & X86_MEM_VECTOR_INDEX);
    if (string)
        flags |= X86_STRING;
    for (int i = 0; i < out->n_mem; i++) {
        flags |= out->mem[i].read ? X86_MEM_READ : 0;
        flags |= out->mem[i].write ? X86_MEM_WRITE : 0;
    }
    if (out->n_mem && is_masked_access(&in))
        flags |= X86_MEM_MASKED;
    if (uses_vector_registers(&in, ops))
        flags |= X86_VECTOR_REGS;
    if (is_atomic(&in, ops))
        flags |= X86_ATOMIC;
    out->flags = flags | location_flags(out);

    x86_classify(&in, ops, string, out);
    if (out->emulation == X86_EMU_NONE)
        x86_native_classify(&in, ops, out);

    if (out->n_mem > 0 && is_rip_relative(&out->mem[0])) {
        uint64_t target = address + out->length + (uint64_t)out->mem[0].disp;
        out->rip_target = out->mem[0].base == ZYDIS_REGISTER_EIP ? (uint32_t)target : target;
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
    return (reg >= ZYDIS_REGISTER_EAX && reg <= ZYDIS_REGISTER_R15D) || reg == ZYDIS_REGISTER_EIP;
}

/* Value of an address register. 32-bit names give the low half, which is
 * what the CPU adds when a 0x67 prefix makes addresses 32-bit; xlat's al
 * its byte. Vector indexes of gathers read as 0: such operands only get
 * their base + displacement (X86_MEM_VECTOR_INDEX says so). */
static uint64_t register_value(uint16_t reg, const struct user_regs_struct *r)
{
    uint64_t v = 0;
    if (!x86_read_register(reg, r, &v))
        return 0;
    return v;
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
    if (m->base == ZYDIS_REGISTER_RIP)
        address += regs->rip + insn->length;
    else if (m->base == ZYDIS_REGISTER_EIP)
        address += (uint32_t)(regs->rip + insn->length);
    else if (m->base)
        address += register_value(m->base, regs);
    if (m->index)
        address += register_value(m->index, regs) * (uint64_t)m->scale;
    if (is_32bit_register(m->base) || is_32bit_register(m->index))
        address = (uint32_t)address;
    if (m->segment == ZYDIS_REGISTER_FS)
        address += regs->fs_base;
    else if (m->segment == ZYDIS_REGISTER_GS)
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
