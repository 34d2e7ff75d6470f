/* x86_flow: capstone's instruction groups say jumps, calls, returns and
 * interrupts; the ids and the lock prefix say what orders memory. */
#include "arch/x86_flow.h"
#include "arch/x86_capstone.h"

#include <pthread.h>
#include <stdlib.h>

static csh handle;
static bool handle_ok;
static pthread_once_t handle_once = PTHREAD_ONCE_INIT;

static void open_handle(void)
{
    handle_ok = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK &&
                cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK;
}

static bool orders_memory(const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    if (x->prefix[0] == X86_PREFIX_LOCK)
        return true;
    switch (in->id) {
    case X86_INS_MFENCE: case X86_INS_SFENCE: case X86_INS_LFENCE: case X86_INS_CPUID:
    case X86_INS_XCHG: case X86_INS_CMPXCHG: case X86_INS_XADD: case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
    case X86_INS_WBINVD: case X86_INS_INVD: case X86_INS_HLT:
    case X86_INS_UD2: case X86_INS_INT3:
        return true;
    default:
        return false;
    }
}

static bool in_group(const cs_insn *in, uint8_t group)
{
    for (uint8_t i = 0; i < in->detail->groups_count; i++)
        if (in->detail->groups[i] == group)
            return true;
    return false;
}

struct x86_flow x86_flow_of(const uint8_t *code, size_t n, uint64_t addr)
{
    struct x86_flow f = {.kind = X86_FLOW_UNKNOWN, .next = addr};
    pthread_once(&handle_once, open_handle);
    if (!handle_ok)
        return f;
    cs_insn *in = NULL;
    if (cs_disasm(handle, code, n, addr, 1, &in) != 1)
        return f;
    f.next = addr + in->size;
    const cs_x86 *x = &in->detail->x86;
    if (in->id == X86_INS_RET && x->op_count == 0) {
        f.kind = X86_FLOW_RETURN;
    } else if (in_group(in, CS_GRP_CALL) || in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_INT) ||
        in_group(in, CS_GRP_IRET) || in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER || orders_memory(in)) {
        f.kind = X86_FLOW_END;
    } else if (in_group(in, CS_GRP_JUMP)) {
        bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
        f.kind = !direct ? X86_FLOW_END : in->id == X86_INS_JMP ? X86_FLOW_JUMP : X86_FLOW_BRANCH;
        f.target = direct ? (uint64_t)x->operands[0].imm : 0;
    } else {
        f.kind = X86_FLOW_NEXT;
        f.pops_frame = in->id == X86_INS_LEAVE ||
                       (in->id == X86_INS_POP && x->op_count == 1 && x->operands[0].type == X86_OP_REG &&
                        x->operands[0].reg == X86_REG_RBP);
    }
    cs_free(in, 1);
    return f;
}
