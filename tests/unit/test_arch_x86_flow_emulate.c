/* Unit tests for the control-flow and stack instructions of
 * arch/x86_emulate.c (jcc, jmp, call, ret, pop, leave), the ones mdat needs
 * to run user code ahead between two visible operations.
 *
 * jcc: the CPU is the oracle. Each condition is assembled here as
 * "jcc 1f; mov $1, %r9; 1: ret"; it runs natively on random flags (r9 stays
 * 0 when the branch is taken) and the emulator's rip must land on the label
 * exactly then, on the next instruction otherwise. The others are checked
 * against what the manuals define, on a stack of their own, decoded at the
 * address they were assembled at and again as if loaded elsewhere (a PIE
 * runs relocated from where its code was decoded). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86_insn.h"

/* xf_flags(flags, fn): loads the flags, calls fn, returns r9. */
__asm__(".pushsection .text\n"
        ".globl xf_run\n"
        "xf_run:\n"
        "  push %r9\n"
        "  xor %r9d, %r9d\n"
        "  push %rdi\n  popfq\n"
        "  call *%rsi\n"
        "  mov %r9, %rax\n"
        "  pop %r9\n"
        "  ret\n"
        ".popsection\n");
uint64_t xf_run(uint64_t flags, void (*fn)(void));

#define CONDITIONS(X)                                                                                 \
    X(o) X(no) X(b) X(ae) X(e) X(ne) X(be) X(a) X(s) X(ns) X(p) X(np) X(l) X(ge) X(le) X(g)

#define DEFINE_JCC(cc)                                                                                \
    __asm__(".pushsection .text\n.globl xf_j" #cc "\nxf_j" #cc ":\n  j" #cc " 1f\n  mov $1, %r9\n"     \
            "1:\n.globl xf_j" #cc "_taken\nxf_j" #cc "_taken:\n  ret\n"                               \
            ".globl xf_j" #cc "_far\nxf_j" #cc "_far:\n  j" #cc " 2f\n  .skip 200, 0x90\n2:\n  ret\n"  \
            ".popsection\n");                                                                         \
    extern char xf_j##cc[], xf_j##cc##_taken[], xf_j##cc##_far[];
CONDITIONS(DEFINE_JCC)

struct jcc_case {
    const char *name;
    char *start, *taken, *far;
};
#define JCC_ENTRY(cc) {"j" #cc, xf_j##cc, xf_j##cc##_taken, xf_j##cc##_far},
static const struct jcc_case jccs[] = {CONDITIONS(JCC_ENTRY)};

/* The flags every condition reads: CF, PF, ZF, SF, OF. */
enum { CF = 0x1, PF = 0x4, ZF = 0x40, SF = 0x80, OF = 0x800, FIXED = 0x202 };

static uint64_t lcg = 777;
static uint64_t rnd(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return lcg >> 17;
}

static void decode_at(x86_decoder *d, const void *code, struct x86_insn *insn)
{
    assert_true(x86_decode(d, code, 16, (uint64_t)(uintptr_t)code, insn));
}

static void test_jcc_against_cpu(void **state)
{
    (void)state;
    x86_decoder *d = x86_decoder_new();
    for (size_t i = 0; i < sizeof jccs / sizeof jccs[0]; i++) {
        struct x86_insn near, far;
        decode_at(d, jccs[i].start, &near);
        decode_at(d, jccs[i].far, &far);
        assert_int_equal(near.emulation, X86_EMU_JCC);
        assert_int_equal(far.emulation, X86_EMU_JCC);
        for (int round = 0; round < 256; round++) {
            uint64_t flags = FIXED | (rnd() & (CF | PF | ZF | SF | OF));
            bool taken = xf_run(flags, (void (*)(void))(uintptr_t)jccs[i].start) == 0;
            struct user_regs_struct r = {0};
            r.eflags = flags;
            r.rip = (uint64_t)(uintptr_t)jccs[i].start;
            assert_true(x86_emulate(&near, &r, NULL));
            uint64_t want = taken ? (uint64_t)(uintptr_t)jccs[i].taken : (uint64_t)(uintptr_t)jccs[i].start + near.length;
            if (r.rip != want)
                fail_msg("%s with flags %#lx: rip %#lx, the CPU went to %#lx", jccs[i].name, (unsigned long)flags,
                         (unsigned long)r.rip, (unsigned long)want);
            /* The rel32 form, run 0x10000 bytes away from where it was decoded. */
            r.rip = (uint64_t)(uintptr_t)jccs[i].far + 0x10000;
            assert_true(x86_emulate(&far, &r, NULL));
            uint64_t far_taken = (uint64_t)(uintptr_t)jccs[i].far + far.length + 200 + 0x10000;
            assert_int_equal(r.rip, taken ? far_taken : (uint64_t)(uintptr_t)jccs[i].far + far.length + 0x10000);
        }
    }
    x86_decoder_free(d);
}

/* ---- jmp, call, ret, pop, leave ------------------------------------------- */

static uint64_t stack[32];

static bool read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + sizeof stack;
    if (addr < lo || addr + n > hi)
        return false;
    memcpy(buf, (void *)(uintptr_t)addr, n);
    return true;
}

static bool write_mem(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    (void)ctx;
    uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + sizeof stack;
    if (addr < lo || addr + n > hi)
        return false;
    memcpy((void *)(uintptr_t)addr, buf, n);
    return true;
}

static const struct x86_memory stack_memory = {read_mem, write_mem, NULL};

/* Decodes bytes as if at `at`, runs them at `run_at` with r. */
static void emulate_bytes(const uint8_t *bytes, size_t n, uint64_t at, uint64_t run_at, struct user_regs_struct *r,
                          enum x86_emulation kind)
{
    uint8_t code[16] = {0};
    memcpy(code, bytes, n);
    x86_decoder *d = x86_decoder_new();
    struct x86_insn insn;
    assert_true(x86_decode(d, code, sizeof code, at, &insn));
    assert_int_equal(insn.emulation, kind);
    assert_int_equal(insn.length, n);
    r->rip = run_at;
    assert_true(x86_emulate(&insn, r, &stack_memory));
    x86_decoder_free(d);
}

#define TOP ((uint64_t)(uintptr_t)&stack[16])

static void test_jmp_and_call(void **state)
{
    (void)state;
    struct user_regs_struct r = {0};
    static const uint8_t jmp8[] = {0xeb, 0x10}, jmp32[] = {0xe9, 0x00, 0x01, 0x00, 0x00},
                         back[] = {0xeb, 0xfe}, call[] = {0xe8, 0x34, 0x12, 0x00, 0x00};
    emulate_bytes(jmp8, sizeof jmp8, 0x1000, 0x5000, &r, X86_EMU_JUMP_REL);
    assert_int_equal(r.rip, 0x5000 + 2 + 0x10);
    emulate_bytes(jmp32, sizeof jmp32, 0x1000, 0x5000, &r, X86_EMU_JUMP_REL);
    assert_int_equal(r.rip, 0x5000 + 5 + 0x100);
    emulate_bytes(back, sizeof back, 0x1000, 0x5000, &r, X86_EMU_JUMP_REL);
    assert_int_equal(r.rip, 0x5000);    /* jmp . */
    r.rsp = TOP;
    emulate_bytes(call, sizeof call, 0x1000, 0x7000, &r, X86_EMU_CALL_REL);
    assert_int_equal(r.rip, 0x7000 + 5 + 0x1234);
    assert_int_equal(r.rsp, TOP - 8);
    assert_int_equal(stack[15], 0x7005);
    /* A call whose stack cannot be written changes nothing. */
    struct user_regs_struct before = r;
    before.rsp = (uint64_t)(uintptr_t)stack;
    r = before;
    uint8_t code[16] = {0};
    memcpy(code, call, sizeof call);
    x86_decoder *d = x86_decoder_new();
    struct x86_insn insn;
    assert_true(x86_decode(d, code, sizeof code, 0x1000, &insn));
    assert_false(x86_emulate(&insn, &r, &stack_memory));
    assert_memory_equal(&r, &before, sizeof r);
    x86_decoder_free(d);
}

static void test_ret_pop_leave(void **state)
{
    (void)state;
    struct user_regs_struct r = {0};
    static const uint8_t ret[] = {0xc3}, ret16[] = {0xc2, 0x10, 0x00}, pop_rbx[] = {0x5b},
                         pop_r12[] = {0x41, 0x5c}, pop_rsp[] = {0x5c}, leave[] = {0xc9};
    stack[16] = 0x4444;
    r.rsp = TOP;
    emulate_bytes(ret, sizeof ret, 0x1000, 0x2000, &r, X86_EMU_RET);
    assert_int_equal(r.rip, 0x4444);
    assert_int_equal(r.rsp, TOP + 8);
    r.rsp = TOP;
    emulate_bytes(ret16, sizeof ret16, 0x1000, 0x2000, &r, X86_EMU_RET);
    assert_int_equal(r.rip, 0x4444);
    assert_int_equal(r.rsp, TOP + 8 + 16);
    stack[16] = 0x1234567890abcdefull;
    r.rsp = TOP;
    emulate_bytes(pop_rbx, sizeof pop_rbx, 0x1000, 0x2000, &r, X86_EMU_POP);
    assert_int_equal(r.rbx, 0x1234567890abcdefull);
    assert_int_equal(r.rsp, TOP + 8);
    assert_int_equal(r.rip, 0x2001);
    r.rsp = TOP;
    emulate_bytes(pop_r12, sizeof pop_r12, 0x1000, 0x2000, &r, X86_EMU_POP);
    assert_int_equal(r.r12, 0x1234567890abcdefull);
    assert_int_equal(r.rip, 0x2002);
    /* pop rsp: rsp gets the value read, not the increment. */
    r.rsp = TOP;
    emulate_bytes(pop_rsp, sizeof pop_rsp, 0x1000, 0x2000, &r, X86_EMU_POP);
    assert_int_equal(r.rsp, 0x1234567890abcdefull);
    /* leave: rsp := rbp, then pop rbp. */
    stack[20] = 0xfeed;
    r.rbp = (uint64_t)(uintptr_t)&stack[20];
    r.rsp = TOP - 64;
    emulate_bytes(leave, sizeof leave, 0x1000, 0x2000, &r, X86_EMU_LEAVE);
    assert_int_equal(r.rbp, 0xfeed);
    assert_int_equal(r.rsp, (uint64_t)(uintptr_t)&stack[21]);
    assert_int_equal(r.rip, 0x2001);
}

/* 16-bit forms, jumps through 16-bit registers and loops are left to the CPU
 * (jumps and calls through 64-bit registers are carried out: test_arch_x86_emulate). */
static void test_not_emulated(void **state)
{
    (void)state;
    static const struct {
        uint8_t bytes[4];
        size_t n;
    } left[] = {
        {{0x66, 0xff, 0xe0}, 3},       /* jmp ax */
        {{0x66, 0x5b}, 2},             /* pop bx */
        {{0xe2, 0xfe}, 2},             /* loop . */
        {{0xe3, 0x00}, 2},             /* jrcxz */
    };
    x86_decoder *d = x86_decoder_new();
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        uint8_t code[16] = {0};
        memcpy(code, left[i].bytes, left[i].n);
        struct x86_insn insn;
        assert_true(x86_decode(d, code, sizeof code, 0x1000, &insn));
        assert_int_equal(insn.emulation, X86_EMU_NONE);
    }
    x86_decoder_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jcc_against_cpu),
        cmocka_unit_test(test_jmp_and_call),
        cmocka_unit_test(test_ret_pop_leave),
        cmocka_unit_test(test_not_emulated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
