/* Unit tests for arch/x86_native.c and arch/x86_xsave.c: instructions mdat
 * carries out by running them itself, the CPU the oracle. Each case is one
 * instruction, assembled by GNU as into this test (FORMS below, with a
 * label after it, then ret): what gcc -O2/-O3 emits for array loops and
 * what libc's memcpy, memset, strlen and their AVX2 and AVX-512 variants
 * run (SSE, AVX, AVX2, AVX-512 loads, stores, compares, arithmetic,
 * masks), floating point under random MXCSR rounding modes, and integer
 * instructions the C emulator leaves (bit counts, BMI, mul, shld). It
 * runs natively on random general, vector and mask registers, flags,
 * MXCSR and memory, and x86_emulate runs the same bytes (decoded with
 * x86_decode at the same address) on the same inputs: every register,
 * every flag, MXCSR and the 256 bytes of memory around the operand must
 * agree. Then the refusals: a misaligned aligned move, an instruction this
 * CPU lacks, a division by zero: x86_emulate says no and changes nothing,
 * so that the thread runs it and faults as it should. And the XSAVE layout
 * against a stopped child's registers through ptrace.
 *
 * Conventions of every case: memory operands are based on rdi (which
 * points 64 bytes into xn_buffer) or rip-relative into xn_buffer; rcx is
 * a small index (-8..8). Needs AVX-512 (F, BW, VL, DQ) for the vector
 * cases: skipped on a CPU without. */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/x86_insn.h"
#include "arch/x86_native.h"

/* The state a case runs in and leaves. */
struct vcpu {
    uint64_t gpr[16];           /* encoding order; [4] (rsp) unused */
    uint64_t flags;
    uint32_t mxcsr, pad;
    uint8_t filler[48];
    uint8_t zmm[32][64];
    uint64_t k[8];
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct vcpu, zmm) == 192, "layout the harness uses");
_Static_assert(offsetof(struct vcpu, k) == 2240, "layout the harness uses");

/* xn_run_case(vcpu, fn): loads every register but rsp, the flags, MXCSR,
 * zmm0-31 and k0-7 from vcpu, calls fn (one instruction and ret), stores
 * them back. */
#define Z16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define Z32(M) Z16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define K8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define LZ(i) "  vmovdqu64 192+64*" #i "(%rdi), %zmm" #i "\n"
#define SZ(i) "  vmovdqu64 %zmm" #i ", 192+64*" #i "(%rdi)\n"
#define LK(i) "  kmovq 2240+8*" #i "(%rdi), %k" #i "\n"
#define SK(i) "  kmovq %k" #i ", 2240+8*" #i "(%rdi)\n"
__asm__(".pushsection .text\n"
        ".globl xn_run_case\n"
        "xn_run_case:\n"
        "  push %rbx\n  push %rbp\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"
        "  sub $8, %rsp\n  stmxcsr (%rsp)\n"
        "  push %rdi\n  push %rsi\n"
        Z32(LZ) K8(LK)
        "  ldmxcsr 136(%rdi)\n"
        "  pushq 128(%rdi)\n  popfq\n"
        "  mov 0(%rdi), %rax\n  mov 8(%rdi), %rcx\n  mov 16(%rdi), %rdx\n  mov 24(%rdi), %rbx\n"
        "  mov 40(%rdi), %rbp\n  mov 48(%rdi), %rsi\n  mov 64(%rdi), %r8\n  mov 72(%rdi), %r9\n"
        "  mov 80(%rdi), %r10\n  mov 88(%rdi), %r11\n  mov 96(%rdi), %r12\n  mov 104(%rdi), %r13\n"
        "  mov 112(%rdi), %r14\n  mov 120(%rdi), %r15\n  mov 56(%rdi), %rdi\n"
        "  call *(%rsp)\n"
        "  pushfq\n  push %rdi\n  mov 24(%rsp), %rdi\n"
        "  mov %rax, 0(%rdi)\n  mov %rcx, 8(%rdi)\n  mov %rdx, 16(%rdi)\n  mov %rbx, 24(%rdi)\n"
        "  mov %rbp, 40(%rdi)\n  mov %rsi, 48(%rdi)\n  mov %r8, 64(%rdi)\n  mov %r9, 72(%rdi)\n"
        "  mov %r10, 80(%rdi)\n  mov %r11, 88(%rdi)\n  mov %r12, 96(%rdi)\n  mov %r13, 104(%rdi)\n"
        "  mov %r14, 112(%rdi)\n  mov %r15, 120(%rdi)\n"
        "  popq 56(%rdi)\n  popq 128(%rdi)\n"
        "  stmxcsr 136(%rdi)\n"
        Z32(SZ) K8(SK)
        "  add $16, %rsp\n  ldmxcsr (%rsp)\n  add $8, %rsp\n"
        "  vzeroupper\n"
        "  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbp\n  pop %rbx\n"
        "  ret\n"
        ".popsection\n");
void xn_run_case(struct vcpu *cpu, void (*fn)(void));

enum { BUFFER = 256, OPERAND_AT = 64 };
uint8_t xn_buffer[BUFFER] __attribute__((aligned(64)));

/* ---- the forms ------------------------------------------------------------ */

/* What a case needs of the CPU beyond AVX-512 F/BW/VL/DQ, and how it is fed. */
enum {
    PLAIN = 0,
    BMI = 1 << 0,       /* BMI1, BMI2, LZCNT */
    FP = 1 << 1,        /* floating point: random MXCSR rounding, FP-looking data */
    MASKED = 1 << 2,    /* reads k1 as a mask */
    INT = 1 << 3,       /* integer only: run without the vector registers */
};

#define SSE_FORMS(X)                                                                                  \
    X(movdqu_load, "movdqu (%rdi), %xmm0", PLAIN) X(movdqu_store, "movdqu %xmm3, (%rdi)", PLAIN)      \
    X(movdqa_load, "movdqa (%rdi), %xmm1", PLAIN) X(movdqa_store, "movdqa %xmm2, (%rdi)", PLAIN)      \
    X(movups_load, "movups 8(%rdi,%rcx,4), %xmm4", PLAIN) X(movups_store, "movups %xmm5, -16(%rdi)", PLAIN) \
    X(movaps_store, "movaps %xmm6, 16(%rdi)", PLAIN) X(movq_load, "movq (%rdi), %xmm7", PLAIN)        \
    X(movq_store, "movq %xmm8, (%rdi)", PLAIN) X(movd_load, "movd (%rdi), %xmm9", PLAIN)              \
    X(movd_store, "movd %xmm10, 4(%rdi)", PLAIN) X(movq_gpr, "movq %xmm11, %rax", PLAIN)              \
    X(movd_to_xmm, "movd %esi, %xmm12", PLAIN) X(movhps_store, "movhps %xmm13, (%rdi)", PLAIN)        \
    X(movlpd_load, "movlpd (%rdi), %xmm14", PLAIN) X(movntdq_store, "movntdq %xmm15, (%rdi)", PLAIN)  \
    X(pxor_m, "pxor (%rdi), %xmm0", PLAIN) X(pxor_self, "pxor %xmm1, %xmm1", PLAIN)                   \
    X(paddd_m, "paddd (%rdi), %xmm1", PLAIN) X(psubq_m, "psubq 16(%rdi), %xmm2", PLAIN)               \
    X(pcmpeqb_m, "pcmpeqb (%rdi), %xmm3", PLAIN) X(pminub_m, "pminub (%rdi), %xmm4", PLAIN)           \
    X(pmovmskb, "pmovmskb %xmm3, %eax", PLAIN) X(por_m, "por (%rdi), %xmm5", PLAIN)                   \
    X(pand_m, "pand (%rdi), %xmm6", PLAIN) X(pshufb_m, "pshufb (%rdi), %xmm7", PLAIN)                 \
    X(pmulld_m, "pmulld (%rdi), %xmm8", PLAIN) X(punpcklbw, "punpcklbw %xmm1, %xmm2", PLAIN)          \
    X(pshufd_m, "pshufd $0x1b, (%rdi), %xmm9", PLAIN) X(ptest_m, "ptest (%rdi), %xmm10", PLAIN)       \
    X(pcmpistri_m, "pcmpistri $0x3a, (%rdi), %xmm11", PLAIN) X(pinsrd_m, "pinsrd $2, (%rdi), %xmm12", PLAIN) \
    X(pextrq_m, "pextrq $1, %xmm13, (%rdi)", PLAIN) X(palignr, "palignr $5, (%rdi), %xmm14", PLAIN)

#define FP_FORMS(X)                                                                                   \
    X(addps_m, "addps (%rdi), %xmm0", FP) X(mulsd_m, "mulsd (%rdi), %xmm1", FP)                       \
    X(divss_m, "divss 4(%rdi), %xmm2", FP) X(sqrtsd_m, "sqrtsd (%rdi), %xmm3", FP)                    \
    X(movss_load, "movss (%rdi), %xmm4", FP) X(movsd_store, "movsd %xmm5, (%rdi)", FP)                \
    X(cvtsi2sd_m, "cvtsi2sdl (%rdi), %xmm6", FP) X(cvttsd2si_m, "cvttsd2si (%rdi), %eax", FP)         \
    X(cvtsd2si_m, "cvtsd2si (%rdi), %rax", FP)                                                        \
    X(ucomisd_m, "ucomisd (%rdi), %xmm7", FP) X(minpd_m, "minpd (%rdi), %xmm8", FP)                   \
    X(vaddpd_m, "vaddpd (%rdi), %ymm1, %ymm2", FP) X(vfmadd231ps_m, "vfmadd231ps (%rdi), %ymm3, %ymm4", FP) \
    X(vmulps_z, "vmulps (%rdi), %zmm5, %zmm6", FP) X(vaddps_bcst, "vaddps (%rdi){1to16}, %zmm7, %zmm8", FP) \
    X(vcvtps2pd_m, "vcvtps2pd (%rdi), %ymm9", FP) X(vdivsd_m, "vdivsd (%rdi), %xmm10, %xmm11", FP)    \
    X(vroundpd_m, "vroundpd $4, (%rdi), %ymm12", FP) X(vcomiss_m, "vcomiss (%rdi), %xmm13", FP)

#define AVX_FORMS(X)                                                                                  \
    X(vmovdqu_load, "vmovdqu (%rdi), %ymm0", PLAIN) X(vmovdqu_store, "vmovdqu %ymm1, (%rdi)", PLAIN)  \
    X(vmovdqa_load, "vmovdqa (%rdi), %ymm2", PLAIN) X(vmovdqa_store, "vmovdqa %ymm3, 32(%rdi)", PLAIN) \
    X(vmovups_x, "vmovups (%rdi), %xmm4", PLAIN) X(vmovdqu_idx, "vmovdqu 8(%rdi,%rcx,4), %ymm5", PLAIN) \
    X(vmovdqu_rip, "vmovdqu xn_buffer+48(%rip), %ymm6", PLAIN)                                        \
    X(vmovdqu_rip_store, "vmovdqu %ymm7, xn_buffer+72(%rip)", PLAIN)                                  \
    X(vpaddd_m, "vpaddd (%rdi), %ymm1, %ymm2", PLAIN) X(vpsubb_m, "vpsubb (%rdi), %ymm3, %ymm4", PLAIN) \
    X(vpcmpeqb_m, "vpcmpeqb (%rdi), %ymm0, %ymm1", PLAIN) X(vpmovmskb, "vpmovmskb %ymm1, %eax", PLAIN) \
    X(vpminub_m, "vpminub (%rdi), %ymm5, %ymm6", PLAIN) X(vpxor_self, "vpxor %xmm0, %xmm0, %xmm0", PLAIN) \
    X(vpor_m, "vpor (%rdi), %ymm7, %ymm8", PLAIN) X(vptest_m, "vptest (%rdi), %ymm9", PLAIN)          \
    X(vpbroadcastb_m, "vpbroadcastb (%rdi), %ymm10", PLAIN) X(vpbroadcastd_m, "vpbroadcastd (%rdi), %ymm11", PLAIN) \
    X(vpbroadcastq_r, "vpbroadcastq %xmm2, %ymm12", PLAIN) X(vextracti128_m, "vextracti128 $1, %ymm13, (%rdi)", PLAIN) \
    X(vinserti128_m, "vinserti128 $1, (%rdi), %ymm14, %ymm15", PLAIN)                                 \
    X(vpmaskmovd_load, "vpmaskmovd (%rdi), %ymm1, %ymm2", PLAIN)                                      \
    X(vpmaskmovd_store, "vpmaskmovd %ymm3, %ymm4, (%rdi)", PLAIN) X(vzeroupper, "vzeroupper", PLAIN)  \
    X(vpshufb_m, "vpshufb (%rdi), %ymm5, %ymm6", PLAIN) X(vpand_m, "vpand (%rdi), %ymm7, %ymm8", PLAIN) \
    X(vpermq_m, "vpermq $0x4e, (%rdi), %ymm9", PLAIN) X(vpmovzxbd_m, "vpmovzxbd (%rdi), %ymm10", PLAIN) \
    X(vmovd_gpr, "vmovd %xmm3, %eax", PLAIN) X(vpinsrq_m, "vpinsrq $1, (%rdi), %xmm1, %xmm2", PLAIN)

#define AVX512_FORMS(X)                                                                               \
    X(vmovdqu64_load, "vmovdqu64 (%rdi), %zmm0", PLAIN) X(vmovdqu64_store, "vmovdqu64 %zmm1, (%rdi)", PLAIN) \
    X(vmovdqa64_load, "vmovdqa64 (%rdi), %zmm2", PLAIN) X(vmovdqa64_store, "vmovdqa64 %zmm17, (%rdi)", PLAIN) \
    X(vmovdqu64_hi, "vmovdqu64 -8(%rdi), %zmm31", PLAIN) X(vmovdqu8_y, "vmovdqu8 (%rdi), %ymm20", PLAIN) \
    X(vmovdqu8_mask_store, "vmovdqu8 %zmm3, (%rdi){%k1}", MASKED)                                     \
    X(vmovdqu8_mask_load, "vmovdqu8 (%rdi), %zmm4{%k1}", MASKED)                                      \
    X(vmovdqu8_zero_load, "vmovdqu8 (%rdi), %zmm5{%k1}{z}", MASKED)                                   \
    X(vmovdqu32_mask_store, "vmovdqu32 %ymm6, 4(%rdi){%k2}", MASKED)                                  \
    X(vpaddd_z, "vpaddd (%rdi), %zmm1, %zmm2", PLAIN) X(vpaddq_bcst, "vpaddq (%rdi){1to8}, %zmm3, %zmm4", PLAIN) \
    X(vpcmpeqb_k, "vpcmpeqb (%rdi), %zmm16, %k1", PLAIN) X(vpcmpub_k, "vpcmpub $4, (%rdi), %zmm17, %k2", PLAIN) \
    X(vptestnmb_k, "vptestnmb (%rdi), %zmm18, %k3", PLAIN) X(kmovq_gpr, "kmovq %k1, %rax", PLAIN)     \
    X(kortestq, "kortestq %k1, %k2", PLAIN) X(kord, "kord %k1, %k2, %k3", PLAIN)                      \
    X(vpternlogd_m, "vpternlogd $0x96, (%rdi), %zmm19, %zmm20", PLAIN)                                \
    X(vpminub_z, "vpminub (%rdi), %zmm21, %zmm22", PLAIN) X(vpxorq_z, "vpxorq %zmm23, %zmm23, %zmm23", PLAIN) \
    X(vpbroadcastd_gpr, "vpbroadcastd %esi, %zmm24", PLAIN) X(vpcompressd_store, "vpcompressd %zmm25, (%rdi){%k1}", MASKED) \
    X(vpermt2d_m, "vpermt2d (%rdi), %zmm26, %zmm27", PLAIN) X(valignq_m, "valignq $3, (%rdi), %zmm28, %zmm29", PLAIN) \
    X(vpmovqd_store, "vpmovqd %zmm30, (%rdi)", PLAIN) X(vextracti64x2_m, "vextracti64x2 $2, %zmm1, (%rdi)", PLAIN) \
    X(vmovdqu64_mask_rip, "vmovdqu64 xn_buffer+64(%rip), %zmm7{%k2}{z}", MASKED)

#define INTEGER_FORMS(X)                                                                              \
    X(popcnt_m, "popcntl (%rdi), %eax", INT) X(tzcnt_m, "tzcntq (%rdi), %rax", BMI | INT)             \
    X(lzcnt_r, "lzcntl %esi, %eax", BMI | INT) X(bsf_m, "bsfl (%rdi), %edx", INT)                     \
    X(bswap, "bswap %rsi", INT) X(mul_m, "mull (%rdi)", INT) X(imul_1, "imulq (%rdi)", INT)           \
    X(shld_m, "shldl $3, %esi, (%rdi)", INT) X(rcl_m, "rcll (%rdi)", INT)                             \
    X(andn_m, "andnq (%rdi), %rsi, %rax", BMI | INT) X(shlx, "shlxq %rcx, %rsi, %rdx", BMI | INT)     \
    X(bzhi, "bzhil %ecx, (%rdi), %eax", BMI | INT) X(pdep, "pdepq (%rdi), %rsi, %r8", BMI | INT)      \
    X(crc32_m, "crc32l (%rdi), %esi", INT) X(movbe_load, "movbeq (%rdi), %r9", INT)                   \
    X(movbe_store, "movbel %esi, (%rdi)", INT) X(adcx, "adcxq (%rdi), %r10", INT)                     \
    X(sahf, "sahf", INT)

#define FORMS(X) SSE_FORMS(X) FP_FORMS(X) AVX_FORMS(X) AVX512_FORMS(X) INTEGER_FORMS(X)

#define DEFINE_CASE(name, text, attrs)                                                                \
    __asm__(".pushsection .text\n.globl xn_" #name "\nxn_" #name ":\n  " text "\n.globl xn_" #name    \
            "_end\nxn_" #name "_end:\n  ret\n.popsection\n");                                         \
    extern char xn_##name[], xn_##name##_end[];
FORMS(DEFINE_CASE)

struct case_def {
    const char *name, *text;
    char *start, *end;
    unsigned attrs;
};

#define CASE_ENTRY(name, text, attrs) {#name, text, xn_##name, xn_##name##_end, attrs},
static const struct case_def cases[] = {FORMS(CASE_ENTRY)};
enum { N_CASES = sizeof cases / sizeof cases[0], ROUNDS = 300 };

/* ---- the CPU ----------------------------------------------------------------- */

static bool has_avx512(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (b & bit_AVX512BW) &&
           (b & bit_AVX512VL) && (b & bit_AVX512DQ);
}

static bool has_bmi(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_BMI) && (b & bit_BMI2);
}

static bool has_avx512fp16(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 23));
}

/* ---- inputs ---------------------------------------------------------------- */

enum { ARITH_FLAGS = 0x8d5 };

static uint64_t lcg_state = 4242;
static uint64_t rnd(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = lcg_state ^ (lcg_state >> 29);
    switch (x & 7) {
    case 0: return 0;
    case 1: return (x >> 8) & 0xff;
    case 2: return ~0ull;
    case 3: return 0x80ull << ((x >> 8) & 0x38);
    default: return x * 0x9e3779b97f4a7c15ull;
    }
}

/* Doubles and floats that are numbers, with zeros, infinities and NaNs now and then. */
static uint64_t rnd_fp(void)
{
    uint64_t x = rnd();
    switch (x % 11) {
    case 0: return 0;
    case 1: return 0x7ff0000000000000ull;
    case 2: return 0x7ff8000000000001ull;
    case 3: return 0x3f8000003f800000ull;    /* 1.0f, 1.0f */
    default: return (x & 0x800fffffffffffffull) | ((0x3c0ull + (x >> 52) % 0x80) << 52) |
                    ((0x3c0ull + (x >> 20) % 0x80) << 20);
    }
}

struct input {
    struct vcpu cpu;
    uint8_t memory[BUFFER];
};

static void random_input(const struct case_def *c, struct input *in)
{
    memset(in, 0, sizeof *in);
    uint64_t (*value)(void) = (c->attrs & FP) ? rnd_fp : rnd;
    for (size_t i = 0; i < BUFFER; i += 8) {
        uint64_t v = value();
        memcpy(in->memory + i, &v, 8);
    }
    for (int r = 0; r < 32; r++)
        for (int i = 0; i < 64; i += 8) {
            uint64_t v = value();
            memcpy(&in->cpu.zmm[r][i], &v, 8);
        }
    for (int i = 0; i < 8; i++)
        in->cpu.k[i] = rnd();
    for (int i = 0; i < 16; i++)
        in->cpu.gpr[i] = rnd();
    in->cpu.gpr[1] = (uint64_t)(int64_t)((int)(rnd() % 17) - 8);      /* rcx: an index */
    in->cpu.gpr[4] = 0;
    in->cpu.gpr[7] = (uint64_t)(uintptr_t)(xn_buffer + OPERAND_AT);   /* rdi */
    in->cpu.flags = 0x202 | (rnd() & ARITH_FLAGS);
    /* Every exception masked; FP cases get a random rounding mode, DAZ and FTZ. */
    in->cpu.mxcsr = 0x1f80 | (uint32_t)(rnd() & 0x3f);
    if (c->attrs & FP)
        in->cpu.mxcsr |= (uint32_t)(rnd() & 0x8040) | (uint32_t)(rnd() & 0x6000);
}

static void run_native(const struct case_def *c, const struct input *in, struct input *out)
{
    *out = *in;
    memcpy(xn_buffer, in->memory, BUFFER);
    xn_run_case(&out->cpu, (void (*)(void))(uintptr_t)c->start);
    memcpy(out->memory, xn_buffer, BUFFER);
}

/* ---- the emulator's side ------------------------------------------------- */

static struct x86_vector_regs emulated_vregs;
static int vregs_changed, vregs_fetched;

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

static struct x86_vector_regs *fetch_vregs(void *ctx)
{
    vregs_fetched++;
    return &emulated_vregs;
}

static void note_vregs_changed(void *ctx)
{
    vregs_changed++;
}

static const struct x86_memory test_memory = {read_mem, write_mem, NULL, fetch_vregs, note_vregs_changed};

static unsigned long long *gpr_field(struct user_regs_struct *r, int n)
{
    unsigned long long *fields[16] = {&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                                      &r->r8,  &r->r9,  &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15};
    return fields[n];
}

static void load_emulator(const struct case_def *c, const struct vcpu *cpu, struct user_regs_struct *r)
{
    memset(r, 0, sizeof *r);
    for (int n = 0; n < 16; n++)
        *gpr_field(r, n) = cpu->gpr[n];
    r->rsp = 0x7ff000;
    r->eflags = cpu->flags;
    r->rip = (uint64_t)(uintptr_t)c->start;
    memcpy(emulated_vregs.zmm, cpu->zmm, sizeof emulated_vregs.zmm);
    memcpy(emulated_vregs.k, cpu->k, sizeof emulated_vregs.k);
    emulated_vregs.mxcsr = cpu->mxcsr;
}

static void decode_case(x86_decoder *d, const struct case_def *c, struct x86_insn *insn)
{
    size_t len = (size_t)(c->end - c->start);
    if (!x86_decode(d, (const uint8_t *)c->start, len, (uint64_t)(uintptr_t)c->start, insn))
        fail_msg("%s: does not decode", c->name);
    if (insn->length != len)
        fail_msg("%s: decoded %u bytes of %zu", c->name, insn->length, len);
    if (insn->emulation != X86_EMU_NATIVE)
        fail_msg("%s: not run natively (%s, emulation %d)", c->name, insn->text, insn->emulation);
}

static void assert_same(const struct case_def *c, const struct input *in, const struct input *cpu,
                        const struct user_regs_struct *r)
{
    const struct vcpu *n = &cpu->cpu;
    for (int g = 0; g < 16; g++)
        if (g != 4 && *gpr_field((struct user_regs_struct *)r, g) != n->gpr[g])
            fail_msg("%s: general register %d: cpu %#lx, emulator %#llx", c->name, g, n->gpr[g],
                     *gpr_field((struct user_regs_struct *)r, g));
    if ((r->eflags & ARITH_FLAGS) != (n->flags & ARITH_FLAGS))
        fail_msg("%s: flags: cpu %#lx, emulator %#llx", c->name, n->flags & ARITH_FLAGS, r->eflags & ARITH_FLAGS);
    if (r->rip != (uint64_t)(uintptr_t)c->end)
        fail_msg("%s: rip not past the instruction", c->name);
    if (emulated_vregs.mxcsr != n->mxcsr)
        fail_msg("%s: mxcsr: cpu %#x, emulator %#x (before %#x)", c->name, n->mxcsr, emulated_vregs.mxcsr,
                 in->cpu.mxcsr);
    for (int v = 0; v < 32; v++)
        if (memcmp(emulated_vregs.zmm[v], n->zmm[v], 64) != 0)
            fail_msg("%s: zmm%d differs", c->name, v);
    if (memcmp(emulated_vregs.k, n->k, sizeof n->k) != 0)
        fail_msg("%s: a mask register differs", c->name);
    if (memcmp(xn_buffer, cpu->memory, BUFFER) != 0)
        fail_msg("%s: memory differs", c->name);
}

/* Every byte the CPU changed lies in the access x86_emulated_access names. */
static void assert_access_covers_changes(const struct case_def *c, const struct x86_insn *insn, const struct input *in,
                                         const struct input *cpu, const struct user_regs_struct *r)
{
    uint64_t addr = 0;
    unsigned size = 0;
    bool write = false;
    bool touches = x86_emulated_access(insn, r, &addr, &size, &write);
    for (size_t i = 0; i < BUFFER; i++) {
        if (in->memory[i] == cpu->memory[i])
            continue;
        uint64_t at = (uint64_t)(uintptr_t)(xn_buffer + i);
        if (!touches || !write || at < addr || at >= addr + size)
            fail_msg("%s: the CPU changed byte %zu, outside the access the emulator reports", c->name, i);
    }
}

/* ---- tests ---------------------------------------------------------------- */

static void every_form_matches_the_cpu(void **unused)
{
    if (!has_avx512())
        skip();
    bool bmi = has_bmi();
    x86_native_claim_fault_signals();   /* cmocka installs its own for each test */
    x86_decoder *d = x86_decoder_new();
    int forms = 0;
    for (size_t k = 0; k < N_CASES; k++) {
        const struct case_def *c = &cases[k];
        if ((c->attrs & BMI) && !bmi)
            continue;
        struct x86_insn insn;
        decode_case(d, c, &insn);
        if ((insn.vector_use == X86_VECTOR_UNUSED) != !!(c->attrs & INT))
            fail_msg("%s (%s): vector registers %s", c->name, insn.text,
                     insn.vector_use == X86_VECTOR_UNUSED ? "unused" : "used");
        forms++;
        for (int round = 0; round < ROUNDS; round++) {
            struct input in, cpu;
            random_input(c, &in);
            run_native(c, &in, &cpu);
            memcpy(xn_buffer, in.memory, BUFFER);
            struct user_regs_struct r;
            load_emulator(c, &in.cpu, &r);
            assert_access_covers_changes(c, &insn, &in, &cpu, &r);
            vregs_fetched = vregs_changed = 0;
            if (!x86_emulate(&insn, &r, &test_memory))
                fail_msg("%s (%s): x86_emulate refused", c->name, insn.text);
            assert_same(c, &in, &cpu, &r);
            /* what changed is written back; an integer one fetches nothing */
            bool vector_changed = memcmp(in.cpu.zmm, cpu.cpu.zmm, sizeof in.cpu.zmm) != 0 ||
                                  memcmp(in.cpu.k, cpu.cpu.k, sizeof in.cpu.k) != 0 || in.cpu.mxcsr != cpu.cpu.mxcsr;
            if (vector_changed && !vregs_changed)
                fail_msg("%s: vector registers changed, not said so", c->name);
            if ((c->attrs & INT) && vregs_fetched)
                fail_msg("%s: vector registers fetched for an integer instruction", c->name);
        }
    }
    print_message("%d forms x %d random inputs each\n", forms, ROUNDS);
    x86_decoder_free(d);
}

static bool no_vregs_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    return false;
}

static bool no_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    return false;
}

/* x86_emulate says no and changes nothing: registers, vector registers,
 * memory. */
static void assert_refused(x86_decoder *d, const uint8_t *bytes, size_t n, struct user_regs_struct *r,
                           const struct x86_memory *mem, const char *what)
{
    struct x86_insn insn;
    assert_true(x86_decode(d, bytes, n, (uint64_t)(uintptr_t)bytes, &insn));
    struct user_regs_struct before = *r;
    struct x86_vector_regs vbefore = emulated_vregs;
    uint8_t mbefore[BUFFER];
    memcpy(mbefore, xn_buffer, BUFFER);
    vregs_changed = 0;
    if (x86_emulate(&insn, r, mem))
        fail_msg("%s (%s): carried out", what, insn.text);
    assert_memory_equal(r, &before, sizeof *r);
    assert_memory_equal(&emulated_vregs, &vbefore, sizeof vbefore);
    assert_memory_equal(xn_buffer, mbefore, BUFFER);
    assert_int_equal(vregs_changed, 0);
}

/* What would fault in the program is refused, not faulted on in mdat: an
 * aligned move from a misaligned address, an instruction this CPU lacks
 * (AVX512-FP16's vmovw here unless the CPU has it), a division by zero,
 * an unmasked floating-point exception; and memory it cannot read. */
static void faults_are_left_to_the_cpu(void **unused)
{
    if (!has_avx512())
        skip();
    x86_native_claim_fault_signals();
    x86_decoder *d = x86_decoder_new();
    static const uint8_t movdqa[] = {0x66, 0x0f, 0x6f, 0x07};           /* movdqa xmm0, [rdi] */
    static const uint8_t vmovdqa64[] = {0x62, 0xf1, 0xfd, 0x48, 0x6f, 0x07}; /* vmovdqa64 zmm0, [rdi] */
    static const uint8_t vmovw[] = {0x62, 0xf5, 0x7d, 0x08, 0x6e, 0x07};     /* vmovw xmm0, [rdi] */
    static const uint8_t div[] = {0xf7, 0x37};                          /* div dword ptr [rdi] */
    static const uint8_t divss[] = {0xf3, 0x0f, 0x5e, 0x07};            /* divss xmm0, [rdi] */
    struct user_regs_struct r;
    struct input in;
    random_input(&cases[0], &in);
    load_emulator(&cases[0], &in.cpu, &r);
    memset(xn_buffer, 0, BUFFER);
    r.rdi = (uint64_t)(uintptr_t)(xn_buffer + OPERAND_AT + 8);
    assert_refused(d, movdqa, sizeof movdqa, &r, &test_memory, "misaligned movdqa");
    assert_refused(d, vmovdqa64, sizeof vmovdqa64, &r, &test_memory, "misaligned vmovdqa64");
    r.rdi = (uint64_t)(uintptr_t)(xn_buffer + OPERAND_AT);
    r.rdx = 1;
    assert_refused(d, div, sizeof div, &r, &test_memory, "division by zero");
    static const float one = 1.0f;              /* not 0/0: that is invalid, masked */
    memcpy(emulated_vregs.zmm[0], &one, sizeof one);
    emulated_vregs.mxcsr = 0x1f80 & ~0x200u;    /* divide-by-zero unmasked */
    assert_refused(d, divss, sizeof divss, &r, &test_memory, "an unmasked FP exception");
    emulated_vregs.mxcsr = 0x1f80;
    if (!has_avx512fp16())
        assert_refused(d, vmovw, sizeof vmovw, &r, &test_memory, "an instruction this CPU lacks");
    const struct x86_memory unreadable = {no_vregs_read, write_mem, NULL, fetch_vregs, note_vregs_changed};
    static const uint8_t vmovdqu[] = {0xc5, 0xfe, 0x6f, 0x07};         /* vmovdqu ymm0, [rdi] */
    assert_refused(d, vmovdqu, sizeof vmovdqu, &r, &unreadable, "unreadable memory");
    const struct x86_memory no_vregs = {read_mem, write_mem, NULL, NULL, NULL};
    assert_refused(d, vmovdqu, sizeof vmovdqu, &r, &no_vregs, "no vector registers");
    /* A store that cannot be written: refused after the CPU ran it, with
     * the registers as they were (vmovdqu64 zmm1{k1}... stores only). */
    const struct x86_memory unwritable = {read_mem, no_write, NULL, fetch_vregs, note_vregs_changed};
    static const uint8_t vmovdqu_store[] = {0xc5, 0xfe, 0x7f, 0x07};   /* vmovdqu [rdi], ymm0 */
    static const uint8_t vpextrq_store[] = {0xc4, 0xe3, 0xf9, 0x16, 0x0f, 0x01}; /* vpextrq [rdi], xmm1, 1 */
    static const uint8_t shld_store[] = {0x0f, 0xa4, 0x37, 0x03};      /* shld [rdi], esi, 3 */
    assert_refused(d, vmovdqu_store, sizeof vmovdqu_store, &r, &unwritable, "an unwritable vector store");
    assert_refused(d, vpextrq_store, sizeof vpextrq_store, &r, &unwritable, "an unwritable extract");
    assert_refused(d, shld_store, sizeof shld_store, &r, &unwritable, "an unwritable integer store");
    /* And after all that, mdat's own state is its own: a faulting run
     * leaves the next one right. */
    random_input(&cases[0], &in);
    struct input cpu;
    run_native(&cases[0], &in, &cpu);
    memcpy(xn_buffer, in.memory, BUFFER);
    load_emulator(&cases[0], &in.cpu, &r);
    struct x86_insn insn;
    decode_case(d, &cases[0], &insn);
    assert_true(x86_emulate(&insn, &r, &test_memory));
    assert_same(&cases[0], &in, &cpu, &r);
    x86_decoder_free(d);
}

/* ---- the XSAVE layout against the kernel's ---------------------------------- */

/* The child sets zmm registers, k registers and MXCSR to known values and
 * stops; the parent reads them through PTRACE_GETREGSET, checks them,
 * changes them through PTRACE_SETREGSET; the child checks it sees the
 * change (its exit status). */
static const uint64_t pattern_base = 0x0123456789abcdefull;

struct vcpu xn_child_state;

static void child_registers(void)
{
    struct vcpu *const p = &xn_child_state;
#define c (*p)
    for (int r = 0; r < 32; r++)
        for (int i = 0; i < 8; i++) {
            uint64_t v = pattern_base * (uint64_t)(r + 1) + (uint64_t)i;
            memcpy(&c.zmm[r][i * 8], &v, 8);
        }
    for (int i = 0; i < 8; i++)
        c.k[i] = pattern_base + (uint64_t)i;
    c.mxcsr = 0x1f80 | 0x6000;      /* round toward zero */
    __asm__ volatile("ldmxcsr %0" ::"m"(c.mxcsr));
    /* Basic asm (no operands): every register it touches is the child's to lose. */
    __asm__ volatile("  lea xn_child_state(%rip), %rdi\n" Z32(LZ) K8(LK)
                     "  mov $39, %eax\n  syscall\n  mov %eax, %edi\n  mov $19, %esi\n"
                     "  mov $62, %eax\n  syscall\n  lea xn_child_state(%rip), %rdi\n" Z32(SZ) K8(SK));
    __asm__ volatile("stmxcsr %0" : "=m"(c.mxcsr));
    /* The parent added 1 to every byte of zmm5 and to k3, and set MXCSR's rounding to nearest. */
    for (int i = 0; i < 8; i++) {
        uint64_t v, want = pattern_base * 6 + (uint64_t)i;
        memcpy(&v, &c.zmm[5][i * 8], 8);
        want += 0x0101010101010101ull;
        if (v != want)
            _exit(10);
    }
    if (c.k[3] != pattern_base + 4 || (c.mxcsr & 0x6000) != 0)
        _exit(11);
    _exit(0);
#undef c
}

static void xsave_layout_is_the_kernels(void **unused)
{
    if (!has_avx512())
        skip();
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        child_registers();
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
    static uint8_t area[16384] __attribute__((aligned(64)));
    struct iovec iov = {area, sizeof area};
    assert_int_equal(ptrace(PTRACE_GETREGSET, child, (void *)NT_X86_XSTATE, &iov), 0);
    struct x86_vector_regs v;
    assert_true(x86_vector_regs_from_xsave(area, iov.iov_len, &v));
    for (int r = 0; r < 32; r++)
        for (int i = 0; i < 8; i++) {
            uint64_t got, want = pattern_base * (uint64_t)(r + 1) + (uint64_t)i;
            memcpy(&got, &v.zmm[r][i * 8], 8);
            if (got != want)
                fail_msg("zmm%d, quadword %d: %#lx, not %#lx", r, i, got, want);
        }
    for (int i = 0; i < 8; i++)
        assert_int_equal(v.k[i], pattern_base + (uint64_t)i);
    assert_int_equal(v.mxcsr & 0x6000, 0x6000);
    for (int i = 0; i < 64; i++)
        v.zmm[5][i]++;
    v.k[3]++;
    v.mxcsr &= ~0x6000u;
    assert_true(x86_vector_regs_to_xsave(&v, area, iov.iov_len));
    assert_int_equal(ptrace(PTRACE_SETREGSET, child, (void *)NT_X86_XSTATE, &iov), 0);
    assert_int_equal(ptrace(PTRACE_CONT, child, 0, 0), 0);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_form_matches_the_cpu),
        cmocka_unit_test(faults_are_left_to_the_cpu),
        cmocka_unit_test(xsave_layout_is_the_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
