/* x86_native: running one instruction of the program in mdat, on copies
 * of its registers and memory (see arch/x86_native.h).
 *
 * A translation is the instruction re-encoded with its memory operand
 * (if any) turned into [scratch], scratch being a general register the
 * instruction does not use, followed by ret. An entry routine (below)
 * loads every general register but rsp and the flags from a frame, calls
 * the translation and stores them back; scratch points into the frame's
 * data, at the same offset within 64 bytes as the program's address, so
 * that an alignment check faults where the program's would. For an
 * instruction that uses them, it also loads MXCSR (through the frame) and
 * every vector and mask register the CPU has, straight from the thread's
 * struct x86_vector_regs, and stores the vector and mask registers back
 * there only if the instruction may change them: no 2 KB copied in and
 * compared per instruction, and integer instructions (bit counts, BMI,
 * mul) do not make the engine fetch the thread's vector registers at all.
 * Every vector and mask register is the caller's to clobber in the SysV
 * ABI, so mdat's own need not be kept; its MXCSR is put back.
 *
 * A fault in the translation (an instruction this CPU lacks, a misaligned
 * aligned move, a division by zero, an unmasked floating-point exception)
 * is caught by a handler installed on first use and ends the run as not
 * done; anything else that faults goes to the handler that was there
 * before. Translations live for the process: a batch runs the same code. */
#include "arch/x86_native.h"
#include "arch/x86_regs.h"

#include <cpuid.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- the frame and the entry routines ------------------------------------- */

enum { DATA_BYTES = 128 };

/* The general registers, flags and MXCSR are copied in and out; the
 * vector and mask registers are loaded from, and perhaps stored into, the
 * thread's own struct x86_vector_regs (vregs; NULL for an instruction
 * that does not use them). */
struct native_frame {
    uint64_t gpr[16];           /* encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8 .. r15 */
    uint64_t rflags;
    uint64_t code;              /* the translation */
    uint32_t mxcsr, host_mxcsr;
    struct x86_vector_regs *vregs;
    uint8_t data[DATA_BYTES] __attribute__((aligned(64)));
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct native_frame, rflags) == 128, "frame layout");
_Static_assert(offsetof(struct native_frame, code) == 136, "frame layout");
_Static_assert(offsetof(struct native_frame, mxcsr) == 144, "frame layout");
_Static_assert(offsetof(struct native_frame, host_mxcsr) == 148, "frame layout");
_Static_assert(offsetof(struct native_frame, vregs) == 152, "frame layout");
_Static_assert(offsetof(struct x86_vector_regs, k) == 2048, "register file layout");

#define ENTER_START                                                                                   \
    "  push %rbx\n  push %rbp\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"                  \
    "  push %rdi\n"                                                                                   \
    "  stmxcsr 148(%rdi)\n  mov 152(%rdi), %rsi\n"
/* Vector registers are loaded; now MXCSR, the flags and the general
 * registers (rdi last), then the translation, whose address is at (%rsp). */
#define ENTER_RUN                                                                                     \
    "  ldmxcsr 144(%rdi)\n"                                                                           \
    "  pushq 136(%rdi)\n"                                                                             \
    "  pushq 128(%rdi)\n  popfq\n"                                                                    \
    "  mov 0(%rdi), %rax\n  mov 8(%rdi), %rcx\n  mov 16(%rdi), %rdx\n  mov 24(%rdi), %rbx\n"         \
    "  mov 40(%rdi), %rbp\n  mov 48(%rdi), %rsi\n  mov 64(%rdi), %r8\n  mov 72(%rdi), %r9\n"          \
    "  mov 80(%rdi), %r10\n  mov 88(%rdi), %r11\n  mov 96(%rdi), %r12\n  mov 104(%rdi), %r13\n"      \
    "  mov 112(%rdi), %r14\n  mov 120(%rdi), %r15\n  mov 56(%rdi), %rdi\n"                           \
    "  call *(%rsp)\n"                                                                                \
    "  pushfq\n  push %rdi\n"                                                                         \
    "  mov 24(%rsp), %rdi\n"                                                                          \
    "  mov %rax, 0(%rdi)\n  mov %rcx, 8(%rdi)\n  mov %rdx, 16(%rdi)\n  mov %rbx, 24(%rdi)\n"         \
    "  mov %rbp, 40(%rdi)\n  mov %rsi, 48(%rdi)\n  mov %r8, 64(%rdi)\n  mov %r9, 72(%rdi)\n"          \
    "  mov %r10, 80(%rdi)\n  mov %r11, 88(%rdi)\n  mov %r12, 96(%rdi)\n  mov %r13, 104(%rdi)\n"      \
    "  mov %r14, 112(%rdi)\n  mov %r15, 120(%rdi)\n"                                                 \
    "  popq 56(%rdi)\n  popq 128(%rdi)\n  add $8, %rsp\n"                                            \
    "  stmxcsr 144(%rdi)\n  mov 152(%rdi), %rsi\n"
#define ENTER_END                                                                                     \
    "  ldmxcsr 148(%rdi)\n"                                                                           \
    "  add $8, %rsp\n  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbp\n  pop %rbx\n  ret\n"

#define X16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define X32(M) X16(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define X8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define LOAD_XMM(i) "  movdqu 64*" #i "(%rsi), %xmm" #i "\n"
#define STORE_XMM(i) "  movdqu %xmm" #i ", 64*" #i "(%rsi)\n"
#define LOAD_YMM(i) "  vmovdqu 64*" #i "(%rsi), %ymm" #i "\n"
#define STORE_YMM(i) "  vmovdqu %ymm" #i ", 64*" #i "(%rsi)\n"
#define LOAD_ZMM(i) "  vmovdqu64 64*" #i "(%rsi), %zmm" #i "\n"
#define STORE_ZMM(i) "  vmovdqu64 %zmm" #i ", 64*" #i "(%rsi)\n"
#define LOAD_K(i) "  kmovq 2048+8*" #i "(%rsi), %k" #i "\n"
#define STORE_K(i) "  kmovq %k" #i ", 2048+8*" #i "(%rsi)\n"

#define ENTER_ROUTINE(name, load, store, tail)                                                        \
    ".pushsection .text\n.p2align 4\n.type " name ",@function\n" name ":\n"                           \
    ENTER_START load ENTER_RUN store tail ENTER_END ".size " name ", .-" name "\n.popsection\n"

/* Per set of vector registers the CPU has: one that stores them back
 * (_update) and one that only loads them; and one for integer
 * instructions, which loads none (MXCSR: the default the frame has). */
__asm__(ENTER_ROUTINE("mdat_native_enter_sse_update", X16(LOAD_XMM), X16(STORE_XMM), ""));
__asm__(ENTER_ROUTINE("mdat_native_enter_sse", X16(LOAD_XMM), "", ""));
__asm__(ENTER_ROUTINE("mdat_native_enter_avx_update", X16(LOAD_YMM), X16(STORE_YMM), "  vzeroupper\n"));
__asm__(ENTER_ROUTINE("mdat_native_enter_avx", X16(LOAD_YMM), "", "  vzeroupper\n"));
__asm__(ENTER_ROUTINE("mdat_native_enter_avx512_update", X32(LOAD_ZMM) X8(LOAD_K), X32(STORE_ZMM) X8(STORE_K),
                      "  vzeroupper\n"));
__asm__(ENTER_ROUTINE("mdat_native_enter_avx512", X32(LOAD_ZMM) X8(LOAD_K), "", "  vzeroupper\n"));
__asm__(ENTER_ROUTINE("mdat_native_enter_integer", "", "", ""));
void mdat_native_enter_sse_update(struct native_frame *f);
void mdat_native_enter_sse(struct native_frame *f);
void mdat_native_enter_avx_update(struct native_frame *f);
void mdat_native_enter_avx(struct native_frame *f);
void mdat_native_enter_avx512_update(struct native_frame *f);
void mdat_native_enter_avx512(struct native_frame *f);
void mdat_native_enter_integer(struct native_frame *f);

/* ---- what this CPU has ------------------------------------------------------ */

enum vector_level { LEVEL_SSE, LEVEL_AVX, LEVEL_AVX512 };

static enum vector_level level;
typedef void enter_routine(struct native_frame *);
static enter_routine *enter_vector_update, *enter_vector;     /* for this CPU */
static uint8_t *code_cache;         /* executable; NULL: no native runs */
static size_t code_used;
enum { CODE_CACHE_BYTES = 1 << 20 };

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void init_cpu(void)
{
    unsigned a, b, c, d;
    level = LEVEL_SSE;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        uint64_t xcr0 = read_xcr0();
        bool avx512 = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (b & bit_AVX512BW);
        if ((xcr0 & 0x6) == 0x6)
            level = LEVEL_AVX;
        if (level == LEVEL_AVX && avx512 && (xcr0 & 0xe0) == 0xe0)
            level = LEVEL_AVX512;
    }
    enter_vector_update = level == LEVEL_AVX512 ? mdat_native_enter_avx512_update
                          : level == LEVEL_AVX  ? mdat_native_enter_avx_update
                                                : mdat_native_enter_sse_update;
    enter_vector = level == LEVEL_AVX512 ? mdat_native_enter_avx512
                   : level == LEVEL_AVX  ? mdat_native_enter_avx
                                         : mdat_native_enter_sse;
    void *p = mmap(NULL, CODE_CACHE_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    code_cache = p == MAP_FAILED ? NULL : p;
}

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/* ---- which instructions ------------------------------------------------------ */

enum { ARITH_FLAGS = 0x8d5 };

static bool register_allowed(ZydisRegister reg)
{
    switch (ZydisRegisterGetClass(reg)) {
    case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16: case ZYDIS_REGCLASS_GPR32: case ZYDIS_REGCLASS_GPR64:
        return x86_general_register_number((uint16_t)reg) != 4;    /* rsp: the routine's own */
    case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM:
        return true;
    case ZYDIS_REGCLASS_ZMM: case ZYDIS_REGCLASS_MASK:
        return level == LEVEL_AVX512;
    case ZYDIS_REGCLASS_FLAGS:
        return true;
    default:
        return reg == ZYDIS_REGISTER_MXCSR;
    }
}

/* Instructions whose effects reach beyond registers and their operand, or
 * that must not run in mdat: time, randomness, the thread's own bases,
 * ordering, transactions, waits. */
static bool excluded(ZydisMnemonic m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_CPUID: case ZYDIS_MNEMONIC_RDTSC: case ZYDIS_MNEMONIC_RDTSCP: case ZYDIS_MNEMONIC_RDRAND:
    case ZYDIS_MNEMONIC_RDSEED: case ZYDIS_MNEMONIC_RDPID: case ZYDIS_MNEMONIC_RDPKRU: case ZYDIS_MNEMONIC_WRPKRU:
    case ZYDIS_MNEMONIC_RDFSBASE: case ZYDIS_MNEMONIC_RDGSBASE: case ZYDIS_MNEMONIC_WRFSBASE:
    case ZYDIS_MNEMONIC_WRGSBASE: case ZYDIS_MNEMONIC_LFENCE: case ZYDIS_MNEMONIC_MFENCE:
    case ZYDIS_MNEMONIC_SFENCE: case ZYDIS_MNEMONIC_SERIALIZE: case ZYDIS_MNEMONIC_XBEGIN: case ZYDIS_MNEMONIC_XEND:
    case ZYDIS_MNEMONIC_XABORT: case ZYDIS_MNEMONIC_XTEST: case ZYDIS_MNEMONIC_UMONITOR: case ZYDIS_MNEMONIC_UMWAIT:
    case ZYDIS_MNEMONIC_TPAUSE: case ZYDIS_MNEMONIC_MONITOR: case ZYDIS_MNEMONIC_MWAIT: case ZYDIS_MNEMONIC_XGETBV:
    case ZYDIS_MNEMONIC_RDPMC: case ZYDIS_MNEMONIC_RDSSPQ: case ZYDIS_MNEMONIC_RDSSPD: case ZYDIS_MNEMONIC_INCSSPQ:
    case ZYDIS_MNEMONIC_INCSSPD: case ZYDIS_MNEMONIC_EMMS: case ZYDIS_MNEMONIC_FEMMS: case ZYDIS_MNEMONIC_MOVDIR64B:
    case ZYDIS_MNEMONIC_ENQCMD: case ZYDIS_MNEMONIC_ENQCMDS: case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_PREFETCH: case ZYDIS_MNEMONIC_PREFETCHW:
        return true;
    default:
        return false;
    }
}

static bool category_allowed(ZydisInstructionCategory c)
{
    switch (c) {
    case ZYDIS_CATEGORY_CALL: case ZYDIS_CATEGORY_RET: case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_SYSRET: case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM: case ZYDIS_CATEGORY_IO: case ZYDIS_CATEGORY_IOSTRINGOP:
    case ZYDIS_CATEGORY_STRINGOP: case ZYDIS_CATEGORY_SEGOP: case ZYDIS_CATEGORY_PUSH: case ZYDIS_CATEGORY_POP:
    case ZYDIS_CATEGORY_SEMAPHORE: case ZYDIS_CATEGORY_X87_ALU: case ZYDIS_CATEGORY_FCMOV:
    case ZYDIS_CATEGORY_MMX: case ZYDIS_CATEGORY_AMX_TILE: case ZYDIS_CATEGORY_PREFETCH:
    case ZYDIS_CATEGORY_CET: case ZYDIS_CATEGORY_WIDENOP: case ZYDIS_CATEGORY_NOP:
        return false;
    default:
        return true;
    }
}

/* A general register the instruction does not name (its memory operand's
 * base and index aside: that operand becomes [scratch]); -1 if none. */
static int scratch_register(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    static const int candidates[] = {11, 10, 9, 8, 15, 14, 13, 12, 3, 5, 6, 7, 0, 1, 2};
    uint32_t used = 1u << 4;
    for (int i = 0; i < in->operand_count; i++) {
        if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER) {
            int n = x86_general_register_number((uint16_t)ops[i].reg.value);
            if (n >= 0)
                used |= 1u << n;
        }
    }
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (!(used & (1u << candidates[i])))
            return candidates[i];
    return -1;
}

/* Integer instruction sets: nothing in them reads or writes MXCSR or a
 * vector register unless an operand names it. Not so for every
 * instruction that names none: cvtsd2si eax, [m] rounds by MXCSR and
 * sets its flags, and the decoder lists no MXCSR operand for it. */
static bool integer_only(const ZydisDecodedInstruction *in)
{
    switch (in->meta.isa_ext) {
    case ZYDIS_ISA_EXT_BASE: case ZYDIS_ISA_EXT_BMI1: case ZYDIS_ISA_EXT_BMI2: case ZYDIS_ISA_EXT_LZCNT:
    case ZYDIS_ISA_EXT_ADOX_ADCX: case ZYDIS_ISA_EXT_MOVBE:
        return true;
    default:
        return in->mnemonic == ZYDIS_MNEMONIC_POPCNT || in->mnemonic == ZYDIS_MNEMONIC_CRC32;
    }
}

/* What the instruction needs of the vector registers. Any operand that is
 * a vector or mask register makes it READ; one it may write, WRITE (the
 * decoder lists implicit ones: pcmpestrm's xmm0; and vp2intersectd's
 * second mask goes with its first). vzeroupper and vzeroall name none.
 * MXCSR needs no more than READ: it is copied, and compared after a run. */
static enum x86_vector_use vector_use(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    if (in->mnemonic == ZYDIS_MNEMONIC_VZEROUPPER || in->mnemonic == ZYDIS_MNEMONIC_VZEROALL)
        return X86_VECTOR_WRITE;
    enum x86_vector_use use = integer_only(in) ? X86_VECTOR_UNUSED : X86_VECTOR_READ;
    for (int i = 0; i < in->operand_count; i++) {
        if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER)
            continue;
        switch (ZydisRegisterGetClass(ops[i].reg.value)) {
        case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM: case ZYDIS_REGCLASS_MASK:
            if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
                return X86_VECTOR_WRITE;
            use = X86_VECTOR_READ;
            break;
        default:
            if (ops[i].reg.value == ZYDIS_REGISTER_MXCSR)
                use = X86_VECTOR_READ;
            break;
        }
    }
    return use;
}

static bool operands_allowed(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
    int memory = 0;
    for (int i = 0; i < in->operand_count; i++) {
        const ZydisDecodedOperand *op = &ops[i];
        switch (op->type) {
        case ZYDIS_OPERAND_TYPE_REGISTER: {
            if (!register_allowed(op->reg.value))
                return false;
            break;
        }
        case ZYDIS_OPERAND_TYPE_MEMORY:
            /* one explicit access of known size: not a stack slot, a
             * gather, an address computation or a string's */
            if (op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT || op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
                op->size == 0 || op->size % 8 || op->size / 8 > 64 || ++memory > 1)
                return false;
            break;
        case ZYDIS_OPERAND_TYPE_IMMEDIATE:
            if (op->imm.is_relative)
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* Flags beyond the arithmetic ones (direction, trap, alignment check ...)
 * would reach mdat's own code. */
static bool flags_allowed(const ZydisDecodedInstruction *in)
{
    if (!in->cpu_flags)
        return true;
    ZydisAccessedFlagsMask changed = in->cpu_flags->modified | in->cpu_flags->set_0 | in->cpu_flags->set_1 |
                                     in->cpu_flags->undefined;
    return (changed & ~(ZydisAccessedFlagsMask)ARITH_FLAGS) == 0;
}

void x86_native_classify(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct x86_insn *out)
{
    pthread_once(&cpu_once, init_cpu);
    if (!code_cache || (in->attributes & (ZYDIS_ATTRIB_HAS_LOCK | ZYDIS_ATTRIB_IS_PRIVILEGED)) ||
        (out->flags & (X86_ATOMIC | X86_STRING | X86_MEM_VECTOR_INDEX)) || out->n_mem > 1 || excluded(in->mnemonic) ||
        !category_allowed(in->meta.category) || !flags_allowed(in) || !operands_allowed(in, ops) ||
        (in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && level < LEVEL_AVX512) ||
        (in->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX && level < LEVEL_AVX) ||
        in->encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX || in->encoding == ZYDIS_INSTRUCTION_ENCODING_XOP ||
        in->encoding == ZYDIS_INSTRUCTION_ENCODING_3DNOW || scratch_register(in, ops) < 0)
        return;
    out->emulation = X86_EMU_NATIVE;
    out->vector_use = (uint8_t)vector_use(in, ops);
}

/* ---- translations ------------------------------------------------------------ */

enum translation_state { EMPTY, READY, REFUSED };
enum { TRANSLATIONS = 1 << 13 };

struct translation {
    uint8_t bytes[15], length;
    uint8_t state;
    int8_t scratch;             /* -1: no memory operand */
    uint32_t code;              /* offset in code_cache */
};

static struct translation translations[TRANSLATIONS];
static ZydisDecoder decoder;

static size_t hash_bytes(const uint8_t *b, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29)) & (TRANSLATIONS - 1);
}

static bool same_register_operands(const ZydisDecodedInstruction *a, const ZydisDecodedOperand *ao,
                                   const ZydisDecodedInstruction *b, const ZydisDecodedOperand *bo)
{
    if (a->mnemonic != b->mnemonic || a->operand_count_visible != b->operand_count_visible ||
        a->operand_width != b->operand_width)
        return false;
    for (int i = 0; i < a->operand_count_visible; i++) {
        if (ao[i].type != bo[i].type || ao[i].size != bo[i].size)
            return false;
        if (ao[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ao[i].reg.value != bo[i].reg.value)
            return false;
        if (ao[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ao[i].imm.value.u != bo[i].imm.value.u)
            return false;
    }
    return a->avx.mask.reg == b->avx.mask.reg && a->avx.mask.mode == b->avx.mask.mode &&
           a->avx.broadcast.mode == b->avx.broadcast.mode && a->avx.rounding.mode == b->avx.rounding.mode &&
           a->avx.has_sae == b->avx.has_sae;
}

/* The instruction with its memory operand as [scratch], checked by
 * decoding it again: the same instruction, registers and immediates. */
static size_t encode_through_scratch(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, int scratch,
                                     uint8_t *out)
{
    ZydisEncoderRequest req;
    if (!ZYAN_SUCCESS(ZydisEncoderDecodedInstructionToEncoderRequest(in, ops, in->operand_count_visible, &req)))
        return 0;
    ZydisRegister base = ZydisRegisterEncode(ZYDIS_REGCLASS_GPR64, (ZyanU8)scratch);
    for (int i = 0; i < req.operand_count; i++) {
        if (req.operands[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
            continue;
        req.operands[i].mem.base = base;
        req.operands[i].mem.index = ZYDIS_REGISTER_NONE;
        req.operands[i].mem.scale = 0;
        req.operands[i].mem.displacement = 0;
    }
    req.prefixes &= ~(ZydisInstructionAttributes)(ZYDIS_ATTRIB_HAS_SEGMENT | ZYDIS_ATTRIB_HAS_SEGMENT_CS |
                                                   ZYDIS_ATTRIB_HAS_SEGMENT_SS | ZYDIS_ATTRIB_HAS_SEGMENT_DS |
                                                   ZYDIS_ATTRIB_HAS_SEGMENT_ES | ZYDIS_ATTRIB_HAS_SEGMENT_FS |
                                                   ZYDIS_ATTRIB_HAS_SEGMENT_GS | ZYDIS_ATTRIB_HAS_ADDRESSSIZE);
    req.address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_NONE;
    ZyanUSize length = ZYDIS_MAX_INSTRUCTION_LENGTH;
    if (!ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&req, out, &length)))
        return 0;
    ZydisDecodedInstruction again;
    ZydisDecodedOperand again_ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, out, length, &again, again_ops)) || again.length != length ||
        !same_register_operands(in, ops, &again, again_ops))
        return 0;
    for (int i = 0; i < again.operand_count_visible; i++)
        if (again_ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
            (again_ops[i].mem.base != base || again_ops[i].mem.index != ZYDIS_REGISTER_NONE ||
             again_ops[i].mem.disp.value != 0))
            return 0;
    return length;
}

/* Makes the translation of insn: the instruction (through scratch), ret. */
static void translate(const struct x86_insn *insn, struct translation *t)
{
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH + 1];
    size_t length = 0;
    t->state = REFUSED;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, insn->bytes, insn->length, &in, ops)))
        return;
    if (insn->n_mem) {
        t->scratch = (int8_t)scratch_register(&in, ops);
        length = t->scratch < 0 ? 0 : encode_through_scratch(&in, ops, t->scratch, code);
    } else {
        t->scratch = -1;
        memcpy(code, insn->bytes, insn->length);
        length = insn->length;
    }
    if (length == 0)
        return;
    code[length++] = 0xc3;  /* ret */
    if (code_used + length > CODE_CACHE_BYTES)
        return;
    memcpy(code_cache + code_used, code, length);
    t->code = (uint32_t)code_used;
    code_used = (code_used + length + 15) & ~(size_t)15;
    t->state = READY;
}

/* The translation of insn, made on first use; NULL when it has none (or
 * the table is full, which a batch's code does not make it). */
static struct translation *translation_of(const struct x86_insn *insn)
{
    size_t i = hash_bytes(insn->bytes, insn->length);
    for (size_t probes = 0; probes < 64; probes++, i = (i + 1) & (TRANSLATIONS - 1)) {
        struct translation *t = &translations[i];
        if (t->state == EMPTY) {
            memcpy(t->bytes, insn->bytes, insn->length);
            t->length = insn->length;
            translate(insn, t);
            return t->state == READY ? t : NULL;
        }
        if (t->length == insn->length && memcmp(t->bytes, insn->bytes, insn->length) == 0)
            return t->state == READY ? t : NULL;
    }
    return NULL;
}

/* ---- faults ------------------------------------------------------------------ */

static __thread sigjmp_buf *volatile escape;
static struct sigaction previous[4];
static const int fault_signals[4] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};

static void on_fault(int sig, siginfo_t *info, void *context)
{
    sigjmp_buf *e = escape;
    if (e) {
        escape = NULL;
        siglongjmp(*e, sig);
    }
    /* Not a translation's: as it was before, and the fault comes again
     * when the instruction does; one sent (kill) is sent again. */
    for (int i = 0; i < 4; i++)
        if (fault_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    if (info->si_code <= 0)
        raise(sig);
    (void)context;
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; i++)
        sigaction(fault_signals[i], &sa, &previous[i]);
}

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void init_all(void)
{
    pthread_once(&cpu_once, init_cpu);
    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    install_handlers();
}

void x86_native_claim_fault_signals(void)
{
    pthread_once(&handlers_once, init_all);
    install_handlers();
}

/* ---- running ---------------------------------------------------------------- */

static unsigned long long *general_register(struct user_regs_struct *r, int n)
{
    unsigned long long *fields[16] = {&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                                      &r->r8,  &r->r9,  &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15};
    return fields[n];
}

static __thread struct native_frame frame;

/* Runs the frame's translation through enter; 0 when it ran, else the
 * signal its fault raised. */
static int run_guarded(enter_routine *enter)
{
    sigjmp_buf env;
    int sig = sigsetjmp(env, 0);
    if (sig) {
        __builtin_ia32_ldmxcsr(frame.host_mxcsr);
        if (level >= LEVEL_AVX)
            __asm__ volatile("vzeroupper");
        return sig;
    }
    escape = &env;
    enter(&frame);
    escape = NULL;
    return 0;
}

/* The routine for insn, and the thread's vector registers when it uses
 * them (*v; NULL otherwise). False when it needs them and has none. */
static bool prepare_vector_regs(const struct x86_insn *insn, const struct x86_memory *mem, enter_routine **enter,
                                struct x86_vector_regs **v)
{
    *v = NULL;
    *enter = mdat_native_enter_integer;
    frame.mxcsr = 0x1f80;       /* not loaded by the integer routine */
    if (insn->vector_use == X86_VECTOR_UNUSED)
        return true;
    *v = mem->vector_regs ? mem->vector_regs(mem->ctx) : NULL;
    if (!*v)
        return false;
    *enter = insn->vector_use == X86_VECTOR_WRITE ? enter_vector_update : enter_vector;
    frame.mxcsr = (*v)->mxcsr;
    return true;
}

bool x86_native_run(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                    uint64_t addr)
{
    if (insn->emulation != X86_EMU_NATIVE)
        return false;
    pthread_once(&handlers_once, init_all);
    struct translation *t = translation_of(insn);
    enter_routine *enter;
    struct x86_vector_regs *v;
    if (!t || !prepare_vector_regs(insn, mem, &enter, &v))
        return false;
    unsigned size = 0, offset = 0;
    bool stores = insn->n_mem && insn->mem[0].write;
    for (int n = 0; n < 16; n++)
        frame.gpr[n] = *general_register(regs, n);
    if (insn->n_mem) {
        size = insn->mem[0].size;
        offset = (unsigned)(addr & 63);
        /* read even for a store: a masked one keeps the elements it skips */
        if (size > 64 || !mem->read(mem->ctx, addr, frame.data + offset, size))
            return false;
        frame.gpr[t->scratch] = (uint64_t)(uintptr_t)(frame.data + offset);
    }
    frame.rflags = 0x202 | (regs->eflags & ARITH_FLAGS);
    frame.vregs = v;
    frame.code = (uint64_t)(uintptr_t)(code_cache + t->code);
    /* An updating routine changes the thread's vector registers in place,
     * after the instruction ran (a fault leaves them as they were). Should
     * the store then fail, they must be as they were too: no instruction
     * mdat runs stores to memory and writes a vector register as well, but
     * if one does, its registers are kept aside first. */
    struct x86_vector_regs kept;
    bool keep = stores && insn->vector_use == X86_VECTOR_WRITE;
    if (keep)
        kept = *v;
    int sig = run_guarded(enter);
    if (sig) {
        if (sig == SIGILL)
            t->state = REFUSED;     /* this CPU lacks it: no use trying again */
        return false;
    }
    if (stores && !mem->write(mem->ctx, addr, frame.data + offset, size)) {
        if (keep)
            *v = kept;
        return false;
    }
    for (int n = 0; n < 16; n++)
        if (n != 4 && n != t->scratch)
            *general_register(regs, n) = frame.gpr[n];
    regs->eflags = (regs->eflags & ~(uint64_t)ARITH_FLAGS) | (frame.rflags & ARITH_FLAGS);
    if (v && (insn->vector_use == X86_VECTOR_WRITE || frame.mxcsr != v->mxcsr)) {
        v->mxcsr = frame.mxcsr;
        if (mem->vector_regs_changed)
            mem->vector_regs_changed(mem->ctx);
    }
    regs->rip += insn->length;
    return true;
}
