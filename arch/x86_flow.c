/* x86_flow: Zydis's categories say jumps, calls, returns and interrupts;
 * the mnemonics and the lock prefix say what orders memory. */
#include "arch/x86_flow.h"

#include <Zydis/Zydis.h>
#include <pthread.h>

static ZydisDecoder decoder;
static bool decoder_ok;
static pthread_once_t decoder_once = PTHREAD_ONCE_INIT;

static void init_decoder(void)
{
    decoder_ok = ZYAN_SUCCESS(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64));
}

static bool orders_memory(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    if (in->attributes & ZYDIS_ATTRIB_HAS_LOCK)
        return true;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_MFENCE: case ZYDIS_MNEMONIC_SFENCE: case ZYDIS_MNEMONIC_LFENCE: case ZYDIS_MNEMONIC_CPUID:
    case ZYDIS_MNEMONIC_CMPXCHG: case ZYDIS_MNEMONIC_XADD: case ZYDIS_MNEMONIC_CMPXCHG8B: case ZYDIS_MNEMONIC_CMPXCHG16B:
    case ZYDIS_MNEMONIC_WBINVD: case ZYDIS_MNEMONIC_INVD: case ZYDIS_MNEMONIC_HLT: case ZYDIS_MNEMONIC_SERIALIZE:
    case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_INT3:
        return true;
    case ZYDIS_MNEMONIC_XCHG:
        return ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY || ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY;
    default:
        return false;
    }
}

static bool ends_walk(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    switch (in->meta.category) {
    case ZYDIS_CATEGORY_CALL: case ZYDIS_CATEGORY_RET: case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_SYSRET:
        return true;
    default:
        return in->mnemonic == ZYDIS_MNEMONIC_SYSENTER || in->mnemonic == ZYDIS_MNEMONIC_IRET ||
               in->mnemonic == ZYDIS_MNEMONIC_IRETD || in->mnemonic == ZYDIS_MNEMONIC_IRETQ ||
               orders_memory(in, ops);
    }
}

struct x86_flow x86_flow_of(const uint8_t *code, size_t n, uint64_t addr)
{
    struct x86_flow f = {.kind = X86_FLOW_UNKNOWN, .next = addr};
    pthread_once(&decoder_once, init_decoder);
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!decoder_ok || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, code, n, &in, ops)))
        return f;
    f.next = addr + in.length;
    bool branch = in.meta.category == ZYDIS_CATEGORY_COND_BR || in.meta.category == ZYDIS_CATEGORY_UNCOND_BR;
    if (in.mnemonic == ZYDIS_MNEMONIC_RET && in.operand_count_visible == 0 && in.meta.branch_type != ZYDIS_BRANCH_TYPE_FAR) {
        f.kind = X86_FLOW_RETURN;
    } else if (ends_walk(&in, ops)) {
        f.kind = X86_FLOW_END;
    } else if (branch) {
        bool direct = in.operand_count_visible == 1 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                      ops[0].imm.is_relative;
        f.kind = !direct ? X86_FLOW_END : in.mnemonic == ZYDIS_MNEMONIC_JMP ? X86_FLOW_JUMP : X86_FLOW_BRANCH;
        f.target = direct ? f.next + (uint64_t)ops[0].imm.value.s : 0;
    } else {
        f.kind = X86_FLOW_NEXT;
        f.pops_frame = in.mnemonic == ZYDIS_MNEMONIC_LEAVE ||
                       (in.mnemonic == ZYDIS_MNEMONIC_POP && in.operand_count_visible == 1 &&
                        ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[0].reg.value == ZYDIS_REGISTER_RBP);
    }
    return f;
}

bool x86_ends_with_call(const uint8_t b[X86_CALL_BEFORE_BYTES])
{
    if (b[2] == 0xe8)                                               /* call rel32 */
        return true;
    if (b[5] == 0xff && (b[6] & 0xf8) == 0xd0)                      /* call reg */
        return true;
    if (b[4] == 0xff && (b[5] & 0xf8) == 0x50)                      /* call [reg + disp8] */
        return true;
    return b[1] == 0xff && ((b[2] & 0xf8) == 0x90 || b[2] == 0x15); /* call [reg + disp32], [rip + disp32] */
}
