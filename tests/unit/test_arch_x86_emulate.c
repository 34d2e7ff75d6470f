/* Unit tests for arch/x86_emulate.c: the CPU is the oracle. Each case is
 * one instruction, assembled by GNU as into this test (FORMS below, with a
 * label before and after it, then ret); it runs natively on random
 * registers, flags and memory, and the emulator runs the same bytes
 * (decoded with x86_decode at the same address) on the same inputs:
 * registers, rip, the 128 bytes of memory around the operand and the
 * flags the manuals define must agree.
 *
 * Conventions of every case: memory operands are based on rdi (which
 * points 48 bytes into xe_buffer) or rip-relative into xe_buffer; rcx is
 * a small index (-8..8); rsi, rdx, r9 and rax are data registers;
 * cmpxchg compares with rax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86_insn.h"
#include "arch/x86_regs.h"

/* The state a case runs in and leaves. */
struct cpu {
    uint64_t rax, rcx, rdx, rsi, rdi, r9, flags;
};

/* run_case(cpu, fn): loads the registers and flags, calls fn (one
 * instruction and ret), stores them back. */
__asm__(".pushsection .text\n"
        ".globl xe_run_case\n"
        "xe_run_case:\n"
        "  push %rbx\n  push %r12\n  push %r13\n"
        "  mov %rdi, %r12\n  mov %rsi, %r13\n"
        "  mov 0(%r12), %rax\n  mov 8(%r12), %rcx\n  mov 16(%r12), %rdx\n"
        "  mov 24(%r12), %rsi\n  mov 32(%r12), %rdi\n  mov 40(%r12), %r9\n"
        "  pushq 48(%r12)\n  popfq\n"
        "  call *%r13\n"
        "  pushfq\n  popq 48(%r12)\n"
        "  mov %rax, 0(%r12)\n  mov %rcx, 8(%r12)\n  mov %rdx, 16(%r12)\n"
        "  mov %rsi, 24(%r12)\n  mov %rdi, 32(%r12)\n  mov %r9, 40(%r12)\n"
        "  pop %r13\n  pop %r12\n  pop %rbx\n"
        "  ret\n"
        ".globl xe_ret\n"
        "xe_ret:\n  ret\n"
        ".popsection\n");
void xe_run_case(struct cpu *cpu, void (*fn)(void));
extern char xe_ret[];

/* The memory the cases work on (rip-relative cases name it). */
enum { BUFFER = 128, OPERAND_AT = 48 };
uint8_t xe_buffer[BUFFER] __attribute__((aligned(16)));
/* The emulated thread's stack (the CPU's own runs on the real one). */
static uint64_t xe_stack[16];
#define STACK_TOP ((uint64_t)(uintptr_t)&xe_stack[8])

/* What a case is, besides its text. */
enum {
    ARITH = 0,          /* every arithmetic flag defined */
    LOGIC = 1 << 0,     /* AF undefined */
    MUL = 1 << 1,       /* only CF and OF defined */
    BIT = 1 << 2,       /* only CF defined */
    BITREG = 1 << 3,    /* rsi is a bit offset: kept within the buffer */
    CAS = 1 << 4,       /* rax equals memory half of the time */
    JUMP = 1 << 5,      /* memory holds the target */
    CALL = 1 << 7,      /* and the return address goes on the stack */
    SHIFT = 1 << 8,     /* flags defined depending on the count */
    ROTATE = 1 << 9,    /* a SHIFT that only sets CF and OF */
    SPLIT = 1 << 6,     /* a read-modify-write without lock: two steps */
};

/* ---- the forms ------------------------------------------------------------ */

/* op [m], reg;  lock op [m], reg;  op [m], imm (imm8 and wider encodings);
 * lock op [m], imm;  op reg, [m];  op reg, reg;  op reg, imm */
#define BINARY(X, op, k)                                                                              \
    X(op##_mr_b, #op "b %sil, (%rdi)", k | SPLIT) X(op##_mr_w, #op "w %si, (%rdi)", k | SPLIT)        \
    X(op##_mr_l, #op "l %esi, (%rdi)", k | SPLIT) X(op##_mr_q, #op "q %rsi, (%rdi)", k | SPLIT)       \
    X(lock_##op##_mr_b, "lock " #op "b %sil, (%rdi)", k) X(lock_##op##_mr_w, "lock " #op "w %si, (%rdi)", k) \
    X(lock_##op##_mr_l, "lock " #op "l %esi, (%rdi)", k) X(lock_##op##_mr_q, "lock " #op "q %rsi, (%rdi)", k) \
    X(op##_mi_b, #op "b $0x9c, (%rdi)", k | SPLIT) X(op##_mi8_w, #op "w $-3, (%rdi)", k | SPLIT)     \
    X(op##_mi_w, #op "w $0x1234, (%rdi)", k | SPLIT) X(op##_mi8_l, #op "l $0x7f, (%rdi)", k | SPLIT)   \
    X(op##_mi_l, #op "l $0x87654321, (%rdi)", k | SPLIT) X(op##_mi8_q, #op "q $-3, (%rdi)", k | SPLIT) \
    X(op##_mi_q, #op "q $-0x789abcde, (%rdi)", k | SPLIT)                                             \
    X(lock_##op##_mi_b, "lock " #op "b $1, (%rdi)", k) X(lock_##op##_mi_w, "lock " #op "w $0x8000, (%rdi)", k) \
    X(lock_##op##_mi_l, "lock " #op "l $0x12345678, (%rdi)", k) X(lock_##op##_mi8_q, "lock " #op "q $-1, (%rdi)", k) \
    READ_FORMS(X, op, k)

/* The forms that only read memory (the ones cmp shares). */
#define READ_FORMS(X, op, k)                                                                          \
    X(op##_rm_b, #op "b (%rdi), %sil", k) X(op##_rm_w, #op "w (%rdi), %si", k)                        \
    X(op##_rm_l, #op "l (%rdi), %esi", k) X(op##_rm_q, #op "q (%rdi), %rsi", k)                       \
    X(op##_rr_b, #op "b %dl, %sil", k) X(op##_rr_w, #op "w %dx, %si", k)                              \
    X(op##_rr_l, #op "l %edx, %esi", k) X(op##_rr_q, #op "q %rdx, %rsi", k)                           \
    X(op##_ri_b, #op "b $0x9c, %sil", k) X(op##_ri_w, #op "w $0x1234, %si", k)                        \
    X(op##_ri_l, #op "l $0x12345678, %esi", k) X(op##_ri8_q, #op "q $-3, %rsi", k)

#define COMPARE(X)                                                                                    \
    X(cmp_mr_b, "cmpb %sil, (%rdi)", ARITH) X(cmp_mr_w, "cmpw %si, (%rdi)", ARITH)                    \
    X(cmp_mr_l, "cmpl %esi, (%rdi)", ARITH) X(cmp_mr_q, "cmpq %rsi, (%rdi)", ARITH)                   \
    X(cmp_mi_b, "cmpb $1, (%rdi)", ARITH) X(cmp_mi8_w, "cmpw $-3, (%rdi)", ARITH)                     \
    X(cmp_mi_l, "cmpl $0x80000000, (%rdi)", ARITH) X(cmp_mi8_q, "cmpq $0, (%rdi)", ARITH)             \
    READ_FORMS(X, cmp, ARITH)                                                                         \
    X(test_mr_b, "testb %sil, (%rdi)", LOGIC) X(test_mr_w, "testw %si, (%rdi)", LOGIC)                \
    X(test_mr_l, "testl %esi, (%rdi)", LOGIC) X(test_mr_q, "testq %rsi, (%rdi)", LOGIC)               \
    X(test_mi_b, "testb $1, (%rdi)", LOGIC) X(test_mi_w, "testw $0x8001, (%rdi)", LOGIC)              \
    X(test_mi_l, "testl $0x80000001, (%rdi)", LOGIC) X(test_mi_q, "testq $-16, (%rdi)", LOGIC)        \
    X(test_rr_l, "testl %esi, %esi", LOGIC) X(test_rr_q, "testq %rdx, %rsi", LOGIC)                   \
    X(test_rr_b, "testb %dl, %dl", LOGIC) X(test_ri_l, "testl $0x100, %esi", LOGIC)

/* inc, dec, neg, not on memory (locked or not) and on registers. */
#define UNARY(X, op)                                                                                  \
    X(op##_m_b, #op "b (%rdi)", SPLIT) X(op##_m_w, #op "w (%rdi)", SPLIT)                             \
    X(op##_m_l, #op "l (%rdi)", SPLIT) X(op##_m_q, #op "q (%rdi)", SPLIT)                             \
    X(lock_##op##_m_b, "lock " #op "b (%rdi)", ARITH) X(lock_##op##_m_w, "lock " #op "w (%rdi)", ARITH) \
    X(lock_##op##_m_l, "lock " #op "l (%rdi)", ARITH) X(lock_##op##_m_q, "lock " #op "q (%rdi)", ARITH) \
    X(op##_r_b, #op "b %sil", ARITH) X(op##_r_l, #op "l %esi", ARITH) X(op##_r_q, #op "q %rsi", ARITH)

#define MULTIPLY(X)                                                                                   \
    X(imul_rm_w, "imulw (%rdi), %si", MUL) X(imul_rm_l, "imull (%rdi), %esi", MUL)                    \
    X(imul_rm_q, "imulq (%rdi), %rsi", MUL) X(imul_rmi8_w, "imulw $-3, (%rdi), %si", MUL)             \
    X(imul_rmi_w, "imulw $0x1234, (%rdi), %si", MUL) X(imul_rmi8_l, "imull $7, (%rdi), %esi", MUL)    \
    X(imul_rmi_l, "imull $-0x12345, (%rdi), %esi", MUL) X(imul_rmi8_q, "imulq $-3, (%rdi), %rsi", MUL) \
    X(imul_rmi_q, "imulq $-0x12345678, (%rdi), %rsi", MUL) X(imul_rr_l, "imull %edx, %esi", MUL)     \
    X(imul_rr_q, "imulq %rdx, %rsi", MUL)

/* bt* [m], imm (the bit number modulo the width) and bt* [m], reg (a
 * signed bit offset into the string at [m]). */
#define BITS(X, op, k)                                                                                \
    X(op##_ri_w, #op "w $13, %si", BIT) X(op##_ri_l, #op "l $37, %esi", BIT)                          \
    X(op##_ri_q, #op "q $63, %rsi", BIT) X(op##_rr_w, #op "w %dx, %si", BIT)                          \
    X(op##_rr_l, #op "l %edx, %esi", BIT) X(op##_rr_q, #op "q %rdx, %r9", BIT)                        \
    X(op##_mi_w, #op "w $13, (%rdi)", BIT | k) X(op##_mi_l, #op "l $37, (%rdi)", BIT | k)             \
    X(op##_mi_q, #op "q $63, (%rdi)", BIT | k) X(op##_mr_w, #op "w %si, (%rdi)", BIT | BITREG | k)    \
    X(op##_mr_l, #op "l %esi, (%rdi)", BIT | BITREG | k) X(op##_mr_q, #op "q %rsi, (%rdi)", BIT | BITREG | k)
#define LOCKED_BITS(X, op)                                                                            \
    BITS(X, op, SPLIT)                                                                                \
    X(lock_##op##_mi_l, "lock " #op "l $5, (%rdi)", BIT) X(lock_##op##_mi_q, "lock " #op "q $40, (%rdi)", BIT) \
    X(lock_##op##_mr_w, "lock " #op "w %si, (%rdi)", BIT | BITREG)                                    \
    X(lock_##op##_mr_l, "lock " #op "l %esi, (%rdi)", BIT | BITREG)                                   \
    X(lock_##op##_mr_q, "lock " #op "q %rsi, (%rdi)", BIT | BITREG)

#define EXCHANGE(X)                                                                                   \
    X(xchg_b, "xchgb %sil, (%rdi)", ARITH) X(xchg_w, "xchgw %si, (%rdi)", ARITH)                      \
    X(xchg_l, "xchgl %esi, (%rdi)", ARITH) X(xchg_q, "xchgq %rsi, (%rdi)", ARITH)                     \
    X(xchg_rev_l, "xchgl (%rdi), %esi", ARITH) X(xchg_r9, "xchgq %r9, (%rdi)", ARITH)                 \
    X(xchg_ah, "xchgb %ah, (%rdi)", ARITH)                                                            \
    X(xadd_b, "xaddb %sil, (%rdi)", ARITH) X(xadd_w, "xaddw %si, (%rdi)", ARITH)                      \
    X(xadd_l, "xaddl %esi, (%rdi)", ARITH) X(xadd_q, "xaddq %rsi, (%rdi)", ARITH)                     \
    X(lock_xadd_b, "lock xaddb %sil, (%rdi)", ARITH) X(lock_xadd_w, "lock xaddw %si, (%rdi)", ARITH)  \
    X(lock_xadd_l, "lock xaddl %esi, (%rdi)", ARITH) X(lock_xadd_q, "lock xaddq %rsi, (%rdi)", ARITH) \
    X(cas_b, "cmpxchgb %sil, (%rdi)", CAS) X(cas_w, "cmpxchgw %si, (%rdi)", CAS)                      \
    X(cas_l, "cmpxchgl %esi, (%rdi)", CAS) X(cas_q, "cmpxchgq %rsi, (%rdi)", CAS)                     \
    X(lock_cas_b, "lock cmpxchgb %sil, (%rdi)", CAS) X(lock_cas_w, "lock cmpxchgw %si, (%rdi)", CAS)  \
    X(lock_cas_l, "lock cmpxchgl %esi, (%rdi)", CAS) X(lock_cas_q, "lock cmpxchgq %rsi, (%rdi)", CAS)

#define MOVES(X)                                                                                      \
    X(store_b, "movb %sil, (%rdi)", ARITH) X(store_w, "movw %si, (%rdi)", ARITH)                      \
    X(store_l, "movl %esi, (%rdi)", ARITH) X(store_q, "movq %rsi, (%rdi)", ARITH)                     \
    X(store_i_b, "movb $0x9c, (%rdi)", ARITH) X(store_i_q, "movq $-2, (%rdi)", ARITH)                 \
    X(load_b, "movb (%rdi), %sil", ARITH) X(load_w, "movw (%rdi), %si", ARITH)                        \
    X(load_l, "movl (%rdi), %esi", ARITH) X(load_q, "movq (%rdi), %rsi", ARITH)                       \
    X(load_ah, "movb (%rdi), %ah", ARITH) X(movzx_b, "movzbl (%rdi), %esi", ARITH)                    \
    X(movzx_w, "movzwq (%rdi), %rsi", ARITH) X(movsx_b, "movsbq (%rdi), %rsi", ARITH)                 \
    X(movsx_w, "movswl (%rdi), %esi", ARITH) X(movsxd, "movslq (%rdi), %rsi", ARITH)                  \
    X(move_l, "movl %edx, %esi", ARITH) X(move_q, "movq %rdx, %rsi", ARITH)                           \
    X(move_b, "movb %dh, %al", ARITH) X(set_l, "movl $7, %esi", ARITH) X(set_b, "movb $7, %ah", ARITH) \
    X(movzx_rr_b, "movzbl %dl, %esi", ARITH) X(movzx_rr_w, "movzwq %dx, %rsi", ARITH)                \
    X(movzx_rr_h, "movzbw %dh, %si", ARITH) X(movsx_rr_b, "movsbq %dl, %rsi", ARITH)                 \
    X(movsx_rr_w, "movswl %dx, %esi", ARITH) X(movsx_rr_h, "movsbl %dh, %esi", ARITH)                \
    X(movsxd_rr, "movslq %edx, %rsi", ARITH) X(cbw, "cbtw", ARITH) X(cwde, "cwtl", ARITH)            \
    X(cdqe, "cltq", ARITH) X(cwd, "cwtd", ARITH) X(cdq, "cltd", ARITH) X(cqo, "cqto", ARITH)         \
    X(lea_q, "leaq 8(%rdi,%rcx,4), %rsi", ARITH) X(lea_l, "leal -1(%rdx), %esi", ARITH)               \
    X(lea_w, "leaw 3(%rdi,%rcx), %si", ARITH) X(lea_rip, "leaq xe_buffer(%rip), %rsi", ARITH)         \
    X(lea_any, "leaq -5(%rdx,%rsi,8), %rsi", ARITH)                                                   \
    X(nop, "nop", ARITH) X(nop_m, "nopl 0(%rax,%rax,1)", ARITH) X(endbr64, "endbr64", ARITH)          \
    X(jmp_m, "jmp *(%rdi)", JUMP) X(jmp_rip, "jmp *xe_buffer+48(%rip)", JUMP)                         \
    X(call_m, "call *(%rdi)", JUMP | CALL) X(call_rip, "call *xe_buffer+48(%rip)", JUMP | CALL)      \
    X(jmp_r, "jmp *%rdx", JUMP) X(call_r, "call *%rdx", JUMP | CALL) X(call_r9, "call *%r9", JUMP | CALL) \
    X(pause, "pause", ARITH)

/* Other addressing: index and scale, rip-relative, high-byte and REX registers. */
#define ADDRESSING(X)                                                                                 \
    X(add_indexed, "addl %esi, 8(%rdi,%rcx,4)", ARITH | SPLIT)                                        \
    X(xadd_indexed, "lock xaddq %rsi, 16(%rdi,%rcx,4)", ARITH)                                       \
    X(cas_rip, "lock cmpxchgl %esi, xe_buffer+64(%rip)", CAS)                                         \
    X(inc_rip, "incq xe_buffer+40(%rip)", ARITH | SPLIT) X(cmp_rip, "cmpw $5, xe_buffer+50(%rip)", ARITH) \
    X(add_ah, "addb %ah, (%rdi)", ARITH | SPLIT) X(sub_dh, "subb (%rdi), %dh", ARITH)                  \
    X(or_r9, "orq %r9, (%rdi)", LOGIC | SPLIT) X(and_r9d, "andl (%rdi), %r9d", LOGIC)                  \
    X(inc_disp, "incw 2(%rdi)", ARITH | SPLIT) X(bts_indexed, "btsl %esi, 4(%rdi,%rcx,2)", BIT | BITREG | SPLIT)

/* shifts and rotates of memory by 1, by an immediate and by cl (which
 * goes beyond the width of 8-bit operands: rcx is -8..8). */
#define SHIFTS(X, op, k)                                                                              \
    X(op##_m1_b, #op "b (%rdi)", k | SPLIT) X(op##_m1_l, #op "l $1, (%rdi)", k | SPLIT)               \
    X(op##_mi_b, #op "b $3, (%rdi)", k | SPLIT) X(op##_mi_w, #op "w $5, (%rdi)", k | SPLIT)           \
    X(op##_mi_l, #op "l $31, (%rdi)", k | SPLIT) X(op##_mi_q, #op "q $37, (%rdi)", k | SPLIT)         \
    X(op##_mcl_b, #op "b %cl, (%rdi)", k | SPLIT) X(op##_mcl_w, #op "w %cl, (%rdi)", k | SPLIT)       \
    X(op##_mcl_l, #op "l %cl, (%rdi)", k | SPLIT) X(op##_mcl_q, #op "q %cl, (%rdi)", k | SPLIT)       \
    X(op##_r1_l, #op "l %esi", k) X(op##_ri_b, #op "b $3, %sil", k) X(op##_ri_w, #op "w $9, %si", k)  \
    X(op##_ri_l, #op "l $31, %esi", k) X(op##_ri_q, #op "q $37, %rsi", k)                             \
    X(op##_rcl_b, #op "b %cl, %dh", k) X(op##_rcl_l, #op "l %cl, %esi", k) X(op##_rcl_q, #op "q %cl, %r9", k)
#define SHIFTS_ALL(X)                                                                                 \
    SHIFTS(X, shl, SHIFT) SHIFTS(X, shr, SHIFT) SHIFTS(X, sar, SHIFT) SHIFTS(X, rol, SHIFT | ROTATE)  \
    SHIFTS(X, ror, SHIFT | ROTATE) X(sal_mi_l, "sall $2, (%rdi)", SHIFT | SPLIT)

/* setcc [m], setcc reg, cmovcc reg, [m] (16, 32, 64 bits), cmovcc reg, reg. */
#define CONDITION(X, cc)                                                                              \
    X(set##cc##_m, "set" #cc " (%rdi)", ARITH) X(set##cc##_r, "set" #cc " %sil", ARITH)                \
    X(cmov##cc##_w, "cmov" #cc "w (%rdi), %si", ARITH) X(cmov##cc##_l, "cmov" #cc "l (%rdi), %esi", ARITH) \
    X(cmov##cc##_q, "cmov" #cc "q (%rdi), %rsi", ARITH) X(cmov##cc##_rr, "cmov" #cc "l %edx, %esi", ARITH)
#define CONDITIONS(X)                                                                                 \
    CONDITION(X, o) CONDITION(X, no) CONDITION(X, b) CONDITION(X, ae) CONDITION(X, e) CONDITION(X, ne) \
    CONDITION(X, be) CONDITION(X, a) CONDITION(X, s) CONDITION(X, ns) CONDITION(X, p) CONDITION(X, np) \
    CONDITION(X, l) CONDITION(X, ge) CONDITION(X, le) CONDITION(X, g)

#define FORMS(X)                                                                                      \
    BINARY(X, add, ARITH) BINARY(X, sub, ARITH) BINARY(X, adc, ARITH) BINARY(X, sbb, ARITH)          \
    BINARY(X, and, LOGIC) BINARY(X, or, LOGIC) BINARY(X, xor, LOGIC) COMPARE(X)                      \
    UNARY(X, inc) UNARY(X, dec) UNARY(X, neg) UNARY(X, not) MULTIPLY(X)                              \
    BITS(X, bt, 0) LOCKED_BITS(X, bts) LOCKED_BITS(X, btr) LOCKED_BITS(X, btc)                       \
    SHIFTS_ALL(X) EXCHANGE(X) MOVES(X) CONDITIONS(X) ADDRESSING(X)

#define DEFINE_CASE(name, text, attrs)                                                                \
    __asm__(".pushsection .text\n.globl xe_" #name "\nxe_" #name ":\n  " text "\n.globl xe_" #name    \
            "_end\nxe_" #name "_end:\n  ret\n.popsection\n");                                         \
    extern char xe_##name[], xe_##name##_end[];
FORMS(DEFINE_CASE)

struct case_def {
    const char *name;
    char *start, *end;
    unsigned attrs;
};

#define CASE_ENTRY(name, text, attrs) {#name, xe_##name, xe_##name##_end, attrs},
static const struct case_def cases[] = {FORMS(CASE_ENTRY)};
enum { N_CASES = sizeof cases / sizeof cases[0] };

/* ---- inputs ---------------------------------------------------------------- */

enum { CF = 0x1, AF = 0x10, OF = 0x800, ARITH_FLAGS = 0x8d5, ROUNDS = 1500 };

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
    case 4: return 0x7fffffffull + ((x >> 8) & 3);
    default: return x * 0x9e3779b97f4a7c15ull;
    }
}

static unsigned register_width(uint16_t reg)
{
    struct user_regs_struct regs = {0};
    struct register_part part;
    assert_true(x86_register_part(reg, &regs, &part));
    return part.width;
}

/* The flags a case's result defines (for shifts, it depends on the count). */
static uint64_t defined_flags(const struct case_def *c, const struct x86_insn *insn, const struct cpu *in)
{
    if (c->attrs & SHIFT) {
        unsigned size = insn->n_mem ? insn->mem[0].size : register_width(insn->load_reg), bits = size * 8;
        bool immediate = insn->alu_form == X86_ALU_MEM_IMM || insn->alu_form == X86_ALU_REG_IMM;
        uint64_t count = immediate ? (uint64_t)insn->store_imm : in->rcx & 0xff;
        count &= size == 8 ? 63 : 31;
        uint64_t of = count == 1 ? OF : 0;
        if (count == 0)
            return ARITH_FLAGS;
        if (c->attrs & ROTATE)
            return CF | of;
        return (ARITH_FLAGS & ~(CF | OF | AF)) | of | (count < bits ? CF : 0);
    }
    if (c->attrs & BIT)
        return CF;
    if (c->attrs & MUL)
        return CF | OF;
    return ARITH_FLAGS & ~(c->attrs & LOGIC ? (uint64_t)AF : 0);
}

/* One random starting point: registers, flags and the buffer. */
struct input {
    struct cpu cpu;
    uint8_t memory[BUFFER];
};

static void random_input(const struct case_def *c, int round, struct input *in)
{
    for (size_t i = 0; i < BUFFER; i += 8) {
        uint64_t v = rnd();
        memcpy(in->memory + i, &v, 8);
    }
    uint8_t *operand = xe_buffer + OPERAND_AT;
    in->cpu = (struct cpu){rnd(), (uint64_t)(int64_t)((int)(rnd() % 17) - 8), rnd(), rnd(),
                           (uint64_t)(uintptr_t)operand, rnd(), 0x202 | (rnd() & ARITH_FLAGS)};
    if (c->attrs & BITREG) {
        /* -256..255 bits: within the buffer. Bits above the operand's
         * width are not part of the offset: random but for 64-bit forms. */
        in->cpu.rsi = (uint64_t)(int64_t)((int)(rnd() % 512) - 256);
        size_t n = strlen(c->name);
        if (c->name[n - 1] != 'q')
            in->cpu.rsi ^= rnd() << 32;
    }
    if ((c->attrs & CAS) && (round & 1)) {
        /* Half of the compare-and-swaps succeed: rax equals the memory. */
        uint64_t at = (uint64_t)(uintptr_t)operand;
        if (strstr(c->name, "rip"))
            at = (uint64_t)(uintptr_t)(xe_buffer + 64);
        memcpy(&in->cpu.rax, in->memory + (at - (uint64_t)(uintptr_t)xe_buffer), 8);
    }
    if (c->attrs & JUMP) {
        uint64_t target = (uint64_t)(uintptr_t)xe_ret;
        memcpy(in->memory + OPERAND_AT, &target, 8);
        in->cpu.rdx = in->cpu.r9 = target;     /* jmp reg, call reg */
    }
}

/* Runs the case on the CPU: *out gets registers, flags and memory after. */
static void run_native(const struct case_def *c, const struct input *in, struct input *out)
{
    *out = *in;
    memcpy(xe_buffer, in->memory, BUFFER);
    xe_run_case(&out->cpu, (void (*)(void))(uintptr_t)c->start);
    memcpy(out->memory, xe_buffer, BUFFER);
}

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

static const struct x86_memory test_memory = {read_mem, write_mem, NULL};

static struct user_regs_struct regs_of(const struct cpu *cpu, const struct case_def *c)
{
    struct user_regs_struct r;
    memset(&r, 0, sizeof r);
    r.rax = cpu->rax;
    r.rcx = cpu->rcx;
    r.rdx = cpu->rdx;
    r.rsi = cpu->rsi;
    r.rdi = cpu->rdi;
    r.r9 = cpu->r9;
    r.eflags = cpu->flags;
    r.rip = (uint64_t)(uintptr_t)c->start;
    r.rsp = STACK_TOP;
    return r;
}

static void decode_case(x86_decoder *d, const struct case_def *c, struct x86_insn *insn)
{
    size_t len = (size_t)(c->end - c->start);
    if (!x86_decode(d, (const uint8_t *)c->start, len, (uint64_t)(uintptr_t)c->start, insn))
        fail_msg("%s: does not decode", c->name);
    if (insn->length != len)
        fail_msg("%s: decoded %u bytes of %zu", c->name, insn->length, len);
    if (insn->emulation == X86_EMU_NONE)
        fail_msg("%s: not emulated (%s)", c->name, insn->text);
}

/* The emulator's registers, flags and memory against the CPU's. */
static void assert_same(const struct case_def *c, const struct x86_insn *insn, const struct input *in,
                        const struct input *cpu, const struct user_regs_struct *r, const char *how)
{
    const struct cpu *n = &cpu->cpu;
    uint64_t flags = defined_flags(c, insn, &in->cpu);
    uint64_t rip = (c->attrs & JUMP) ? (uint64_t)(uintptr_t)xe_ret : (uint64_t)(uintptr_t)c->end;
    uint64_t rsp = (c->attrs & CALL) ? STACK_TOP - 8 : STACK_TOP;
    bool pushed = !(c->attrs & CALL) || xe_stack[7] == (uint64_t)(uintptr_t)c->end;
    bool same = r->rsp == rsp && pushed && r->rax == n->rax && r->rcx == n->rcx && r->rdx == n->rdx &&
                r->rsi == n->rsi && r->rdi == n->rdi && r->r9 == n->r9 && (r->eflags & flags) == (n->flags & flags) &&
                r->rip == rip &&
                memcmp(xe_buffer, cpu->memory, BUFFER) == 0;
    if (!same) {
        uint64_t m0, m1, m2;
        memcpy(&m0, in->memory + OPERAND_AT, 8);
        memcpy(&m1, cpu->memory + OPERAND_AT, 8);
        memcpy(&m2, xe_buffer + OPERAND_AT, 8);
        fail_msg("%s (%s): in mem %#lx rax %#lx rcx %#lx rdx %#lx rsi %#lx r9 %#lx flags %#lx\n"
                 "  cpu:      mem %#lx rax %#lx rcx %#lx rdx %#lx rsi %#lx r9 %#lx flags %#lx\n"
                 "  emulator: mem %#lx rax %#lx rcx %#lx rdx %#lx rsi %#lx r9 %#lx flags %#lx rip %s",
                 c->name, how, m0, in->cpu.rax, in->cpu.rcx, in->cpu.rdx, in->cpu.rsi, in->cpu.r9, in->cpu.flags,
                 m1, n->rax, n->rcx, n->rdx, n->rsi, n->r9, n->flags & flags, m2, r->rax, r->rcx, r->rdx, r->rsi,
                 r->r9, r->eflags & flags, r->rip == rip && r->rsp == rsp && pushed ? "ok" : "wrong");
    }
}

/* What x86_emulated_access says against what the CPU changed: every byte
 * it changed lies in the access, and an access that does not write
 * changes none. */
static void assert_access_covers_changes(const struct case_def *c, const struct x86_insn *insn, const struct input *in,
                                         const struct input *cpu)
{
    uint64_t addr = 0;
    unsigned size = 0;
    bool write = false;
    struct user_regs_struct r = regs_of(&in->cpu, c);
    bool touches = x86_emulated_access(insn, &r, &addr, &size, &write);
    for (size_t i = 0; i < BUFFER; i++) {
        if (in->memory[i] == cpu->memory[i])
            continue;
        uint64_t at = (uint64_t)(uintptr_t)(xe_buffer + i);
        if (!touches || !write || at < addr || at >= addr + size)
            fail_msg("%s: the CPU changed byte %zu, outside the access the emulator reports", c->name, i);
    }
}

/* ---- tests ---------------------------------------------------------------- */

static void every_form_matches_the_cpu(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    for (size_t k = 0; k < N_CASES; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode_case(d, c, &insn);
        for (int round = 0; round < ROUNDS; round++) {
            struct input in, cpu;
            random_input(c, round, &in);
            run_native(c, &in, &cpu);
            assert_access_covers_changes(c, &insn, &in, &cpu);
            memcpy(xe_buffer, in.memory, BUFFER);
            struct user_regs_struct r = regs_of(&in.cpu, c);
            if (!x86_emulate(&insn, &r, &test_memory))
                fail_msg("%s: x86_emulate refused", c->name);
            assert_same(c, &insn, &in, &cpu, &r, "whole");
        }
    }
    print_message("%d forms x %d random inputs each\n", (int)N_CASES, ROUNDS);
    x86_decoder_free(d);
}

/* The split of a read-modify-write without lock: the load half reads and
 * changes nothing; the store half computes from the value loaded. With
 * memory unchanged in between it is the whole instruction; when another
 * thread stored in between, its store is lost, as on hardware: the
 * operand holds the CPU's result from the old value, the bytes around it
 * what the other thread stored. */
static void split_rmw_is_the_hardware_load_then_store(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    int split_forms = 0;
    for (size_t k = 0; k < N_CASES; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode_case(d, c, &insn);
        bool split = (c->attrs & SPLIT) != 0;
        if (x86_is_split_rmw(&insn) != split)
            fail_msg("%s: x86_is_split_rmw says %d", c->name, !split);
        struct input in, cpu;
        random_input(c, 0, &in);
        struct user_regs_struct r = regs_of(&in.cpu, c);
        uint64_t old;
        if (!split) {
            assert_false(x86_rmw_load(&insn, &r, &test_memory, &old));
            continue;
        }
        split_forms++;
        for (int round = 0; round < ROUNDS; round++) {
            random_input(c, round, &in);
            run_native(c, &in, &cpu);
            bool interfere = round & 1;
            struct input other;
            random_input(c, round, &other);     /* what another thread stores meanwhile */

            memcpy(xe_buffer, in.memory, BUFFER);
            r = regs_of(&in.cpu, c);
            struct user_regs_struct at_load = r;
            uint64_t addr, predicted;
            unsigned size;
            bool write;
            assert_true(x86_emulated_access(&insn, &r, &addr, &size, &write) && write);
            assert_true(x86_rmw_load(&insn, &r, &test_memory, &old));
            assert_memory_equal(&r, &at_load, sizeof r);        /* the load half moves nothing */
            assert_memory_equal(xe_buffer, in.memory, BUFFER);
            if (interfere)
                memcpy(xe_buffer, other.memory, BUFFER);
            assert_true(x86_rmw_result(&insn, &r, old, &predicted));
            assert_true(x86_rmw_store(&insn, &r, &test_memory, old));

            struct input expected = cpu;
            if (interfere) {
                size_t at = (size_t)(addr - (uint64_t)(uintptr_t)xe_buffer);
                memcpy(expected.memory, other.memory, BUFFER);
                memcpy(expected.memory + at, cpu.memory + at, size);
            }
            assert_same(c, &insn, &in, &expected, &r, interfere ? "split, another store in between" : "split");
            uint64_t stored = 0;
            memcpy(&stored, xe_buffer + (addr - (uint64_t)(uintptr_t)xe_buffer), size);
            assert_int_equal(predicted, stored);
        }
    }
    print_message("%d split forms x %d rounds\n", split_forms, ROUNDS);
    x86_decoder_free(d);
}

/* x86_cas_outcome from the registers before and the memory found: the
 * CPU's ZF says whether it stored, and what it stored is `desired`. */
static void cas_outcome_is_what_the_cpu_did(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    int cas_forms = 0;
    for (size_t k = 0; k < N_CASES; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode_case(d, c, &insn);
        struct x86_cas cas;
        struct user_regs_struct r = regs_of(&(struct cpu){0}, c);
        if (!(c->attrs & CAS)) {
            assert_false(x86_cas_outcome(&insn, &r, 0, &cas));
            continue;
        }
        cas_forms++;
        unsigned size = insn.mem[0].size;
        uint64_t m = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
        for (int round = 0; round < ROUNDS; round++) {
            struct input in, cpu;
            random_input(c, round, &in);
            r = regs_of(&in.cpu, c);
            uint64_t addr, found = 0;
            bool write;
            assert_true(x86_emulated_access(&insn, &r, &addr, &size, &write));
            memcpy(&found, in.memory + (addr - (uint64_t)(uintptr_t)xe_buffer), size);
            run_native(c, &in, &cpu);
            assert_true(x86_cas_outcome(&insn, &r, found, &cas));
            assert_int_equal(cas.size, size);
            assert_int_equal(cas.expected, in.cpu.rax & m);
            assert_int_equal(cas.found, found);
            assert_int_equal(cas.desired, in.cpu.rsi & m);
            assert_int_equal(cas.stored, (cpu.cpu.flags & 0x40) != 0);
            uint64_t after = 0;
            memcpy(&after, cpu.memory + (addr - (uint64_t)(uintptr_t)xe_buffer), size);
            assert_int_equal(after, cas.stored ? cas.desired : found);
        }
    }
    assert_true(cas_forms >= 9);
    x86_decoder_free(d);
}

/* ---- refusals --------------------------------------------------------------- */

static bool no_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    return false;
}

static bool read_only(void *ctx, uint64_t addr, void *buf, size_t n)
{
    return read_mem(ctx, addr, buf, n);
}

static bool no_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    return false;
}

/* Memory it cannot reach: x86_emulate says no and changes nothing (the
 * CPU then runs the instruction, and faults as it should). */
static void unreachable_memory_changes_nothing(void **unused)
{
    x86_decoder *d = x86_decoder_new();
    const struct x86_memory unreadable = {no_read, no_write, NULL};
    const struct x86_memory unwritable = {read_only, no_write, NULL};
    for (size_t k = 0; k < N_CASES; k++) {
        const struct case_def *c = &cases[k];
        struct x86_insn insn;
        decode_case(d, c, &insn);
        struct input in;
        random_input(c, 1, &in);
        memcpy(xe_buffer, in.memory, BUFFER);
        struct user_regs_struct r = regs_of(&in.cpu, c), before = r;
        uint64_t addr, old;
        unsigned size;
        bool write;
        if (!x86_emulated_access(&insn, &r, &addr, &size, &write))
            continue;       /* registers only: nothing to refuse */
        assert_false(x86_emulate(&insn, &r, &unreadable));
        assert_memory_equal(&r, &before, sizeof r);
        if (write) {
            assert_false(x86_emulate(&insn, &r, &unwritable));
            assert_memory_equal(&r, &before, sizeof r);
        }
        if (x86_is_split_rmw(&insn)) {
            assert_false(x86_rmw_load(&insn, &r, &unreadable, &old));
            assert_false(x86_rmw_store(&insn, &r, &unwritable, 0));
            assert_memory_equal(&r, &before, sizeof r);
        }
        assert_memory_equal(xe_buffer, in.memory, BUFFER);
    }
    x86_decoder_free(d);
}

/* A LOCK prefix where the CPU does not allow one raises #UD, and atomic
 * forms mdat's C code does not carry out must stay atomic: left to the
 * CPU. Forms with registers beyond user_regs_struct, or implicit ones, are
 * run natively in mdat (test_arch_x86_native.c): those that use vector
 * registers or MXCSR need the thread's, and without them x86_emulate says
 * no; integer ones (rcl, shld, mul) need none. */
static void invalid_lock_and_other_registers_are_not_emulated(void **unused)
{
    static const uint8_t lock_cmp[] = {0xf0, 0x39, 0x37};         /* lock cmp [rdi], esi */
    static const uint8_t lock_add_reg[] = {0xf0, 0x03, 0x37};     /* lock add esi, [rdi] */
    static const uint8_t lock_bt[] = {0xf0, 0x0f, 0xa3, 0x37};    /* lock bt [rdi], esi */
    static const uint8_t lock_mov[] = {0xf0, 0x89, 0x37};         /* lock mov [rdi], esi */
    static const uint8_t lock_inc_reg[] = {0xf0, 0xff, 0xc6};     /* lock inc esi */
    static const uint8_t cmpxchg16b[] = {0xf0, 0x48, 0x0f, 0xc7, 0x0f}; /* lock cmpxchg16b [rdi] */
    static const uint8_t lock_shl[] = {0xf0, 0xd1, 0x27};         /* lock shl dword ptr [rdi], 1 */
    static const uint8_t call_far[] = {0xff, 0x1f};               /* call far [rdi] (lcall) */
    static const uint8_t std[] = {0xfd};                          /* std: the direction flag */
    static const uint8_t rdtsc[] = {0x0f, 0x31};                  /* rdtsc: time */
    static const uint8_t push_m[] = {0xff, 0x37};                 /* push qword ptr [rdi]: two accesses */
    static const uint8_t movsb[] = {0xa4};                        /* movsb */
    static const struct { const uint8_t *bytes; size_t n; } refused[] = {
        {lock_cmp, sizeof lock_cmp}, {lock_add_reg, sizeof lock_add_reg}, {lock_bt, sizeof lock_bt},
        {lock_mov, sizeof lock_mov}, {lock_inc_reg, sizeof lock_inc_reg}, {cmpxchg16b, sizeof cmpxchg16b},
        {lock_shl, sizeof lock_shl}, {call_far, sizeof call_far}, {std, sizeof std}, {rdtsc, sizeof rdtsc},
        {push_m, sizeof push_m}, {movsb, sizeof movsb},
    };
    static const uint8_t add_xmm[] = {0xf2, 0x0f, 0x58, 0x07};    /* addsd xmm0, [rdi] */
    static const uint8_t rcl_mem[] = {0xd1, 0x17};                /* rcl dword ptr [rdi], 1 */
    static const uint8_t shld_mem[] = {0x0f, 0xa4, 0x37, 0x03};   /* shld dword ptr [rdi], esi, 3 */
    static const uint8_t mul_mem[] = {0xf7, 0x27};                /* mul dword ptr [rdi] */
    static const struct { const uint8_t *bytes; size_t n; bool vector; } native[] = {
        {add_xmm, sizeof add_xmm, true}, {rcl_mem, sizeof rcl_mem, false}, {shld_mem, sizeof shld_mem, false},
        {mul_mem, sizeof mul_mem, false},
    };
    uint32_t operand = 0x80000001u;
    x86_decoder *d = x86_decoder_new();
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        struct x86_insn insn;
        if (!x86_decode(d, refused[i].bytes, refused[i].n, 0x1000, &insn))
            continue;   /* the decoder may reject the invalid ones itself: also fine */
        if (insn.emulation != X86_EMU_NONE)
            fail_msg("%s: emulated, should be left to the CPU", insn.text);
        struct user_regs_struct r = {0};
        assert_false(x86_emulate(&insn, &r, &test_memory));
    }
    for (size_t i = 0; i < sizeof native / sizeof native[0]; i++) {
        struct x86_insn insn;
        assert_true(x86_decode(d, native[i].bytes, native[i].n, 0x1000, &insn));
        if (insn.emulation != X86_EMU_NATIVE)
            fail_msg("%s: not run natively", insn.text);
        /* test_memory has no vector registers: what needs them is left to
         * the CPU; integer ones run without (test_arch_x86_native checks
         * what they compute) */
        struct user_regs_struct r = {.rdi = (uint64_t)(uintptr_t)&operand, .rsi = 7};
        if (x86_emulate(&insn, &r, &test_memory) != !native[i].vector)
            fail_msg("%s: %s", insn.text, native[i].vector ? "carried out without vector registers" : "refused");
    }
    x86_decoder_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_form_matches_the_cpu),
        cmocka_unit_test(split_rmw_is_the_hardware_load_then_store),
        cmocka_unit_test(cas_outcome_is_what_the_cpu_did),
        cmocka_unit_test(unreachable_memory_changes_nothing),
        cmocka_unit_test(invalid_lock_and_other_registers_are_not_emulated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
