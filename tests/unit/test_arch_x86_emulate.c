/* Unit tests for arch/x86_emulate.c: the CPU is the oracle. Each case is
 * one instruction, assembled into this test (below, with a label before
 * and after it); it runs natively on random registers, flags and memory,
 * and the emulator runs the same bytes (decoded with x86_decode) on the
 * same inputs: registers, memory and the arithmetic flags must agree.
 * Convention of every case: the memory operand is [rdi], the register
 * operand is rsi (or esi, si, sil), cmpxchg compares with rax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86_insn.h"

/* The state a case runs in and leaves: rax, rsi, rdi, flags. */
struct cpu {
    uint64_t rax, rsi, rdi, flags;
};

/* run_case(cpu, fn): loads the registers and flags, calls fn (one
 * instruction and ret), stores them back. */
__asm__(".text\n"
        ".globl run_case\n"
        "run_case:\n"
        "  push %rbx\n  push %r12\n  push %r13\n"
        "  mov %rdi, %r12\n  mov %rsi, %r13\n"
        "  mov 0(%r12), %rax\n  mov 8(%r12), %rsi\n  mov 16(%r12), %rdi\n"
        "  pushq 24(%r12)\n  popfq\n"
        "  call *%r13\n"
        "  pushfq\n  popq 24(%r12)\n"
        "  mov %rax, 0(%r12)\n  mov %rsi, 8(%r12)\n"
        "  pop %r13\n  pop %r12\n  pop %rbx\n"
        "  ret\n");
void run_case(struct cpu *cpu, void (*fn)(void));

#define CASE(name, text)                                                                  \
    __asm__(".text\n.globl " #name "\n" #name ":\n  " text "\n.globl " #name "_end\n" #name \
            "_end:\n  ret\n");                                                           \
    extern char name[], name##_end[];

CASE(add8, "addb %sil, (%rdi)") CASE(add16, "addw %si, (%rdi)") CASE(add32, "addl %esi, (%rdi)")
CASE(add64, "addq %rsi, (%rdi)") CASE(addi32, "addl $1, (%rdi)") CASE(addi8, "addb $0x7f, (%rdi)")
CASE(addi64, "addq $-3, (%rdi)") CASE(sub32, "subl %esi, (%rdi)") CASE(sub8, "subb %sil, (%rdi)")
CASE(subi16, "subw $0x1234, (%rdi)") CASE(adc32, "adcl %esi, (%rdi)") CASE(adc64, "adcq %rsi, (%rdi)")
CASE(sbb16, "sbbw %si, (%rdi)") CASE(sbb8, "sbbb %sil, (%rdi)") CASE(and32, "andl %esi, (%rdi)")
CASE(and8, "andb %sil, (%rdi)") CASE(or64, "orq %rsi, (%rdi)") CASE(ori32, "orl $0x80000000, (%rdi)")
CASE(xor16, "xorw %si, (%rdi)") CASE(xor32, "xorl %esi, (%rdi)") CASE(cmp32, "cmpl %esi, (%rdi)")
CASE(cmpi32, "cmpl $0, (%rdi)") CASE(cmp8, "cmpb %sil, (%rdi)") CASE(cmpr64, "cmpq (%rdi), %rsi")
CASE(test32, "testl %esi, (%rdi)") CASE(testi8, "testb $1, (%rdi)") CASE(inc32, "incl (%rdi)")
CASE(inc8, "incb (%rdi)") CASE(dec64, "decq (%rdi)") CASE(dec16, "decw (%rdi)") CASE(neg32, "negl (%rdi)")
CASE(neg8, "negb (%rdi)") CASE(not32, "notl (%rdi)") CASE(not64, "notq (%rdi)")
CASE(addr32, "addl (%rdi), %esi") CASE(subr64, "subq (%rdi), %rsi") CASE(xorr8, "xorb (%rdi), %sil")
CASE(andr16, "andw (%rdi), %si") CASE(lockadd32, "lock addl %esi, (%rdi)")
CASE(lockinc64, "lock incq (%rdi)") CASE(lockor8, "lock orb %sil, (%rdi)") CASE(lockdec32, "lock decl (%rdi)")
CASE(xchg32, "xchgl %esi, (%rdi)") CASE(xchg64, "xchgq %rsi, (%rdi)") CASE(xchg8, "xchgb %sil, (%rdi)")
CASE(xadd32, "lock xaddl %esi, (%rdi)") CASE(xadd64, "lock xaddq %rsi, (%rdi)") CASE(xadd16, "xaddw %si, (%rdi)")
CASE(cas32, "lock cmpxchgl %esi, (%rdi)") CASE(cas64, "lock cmpxchgq %rsi, (%rdi)")
CASE(cas8, "lock cmpxchgb %sil, (%rdi)") CASE(cas16, "cmpxchgw %si, (%rdi)")

struct case_def {
    const char *name;
    char *start, *end;
    bool logic;         /* AF is undefined after it */
};

#define C(n, l) {#n, n, n##_end, l}
static const struct case_def cases[] = {
    C(add8, 0), C(add16, 0), C(add32, 0), C(add64, 0), C(addi32, 0), C(addi8, 0), C(addi64, 0), C(sub32, 0),
    C(sub8, 0), C(subi16, 0), C(adc32, 0), C(adc64, 0), C(sbb16, 0), C(sbb8, 0), C(and32, 1), C(and8, 1),
    C(or64, 1), C(ori32, 1), C(xor16, 1), C(xor32, 1), C(cmp32, 0), C(cmpi32, 0), C(cmp8, 0), C(cmpr64, 0),
    C(test32, 1), C(testi8, 1), C(inc32, 0), C(inc8, 0), C(dec64, 0), C(dec16, 0), C(neg32, 0), C(neg8, 0),
    C(not32, 0), C(not64, 0), C(addr32, 0), C(subr64, 0), C(xorr8, 1), C(andr16, 1), C(lockadd32, 0),
    C(lockinc64, 0), C(lockor8, 1), C(lockdec32, 0), C(xchg32, 0), C(xchg64, 0), C(xchg8, 0), C(xadd32, 0),
    C(xadd64, 0), C(xadd16, 0), C(cas32, 0), C(cas64, 0), C(cas8, 0), C(cas16, 0),
};

enum { ARITH_FLAGS = 0x8d5, AF = 0x10, ROUNDS = 3000 };

static uint64_t lcg_state = 12345;
static uint64_t rnd(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = lcg_state ^ (lcg_state >> 29);
    /* Small values and edges as often as wide ones: carries, zero, signs. */
    switch (x & 7) {
    case 0: return 0;
    case 1: return (x >> 8) & 0xff;
    case 2: return ~0ull;
    case 3: return 0x80ull << ((x >> 8) & 0x38);
    case 4: return 0x7fffffffull;
    default: return x * 0x9e3779b97f4a7c15ull;
    }
}

static uint64_t memory[2];

static bool read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
    memcpy(buf, (void *)(uintptr_t)addr, n);
    return true;
}

static bool write_mem(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    memcpy((void *)(uintptr_t)addr, buf, n);
    return true;
}

static void decode(x86_decoder *d, const struct case_def *c, struct x86_insn *insn)
{
    size_t len = (size_t)(c->end - c->start);
    assert_true(x86_decode(d, (const uint8_t *)c->start, len, (uint64_t)(uintptr_t)c->start, insn));
    assert_int_equal(insn->length, len);
}

static struct user_regs_struct regs_of(const struct cpu *cpu, const struct case_def *c)
{
    struct user_regs_struct r;
    memset(&r, 0, sizeof r);
    r.rax = cpu->rax;
    r.rsi = cpu->rsi;
    r.rdi = cpu->rdi;
    r.eflags = cpu->flags;
    r.rip = (uint64_t)(uintptr_t)c->start;
    return r;
}

static void every_form_matches_the_cpu(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    struct x86_memory mem = {read_mem, write_mem, NULL};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode(d, c, &insn);
        if (insn.emulation == X86_EMU_NONE)
            fail_msg("%s: not emulated (%s)", c->name, insn.text);
        uint64_t flag_mask = ARITH_FLAGS & ~(c->logic ? (uint64_t)AF : 0);
        for (int round = 0; round < ROUNDS; round++) {
            uint64_t m0 = rnd(), rax = rnd(), rsi = rnd();
            /* cmpxchg succeeds half of the time. */
            if ((round & 1) && strncmp(c->name, "cas", 3) == 0)
                rax = m0;
            uint64_t flags = 0x202 | (rnd() & ARITH_FLAGS);
            memory[0] = m0;
            struct cpu native = {rax, rsi, (uint64_t)(uintptr_t)&memory[0], flags};
            run_case(&native, (void (*)(void))(uintptr_t)c->start);
            uint64_t native_mem = memory[0];

            memory[0] = m0;
            struct cpu in = {rax, rsi, (uint64_t)(uintptr_t)&memory[0], flags};
            struct user_regs_struct r = regs_of(&in, c);
            assert_true(x86_emulate(&insn, &r, &mem));
            if (r.rax != native.rax || r.rsi != native.rsi || memory[0] != native_mem ||
                (r.eflags & flag_mask) != (native.flags & flag_mask) ||
                r.rip != (uint64_t)(uintptr_t)c->end)
                fail_msg("%s: mem %#lx rax %#lx rsi %#lx flags %#lx: cpu gave mem %#lx rax %#lx rsi %#lx flags %#lx, "
                         "emulator mem %#lx rax %#lx rsi %#lx flags %#lx",
                         c->name, m0, rax, rsi, flags, native_mem, native.rax, native.rsi,
                         native.flags & flag_mask, memory[0], r.rax, r.rsi, r.eflags & flag_mask);
        }
    }
    x86_decoder_free(d);
}

/* Split: the store half computes from the value the load half read, even
 * when memory changed in between (the lost update hardware shows). */
static void split_rmw_stores_from_the_value_it_loaded(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    struct x86_memory mem = {read_mem, write_mem, NULL};
    static const char *const split[] = {"add32", "addi32", "sub8", "inc32", "dec64", "neg8", "not32", "xor16",
                                        "adc64", "or64"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode(d, c, &insn);
        bool expected = false;
        for (size_t i = 0; i < sizeof split / sizeof split[0]; i++)
            expected |= strcmp(c->name, split[i]) == 0;
        /* Atomic, read-only, or with a register destination: one step. */
        static const char *const whole[] = {"lockadd32", "lockinc64", "lockor8", "lockdec32", "cmp32", "cmpi32",
                                            "cmp8", "cmpr64", "test32", "testi8", "xchg32", "xadd32", "cas32",
                                            "addr32", "subr64", "xorr8", "andr16"};
        for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
            if (strcmp(c->name, whole[i]) == 0)
                assert_false(x86_is_split_rmw(&insn));
        if (!expected)
            continue;
        assert_true(x86_is_split_rmw(&insn));
        uint64_t flag_mask = ARITH_FLAGS & ~(c->logic ? (uint64_t)AF : 0);
        for (int round = 0; round < ROUNDS; round++) {
            uint64_t old = rnd(), other = rnd(), rsi = rnd(), flags = 0x202 | (rnd() & ARITH_FLAGS);
            memory[0] = old;
            struct cpu native = {0, rsi, (uint64_t)(uintptr_t)&memory[0], flags};
            run_case(&native, (void (*)(void))(uintptr_t)c->start);
            uint64_t native_mem = memory[0];

            memory[0] = old;
            struct cpu in = {0, rsi, (uint64_t)(uintptr_t)&memory[0], flags};
            struct user_regs_struct r = regs_of(&in, c);
            uint64_t loaded, predicted;
            assert_true(x86_rmw_load(&insn, &r, &mem, &loaded));
            assert_int_equal(r.rip, (uint64_t)(uintptr_t)c->start);    /* nothing moved yet */
            memory[0] = other;                                          /* another thread stores */
            assert_true(x86_rmw_result(&insn, &r, loaded, &predicted));
            assert_true(x86_rmw_store(&insn, &r, &mem, loaded));
            uint64_t size_mask = insn.mem[0].size == 8 ? ~0ull : (1ull << (insn.mem[0].size * 8)) - 1;
            /* The operand's bytes are the CPU's result from `old`; the bytes
             * beyond it are what the other thread stored. */
            assert_int_equal(memory[0] & size_mask, native_mem & size_mask);
            assert_int_equal(memory[0] & ~size_mask, other & ~size_mask);
            assert_int_equal(predicted, native_mem & size_mask);
            assert_int_equal(r.eflags & flag_mask, native.flags & flag_mask);
            assert_int_equal(r.rip, (uint64_t)(uintptr_t)c->end);
        }
    }
    x86_decoder_free(d);
}

static void cas_outcome_says_what_happened(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    struct x86_insn insn;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (strcmp(cases[k].name, "cas32") == 0)
            decode(d, &cases[k], &insn);
    struct user_regs_struct r;
    memset(&r, 0, sizeof r);
    r.rax = 0x1111111100000003ull;     /* expected 3 (32-bit) */
    r.rsi = 5;
    struct x86_cas cas;
    assert_true(x86_cas_outcome(&insn, &r, 7, &cas));
    assert_int_equal(cas.expected, 3);
    assert_int_equal(cas.found, 7);
    assert_int_equal(cas.desired, 5);
    assert_false(cas.stored);
    assert_true(x86_cas_outcome(&insn, &r, 3, &cas));
    assert_true(cas.stored);
    x86_decoder_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_form_matches_the_cpu),
        cmocka_unit_test(split_rmw_stores_from_the_value_it_loaded),
        cmocka_unit_test(cas_outcome_says_what_happened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
