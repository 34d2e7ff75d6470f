/* Unit tests for arch/x86_insn: decoding, memory-operand classification,
 * visibility, effective addresses and the frame-pointer prologue check.
 *
 * Byte sequences were assembled with GNU as (Intel syntax) and checked with
 * objdump -d -M intel; the assembly is in the comment next to each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86_insn.h"
#include <Zydis/Zydis.h> /* ZYDIS_REGISTER_* ids used by struct x86_mem_operand */

static int setup_decoder(void **state)
{
    x86_decoder *d = x86_decoder_new();
    if (!d)
        return -1;
    *state = d;
    return 0;
}

static int teardown_decoder(void **state)
{
    x86_decoder_free(*state);
    return 0;
}

#define DECODE_AT(state, address, out, ...)                                              \
    do {                                                                                 \
        static const uint8_t bytes_[] = {__VA_ARGS__};                                   \
        assert_true(x86_decode((x86_decoder *)*(state), bytes_, sizeof bytes_, (address), \
                               (out)));                                                  \
        assert_int_equal((out)->length, sizeof bytes_);                                  \
    } while (0)

#define DECODE(state, out, ...) DECODE_AT(state, 0x1000, out, __VA_ARGS__)

static bool has_flag(const struct x86_insn *insn, uint32_t flag)
{
    return (insn->flags & flag) == flag;
}

static void assert_single_access(const struct x86_insn *insn, bool read, bool write)
{
    assert_int_equal(insn->n_mem, 1);
    assert_int_equal(insn->mem[0].read, read);
    assert_int_equal(insn->mem[0].write, write);
    assert_int_equal(has_flag(insn, X86_MEM_READ), read);
    assert_int_equal(has_flag(insn, X86_MEM_WRITE), write);
}

/* ---- rip-relative ------------------------------------------------------ */

static void test_rip_relative_load_and_store(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x8b, 0x05, 0xe6, 0x2e, 0x00, 0x00); /* mov eax, [rip+0x2ee6] */
    assert_single_access(&insn, true, false);
    assert_true(has_flag(&insn, X86_MEM_RIP_RELATIVE));
    assert_int_equal(insn.rip_target, 0x1000 + 6 + 0x2ee6);
    assert_int_equal(insn.mem[0].size, 4);
    assert_true(x86_insn_may_be_visible(&insn, true));
    assert_true(x86_insn_may_be_visible(&insn, false));
    assert_string_equal(insn.text, "mov eax, dword ptr [rip+0x2ee6]");

    DECODE(state, &insn, 0x89, 0x05, 0xe6, 0x2e, 0x00, 0x00); /* mov [rip+0x2ee6], eax */
    assert_single_access(&insn, false, true);
    assert_true(has_flag(&insn, X86_MEM_RIP_RELATIVE));
    assert_int_equal(insn.rip_target, 0x1000 + 6 + 0x2ee6);
    assert_true(x86_insn_may_be_visible(&insn, true));
    assert_string_equal(insn.text, "mov dword ptr [rip+0x2ee6], eax");
}

/* ---- own stack --------------------------------------------------------- */

static void test_rbp_local_depends_on_frame_pointer(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x89, 0x7d, 0xfc); /* mov [rbp-4], edi */
    assert_single_access(&insn, false, true);
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_RBP);
    assert_int_equal(insn.mem[0].disp, -4);
    assert_true(has_flag(&insn, X86_MEM_BP_BASED));
    assert_false(has_flag(&insn, X86_MEM_SP_BASED));
    assert_false(x86_insn_may_be_visible(&insn, true));
    assert_true(x86_insn_may_be_visible(&insn, false));

    DECODE(state, &insn, 0x0f, 0x9f, 0x45, 0xff); /* setg [rbp-1] */
    assert_single_access(&insn, false, true);
    assert_false(x86_insn_may_be_visible(&insn, true));
}

static void test_rsp_local_never_visible(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x48, 0x8b, 0x44, 0x24, 0x08); /* mov rax, [rsp+8] */
    assert_single_access(&insn, true, false);
    assert_true(has_flag(&insn, X86_MEM_SP_BASED | X86_MEM_BP_BASED));
    assert_false(x86_insn_may_be_visible(&insn, true));
    assert_false(x86_insn_may_be_visible(&insn, false));
}

static void test_indexed_stack_access_is_visible(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x8b, 0x04, 0x84); /* mov eax, [rsp+rax*4] */
    assert_false(has_flag(&insn, X86_MEM_SP_BASED));
    assert_true(x86_insn_may_be_visible(&insn, true));
}

/* With 0x67, [esp+8] is computed in 32 bits and zero-extended: not the stack
 * of a 64-bit thread, so not provably own stack. */
static void test_32bit_esp_base_is_not_own_stack(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x67, 0x8b, 0x44, 0x24, 0x08); /* mov eax, [esp+8] */
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_ESP);
    assert_false(has_flag(&insn, X86_MEM_SP_BASED));
    assert_true(x86_insn_may_be_visible(&insn, true));
}

/* ---- read / write direction -------------------------------------------- */

static void test_pointer_access_directions(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x8b, 0x08); /* mov ecx, [rax] */
    assert_single_access(&insn, true, false);
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_RAX);
    assert_true(x86_insn_may_be_visible(&insn, true));

    DECODE(state, &insn, 0x89, 0x08); /* mov [rax], ecx */
    assert_single_access(&insn, false, true);
    assert_true(x86_insn_may_be_visible(&insn, true));

    DECODE(state, &insn, 0x83, 0x00, 0x01); /* add dword ptr [rax], 1 */
    assert_single_access(&insn, true, true);
    assert_false(has_flag(&insn, X86_ATOMIC));

    DECODE(state, &insn, 0x83, 0x38, 0x00); /* cmp dword ptr [rax], 0 */
    assert_single_access(&insn, true, false);
}

/* Directions capstone 4 reported wrongly (the reason mdat corrected it). */
static void test_access_directions(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0xf7, 0x00, 0x01, 0x00, 0x00, 0x00); /* test dword ptr [rax], 1 */
    assert_single_access(&insn, true, false);

    DECODE(state, &insn, 0x0f, 0x11, 0x08); /* movups [rax], xmm1 */
    assert_single_access(&insn, false, true);
    assert_int_equal(insn.mem[0].size, 16);

    DECODE(state, &insn, 0xdd, 0x18); /* fstp qword ptr [rax] */
    assert_single_access(&insn, false, true);

    DECODE(state, &insn, 0xc1, 0x00, 0x03); /* rol dword ptr [rax], 3 */
    assert_single_access(&insn, true, true);

    DECODE(state, &insn, 0x48, 0x0f, 0xc7, 0x0f); /* cmpxchg16b [rdi] */
    assert_single_access(&insn, true, true);
    assert_true(has_flag(&insn, X86_ATOMIC));
}

/* ---- TLS --------------------------------------------------------------- */

static void test_tls_access_not_visible(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00); /* mov rax, fs:[0x28] */
    assert_single_access(&insn, true, false);
    assert_int_equal(insn.mem[0].segment, ZYDIS_REGISTER_FS);
    assert_true(has_flag(&insn, X86_MEM_TLS));
    assert_false(has_flag(&insn, X86_MEM_RIP_RELATIVE));
    assert_false(x86_insn_may_be_visible(&insn, true));
    assert_false(x86_insn_may_be_visible(&insn, false));

    DECODE(state, &insn, 0x65, 0x8b, 0x00); /* mov eax, gs:[rax] */
    assert_true(has_flag(&insn, X86_MEM_TLS));
    assert_false(x86_insn_may_be_visible(&insn, false));
}

/* ---- not memory accesses ----------------------------------------------- */

static void assert_no_memory(const struct x86_insn *insn)
{
    assert_int_equal(insn->n_mem, 0);
    assert_false(has_flag(insn, X86_MEM_READ));
    assert_false(has_flag(insn, X86_MEM_WRITE));
    assert_false(has_flag(insn, X86_MEM_RIP_RELATIVE));
    assert_false(x86_insn_may_be_visible(insn, false));
}

static void test_address_only_instructions(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00); /* lea rax, [rip+0x10] */
    assert_no_memory(&insn);
    assert_int_equal(insn.rip_target, 0);

    DECODE(state, &insn, 0x66, 0x0f, 0x1f, 0x04, 0x00); /* nop word ptr [rax+rax] */
    assert_no_memory(&insn);
    assert_string_equal(insn.text, "nop word ptr [rax+rax*1], ax");

    DECODE(state, &insn, 0x0f, 0x18, 0x08); /* prefetcht0 [rax] */
    assert_no_memory(&insn);

    DECODE(state, &insn, 0xf3, 0x0f, 0x1e, 0xfa); /* endbr64 */
    assert_no_memory(&insn);
    assert_string_equal(insn.text, "endbr64");

    DECODE(state, &insn, 0xf2, 0xff, 0xe0); /* bnd jmp rax */
    assert_no_memory(&insn);
}

/* ---- atomics ----------------------------------------------------------- */

static void test_atomics_always_visible(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0xf0, 0x83, 0x00, 0x01); /* lock add dword ptr [rax], 1 */
    assert_true(has_flag(&insn, X86_ATOMIC));
    assert_single_access(&insn, true, true);
    assert_true(x86_insn_may_be_visible(&insn, true));

    DECODE(state, &insn, 0x87, 0x08); /* xchg [rax], ecx: implicitly locked */
    assert_true(has_flag(&insn, X86_ATOMIC));
    assert_single_access(&insn, true, true);

    DECODE(state, &insn, 0x87, 0xc8); /* xchg eax, ecx: no memory, not atomic */
    assert_false(has_flag(&insn, X86_ATOMIC));
    assert_false(x86_insn_may_be_visible(&insn, false));

    DECODE(state, &insn, 0xf0, 0x0f, 0xb1, 0x37); /* lock cmpxchg [rdi], esi */
    assert_true(has_flag(&insn, X86_ATOMIC));
    assert_single_access(&insn, true, true);

    /* The seq_cst fence idiom: own stack, but a fence is a visible operation. */
    DECODE(state, &insn, 0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00); /* lock or qword ptr [rsp], 0 */
    assert_true(has_flag(&insn, X86_ATOMIC | X86_MEM_SP_BASED));
    assert_true(x86_insn_may_be_visible(&insn, false));
    assert_true(x86_insn_may_be_visible(&insn, true));

    DECODE(state, &insn, 0x0f, 0xc1, 0x07); /* xadd [rdi], eax (no lock) */
    assert_false(has_flag(&insn, X86_ATOMIC));
    assert_single_access(&insn, true, true);

    DECODE(state, &insn, 0xf0, 0x0f, 0xc1, 0x07); /* lock xadd [rdi], eax */
    assert_true(has_flag(&insn, X86_ATOMIC));

    DECODE(state, &insn, 0xf2, 0xf0, 0x83, 0x00, 0x01); /* xacquire lock add [rax], 1 */
    assert_true(has_flag(&insn, X86_ATOMIC));
    DECODE(state, &insn, 0xf0, 0xf2, 0x83, 0x00, 0x01); /* same prefixes, other order */
    assert_true(has_flag(&insn, X86_ATOMIC));
}

/* ---- string instructions ----------------------------------------------- */

static void test_string_instructions(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0xf3, 0x48, 0xab); /* rep stosq */
    assert_true(has_flag(&insn, X86_STRING));
    assert_single_access(&insn, false, true);
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_RDI);
    assert_int_equal(insn.mem[0].size, 8);
    assert_true(x86_insn_may_be_visible(&insn, true));

    DECODE(state, &insn, 0xa4); /* movsb */
    assert_true(has_flag(&insn, X86_STRING | X86_MEM_READ | X86_MEM_WRITE));
    assert_int_equal(insn.n_mem, 2);
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_RDI);
    assert_false(insn.mem[0].read);
    assert_true(insn.mem[0].write);
    assert_int_equal(insn.mem[1].base, ZYDIS_REGISTER_RSI);
    assert_true(insn.mem[1].read);
    assert_false(insn.mem[1].write);

    DECODE(state, &insn, 0xa6); /* cmpsb: reads both */
    assert_int_equal(insn.n_mem, 2);
    assert_true(insn.mem[0].read && insn.mem[1].read);
    assert_false(insn.mem[0].write || insn.mem[1].write);

    DECODE(state, &insn, 0xf2, 0x0f, 0x10, 0x00); /* movsd xmm0, [rax]: SSE, not a string op */
    assert_false(has_flag(&insn, X86_STRING));
    assert_single_access(&insn, true, false);
}

/* ---- control flow ------------------------------------------------------ */

static void test_syscall_flags(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0x0f, 0x05); /* syscall */
    assert_true(has_flag(&insn, X86_SYSCALL));
    assert_no_memory(&insn);
    assert_string_equal(insn.text, "syscall");

    DECODE(state, &insn, 0xcd, 0x80); /* int 0x80 */
    assert_true(has_flag(&insn, X86_SYSCALL));

    DECODE(state, &insn, 0x0f, 0x34); /* sysenter */
    assert_true(has_flag(&insn, X86_SYSCALL));

    DECODE(state, &insn, 0xcd, 0x03); /* int 3 (long form) */
    assert_false(has_flag(&insn, X86_SYSCALL));
}

static void test_call_ret_push(void **state)
{
    struct x86_insn insn;
    DECODE(state, &insn, 0xff, 0x15, 0x00, 0x10, 0x00, 0x00); /* call [rip+0x1000] (GOT) */
    assert_true(has_flag(&insn, X86_CALL | X86_MEM_RIP_RELATIVE));
    assert_single_access(&insn, true, false);
    assert_int_equal(insn.rip_target, 0x1000 + 6 + 0x1000);

    DECODE(state, &insn, 0xe8, 0x00, 0x00, 0x00, 0x00); /* call rel32 */
    assert_true(has_flag(&insn, X86_CALL));
    assert_no_memory(&insn);

    DECODE(state, &insn, 0xc3); /* ret */
    assert_true(has_flag(&insn, X86_RET));
    assert_false(has_flag(&insn, X86_CALL));
    assert_no_memory(&insn);

    DECODE(state, &insn, 0x55); /* push rbp */
    assert_no_memory(&insn);
    assert_int_equal(insn.flags, 0);

    DECODE(state, &insn, 0xff, 0x35, 0x00, 0x01, 0x00, 0x00); /* push [rip+0x100] */
    assert_single_access(&insn, true, false);
    assert_int_equal(insn.rip_target, 0x1000 + 6 + 0x100);
}

/* ---- effective addresses ----------------------------------------------- */

static void test_effective_address(void **state)
{
    struct user_regs_struct regs;
    memset(&regs, 0, sizeof regs);
    regs.rax = 0x7fff00001234;
    regs.rbx = 0x555555558000;
    regs.rcx = 3;
    regs.r14 = 0xdeadbeef00000002;
    regs.r15 = 0xffffffff00001000;
    regs.fs_base = 0x7ffff7d8a740;
    regs.gs_base = 0x100000;
    struct x86_insn insn;

    DECODE(state, &insn, 0x8b, 0x44, 0x8b, 0x10); /* mov eax, [rbx+rcx*4+0x10] */
    regs.rip = insn.address;
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x555555558000 + 3 * 4 + 0x10);

    DECODE_AT(state, 0x401000, &insn, 0x8b, 0x05, 0xe6, 0x2e, 0x00, 0x00); /* mov eax, [rip+0x2ee6] */
    regs.rip = insn.address;
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x401000 + 6 + 0x2ee6);
    assert_int_equal(x86_effective_address(&insn, 0, &regs), insn.rip_target);

    DECODE(state, &insn, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00); /* mov rax, fs:[0x28] */
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x7ffff7d8a740 + 0x28);

    /* Local-exec TLS variables sit below the thread pointer. */
    DECODE(state, &insn, 0x64, 0x89, 0x04, 0x25, 0xfc, 0xff, 0xff, 0xff); /* mov fs:[-4], eax */
    assert_single_access(&insn, false, true);
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x7ffff7d8a740 - 4);

    DECODE(state, &insn, 0x64, 0x8a, 0x44, 0x4b, 0x08); /* mov al, fs:[rbx+rcx*2+8] */
    assert_int_equal(x86_effective_address(&insn, 0, &regs),
                     0x7ffff7d8a740 + 0x555555558000 + 3 * 2 + 8);

    DECODE(state, &insn, 0x65, 0x8b, 0x00); /* mov eax, gs:[rax] */
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x100000 + 0x7fff00001234);

    DECODE(state, &insn, 0x89, 0x7d, 0xfc); /* mov [rbp-4], edi */
    regs.rbp = 0x7ffffffde000;
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x7ffffffde000 - 4);

    /* 32-bit addressing uses the low halves and wraps at 4 GiB. */
    DECODE(state, &insn, 0x67, 0x43, 0x8b, 0x44, 0xf7, 0x10); /* mov eax, [r15d+r14d*8+0x10] */
    assert_int_equal(insn.mem[0].base, ZYDIS_REGISTER_R15D);
    assert_int_equal(insn.mem[0].index, ZYDIS_REGISTER_R14D);
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x1000 + 2 * 8 + 0x10);

    DECODE(state, &insn, 0xa4); /* movsb: mem[0] = [rdi], mem[1] = [rsi] */
    regs.rdi = 0x601000;
    regs.rsi = 0x602000;
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x601000);
    assert_int_equal(x86_effective_address(&insn, 1, &regs), 0x602000);

    DECODE(state, &insn, 0xd7); /* xlatb: reads [rbx + al] (Zydis names only rbx) */
    assert_single_access(&insn, true, false);
    assert_int_equal(x86_effective_address(&insn, 0, &regs), 0x555555558000 + 0x34);
}

/* ---- prologue ---------------------------------------------------------- */

static void test_frame_pointer_prologue(void **state)
{
    (void)state;
    static const uint8_t plain[] = {0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc};
    static const uint8_t other_mov[] = {0x55, 0x48, 0x8b, 0xec};
    static const uint8_t with_endbr[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5};
    static const uint8_t no_frame[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08};
    static const uint8_t mov_other_reg[] = {0x55, 0x48, 0x89, 0xe0}; /* mov rax, rsp */
    static const uint8_t swapped[] = {0x48, 0x89, 0xe5, 0x55};
    assert_true(x86_is_frame_pointer_prologue(plain, sizeof plain));
    assert_true(x86_is_frame_pointer_prologue(other_mov, sizeof other_mov));
    assert_true(x86_is_frame_pointer_prologue(with_endbr, sizeof with_endbr));
    assert_false(x86_is_frame_pointer_prologue(no_frame, sizeof no_frame));
    assert_false(x86_is_frame_pointer_prologue(mov_other_reg, sizeof mov_other_reg));
    assert_false(x86_is_frame_pointer_prologue(swapped, sizeof swapped));
    assert_false(x86_is_frame_pointer_prologue(plain, 3));
    assert_false(x86_is_frame_pointer_prologue(with_endbr, 7));
    assert_false(x86_is_frame_pointer_prologue(plain, 0));
}

/* ---- values of stores -------------------------------------------------- */

static void test_store_value(void **state)
{
    struct x86_insn insn;
    struct user_regs_struct regs = {0};
    regs.rax = 0x1122334455667788ull;
    regs.rbx = 0xffffffffffffff05ull;
    regs.r9 = 42;
    uint64_t v;

    DECODE(state, &insn, 0x89, 0x05, 0xe6, 0x2e, 0x00, 0x00);   /* mov [rip+0x2ee6], eax */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 0x55667788u);
    DECODE(state, &insn, 0x48, 0x89, 0x03);                     /* mov [rbx], rax */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 0x1122334455667788ull);
    DECODE(state, &insn, 0x88, 0x23);                           /* mov [rbx], ah */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 0x77);
    DECODE(state, &insn, 0x88, 0x18);                           /* mov [rax], bl */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 0x05);
    DECODE(state, &insn, 0x44, 0x89, 0x08);                     /* mov [rax], r9d */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 42);
    DECODE(state, &insn, 0xc7, 0x05, 0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00); /* mov dword [rip+0x1000], 1 */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 1);
    DECODE(state, &insn, 0x48, 0xc7, 0x00, 0xff, 0xff, 0xff, 0xff); /* mov qword [rax], -1 */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, UINT64_MAX);
    DECODE(state, &insn, 0x66, 0xc7, 0x00, 0x34, 0x12);         /* mov word [rax], 0x1234 */
    assert_true(x86_store_value(&insn, &regs, &v));
    assert_int_equal(v, 0x1234);

    /* Not plain stores: the value depends on memory, or there is none. */
    DECODE(state, &insn, 0x01, 0x05, 0xe6, 0x2e, 0x00, 0x00);   /* add [rip+0x2ee6], eax */
    assert_false(x86_store_value(&insn, &regs, &v));
    DECODE(state, &insn, 0x8b, 0x05, 0xe6, 0x2e, 0x00, 0x00);   /* mov eax, [rip+0x2ee6] */
    assert_false(x86_store_value(&insn, &regs, &v));
    DECODE(state, &insn, 0xf3, 0x48, 0xab);                     /* rep stosq */
    assert_false(x86_store_value(&insn, &regs, &v));
}

/* ---- emulated loads and stores ---------------------------------------- */

/* 64 bytes of memory at FAKE_BASE; anything else is unreachable. */
enum { FAKE_BASE = 0x10000 };
struct fake_mem {
    uint8_t bytes[64];
};

static bool fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    struct fake_mem *m = ctx;
    if (addr < FAKE_BASE || addr + n > FAKE_BASE + sizeof m->bytes)
        return false;
    memcpy(buf, m->bytes + (addr - FAKE_BASE), n);
    return true;
}

static bool fake_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    struct fake_mem *m = ctx;
    if (addr < FAKE_BASE || addr + n > FAKE_BASE + sizeof m->bytes)
        return false;
    memcpy(m->bytes + (addr - FAKE_BASE), buf, n);
    return true;
}

/* Decodes the bytes at regs->rip and emulates them. */
#define EMULATE(state, regs, mem, expect, ...)                                           \
    do {                                                                                \
        struct x86_insn in_;                                                            \
        DECODE_AT(state, (regs)->rip, &in_, __VA_ARGS__);                               \
        struct x86_memory m_ = {fake_read, fake_write, (mem)};                          \
        assert_int_equal(x86_emulate(&in_, (regs), &m_), (expect));                     \
    } while (0)

static void test_emulate_loads_and_stores(void **state)
{
    struct fake_mem mem = {{0}};
    struct user_regs_struct regs = {0};
    regs.rip = 0x1000;
    regs.rbx = FAKE_BASE;
    regs.rax = 0xaaaaaaaa12345678ull;

    /* mov [rbx], eax: 4 bytes written, rip moves on. */
    EMULATE(state, &regs, &mem, true, 0x89, 0x03);
    assert_int_equal(regs.rip, 0x1002);
    assert_int_equal(mem.bytes[0], 0x78);
    assert_int_equal(mem.bytes[3], 0x12);
    assert_int_equal(mem.bytes[4], 0);
    /* mov qword [rbx+8], -2 */
    EMULATE(state, &regs, &mem, true, 0x48, 0xc7, 0x43, 0x08, 0xfe, 0xff, 0xff, 0xff);
    uint64_t q;
    memcpy(&q, mem.bytes + 8, 8);
    assert_int_equal(q, (uint64_t)-2);
    /* mov [rbx+16], ah */
    EMULATE(state, &regs, &mem, true, 0x88, 0x63, 0x10);
    assert_int_equal(mem.bytes[16], 0x56);

    /* mov ecx, [rbx]: a 32-bit load clears the upper half. */
    regs.rcx = ~0ull;
    EMULATE(state, &regs, &mem, true, 0x8b, 0x0b);
    assert_int_equal(regs.rcx, 0x12345678);
    /* mov cx, [rbx+8] keeps the other 48 bits; mov dh, [rbx] only bits 8..15. */
    regs.rcx = 0x1111111111111111ull;
    EMULATE(state, &regs, &mem, true, 0x66, 0x8b, 0x4b, 0x08);
    assert_int_equal(regs.rcx, 0x111111111111fffeull);
    regs.rdx = 0x2222222222222222ull;
    EMULATE(state, &regs, &mem, true, 0x8a, 0x33);
    assert_int_equal(regs.rdx, 0x2222222222227822ull);
    /* mov rsi, [rbx+8] */
    EMULATE(state, &regs, &mem, true, 0x48, 0x8b, 0x73, 0x08);
    assert_int_equal(regs.rsi, (uint64_t)-2);

    /* movzx eax, byte [rbx+8]; movsx rax, byte [rbx+8]; movsx eax, word [rbx+8]; movsxd rax, dword [rbx+8] */
    regs.rax = ~0ull;
    EMULATE(state, &regs, &mem, true, 0x0f, 0xb6, 0x43, 0x08);
    assert_int_equal(regs.rax, 0xfe);
    EMULATE(state, &regs, &mem, true, 0x48, 0x0f, 0xbe, 0x43, 0x08);
    assert_int_equal(regs.rax, (uint64_t)-2);
    EMULATE(state, &regs, &mem, true, 0x0f, 0xbf, 0x43, 0x08);
    assert_int_equal(regs.rax, 0xfffffffeull);
    EMULATE(state, &regs, &mem, true, 0x48, 0x63, 0x43, 0x08);
    assert_int_equal(regs.rax, (uint64_t)-2);
    /* movzx r9d, word [rbx] */
    regs.r9 = ~0ull;
    EMULATE(state, &regs, &mem, true, 0x44, 0x0f, 0xb7, 0x0b);
    assert_int_equal(regs.r9, 0x5678);

    /* Register sets: 32-bit names clear the upper half, 8-bit ones do not. */
    regs.rsi = ~0ull;
    EMULATE(state, &regs, &mem, true, 0xbe, 0x01, 0x00, 0x00, 0x00);           /* mov esi, 1 */
    assert_int_equal(regs.rsi, 1);
    regs.rax = 0x1111111111111111ull;
    EMULATE(state, &regs, &mem, true, 0xb0, 0x05);                             /* mov al, 5 */
    assert_int_equal(regs.rax, 0x1111111111111105ull);
    EMULATE(state, &regs, &mem, true, 0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff); /* mov rax, -1 */
    assert_int_equal(regs.rax, ~0ull);
    EMULATE(state, &regs, &mem, true, 0x49, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8);     /* movabs r8, imm64 */
    assert_int_equal(regs.r8, 0x0807060504030201ull);
    uint64_t set_at = regs.rip;
    EMULATE(state, &regs, &mem, true, 0x41, 0xb8, 0x01, 0x00, 0x00, 0x00);     /* mov r8d, 1 */
    assert_int_equal(regs.r8, 1);
    assert_int_equal(regs.rip, set_at + 6);

    /* push r15: 8 bytes below rsp, rsp moves down. */
    regs.rsp = FAKE_BASE + 48;
    regs.r15 = 0x0123456789abcdefull;
    EMULATE(state, &regs, &mem, true, 0x41, 0x57);
    assert_int_equal(regs.rsp, FAKE_BASE + 40);
    memcpy(&q, mem.bytes + 40, 8);
    assert_int_equal(q, 0x0123456789abcdefull);
    struct x86_insn push_rbx;
    DECODE(state, &push_rbx, 0x53);
    uint64_t where;
    unsigned bytes;
    bool writes;
    assert_true(x86_emulated_access(&push_rbx, &regs, &where, &bytes, &writes));
    assert_int_equal(where, FAKE_BASE + 32);
    assert_int_equal(bytes, 8);
    assert_true(writes);
    regs.rsp = FAKE_BASE + 4;       /* the push would leave the memory: refused */
    struct user_regs_struct kept = regs;
    EMULATE(state, &regs, &mem, false, 0x53);
    assert_memory_equal(&regs, &kept, sizeof regs);

    /* Unreachable memory: nothing changes, the CPU will run it. */
    struct user_regs_struct before = regs;
    regs.rbx = 0x20;
    before.rbx = 0x20;
    EMULATE(state, &regs, &mem, false, 0x8b, 0x0b);
    assert_memory_equal(&regs, &before, sizeof regs);
    EMULATE(state, &regs, &mem, false, 0x89, 0x03);
    assert_memory_equal(&regs, &before, sizeof regs);

    /* Not emulated (arithmetic and atomics are: test_arch_x86_emulate). */
    regs.rbx = FAKE_BASE;
    EMULATE(state, &regs, &mem, false, 0xf3, 0x48, 0xab);           /* rep stosq */
    EMULATE(state, &regs, &mem, false, 0xf3, 0x0f, 0x10, 0x03);     /* movss xmm0, [rbx] */
    EMULATE(state, &regs, &mem, false, 0x8e, 0x03);                 /* mov es, [rbx] */
    EMULATE(state, &regs, &mem, false, 0xff, 0x33);                 /* push [rbx] */
}

/* ---- invalid input ----------------------------------------------------- */

static void test_invalid_bytes(void **state)
{
    x86_decoder *d = *state;
    struct x86_insn insn;
    static const uint8_t push_es[] = {0x06};            /* invalid in 64-bit mode */
    static const uint8_t truncated[] = {0x8b, 0x05, 0xe6}; /* mov eax, [rip+disp32] cut short */
    assert_false(x86_decode(d, push_es, sizeof push_es, 0x1000, &insn));
    assert_false(x86_decode(d, truncated, sizeof truncated, 0x1000, &insn));
    assert_false(x86_decode(d, truncated, 0, 0x1000, &insn));

    /* A failed decode leaves the decoder usable. */
    static const uint8_t ret[] = {0xc3};
    assert_true(x86_decode(d, ret, sizeof ret, 0x1000, &insn));
    assert_true(has_flag(&insn, X86_RET));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rip_relative_load_and_store, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_rbp_local_depends_on_frame_pointer, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_rsp_local_never_visible, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_indexed_stack_access_is_visible, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_32bit_esp_base_is_not_own_stack, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_pointer_access_directions, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_access_directions, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_tls_access_not_visible, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_address_only_instructions, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_atomics_always_visible, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_string_instructions, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_syscall_flags, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_call_ret_push, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_effective_address, setup_decoder, teardown_decoder),
        cmocka_unit_test(test_frame_pointer_prologue),
        cmocka_unit_test_setup_teardown(test_store_value, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_emulate_loads_and_stores, setup_decoder, teardown_decoder),
        cmocka_unit_test_setup_teardown(test_invalid_bytes, setup_decoder, teardown_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
