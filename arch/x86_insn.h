/* x86_insn: decoding and classifying one x86-64 instruction (capstone underneath).
 *
 * Owns the question "what memory does this instruction touch, and how": the
 * supervisor asks it once per instruction of the main executable when it builds
 * its breakpoint table, and again at run time to compute the effective address
 * of the access a stopped thread is about to make. Knows nothing of scheduling. */
#ifndef MDAT_ARCH_X86_INSN_H
#define MDAT_ARCH_X86_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum x86_insn_flag {
    X86_MEM_READ = 1u << 0,       /* reads memory through an explicit or implicit operand */
    X86_MEM_WRITE = 1u << 1,      /* writes memory */
    X86_ATOMIC = 1u << 2,         /* lock prefix, xchg with memory, cmpxchg, xadd with lock */
    X86_SYSCALL = 1u << 3,        /* syscall / int 0x80 / sysenter */
    X86_CALL = 1u << 4,
    X86_RET = 1u << 5,
    X86_STRING = 1u << 6,         /* movs/stos/lods/cmps/scas, with or without rep */
    X86_MEM_SP_BASED = 1u << 7,   /* every memory operand has base rsp (no index) */
    X86_MEM_BP_BASED = 1u << 8,   /* every memory operand has base rbp or rsp (no index) */
    X86_MEM_TLS = 1u << 9,        /* every memory operand uses the fs or gs segment */
    X86_MEM_RIP_RELATIVE = 1u << 10, /* every memory operand is rip-relative (absolute target known statically) */
};

enum { X86_MAX_MEM_OPERANDS = 2 };

/* To name capstone register ids (X86_REG_RSP ...) next to this header, include
 * "arch/x86_capstone.h", not <capstone/capstone.h>: see there for why. */
struct x86_mem_operand {
    uint16_t base, index, segment; /* capstone x86_reg ids; 0 = none */
    int32_t scale;
    int64_t disp;
    uint8_t size;                  /* bytes accessed */
    bool read, write;
};

struct x86_insn {
    uint64_t address;
    uint8_t length;
    uint32_t flags;                /* enum x86_insn_flag */
    uint8_t n_mem;                 /* memory operands that really access memory (not lea, nop, prefetch) */
    struct x86_mem_operand mem[X86_MAX_MEM_OPERANDS];
    uint64_t rip_target;           /* for X86_MEM_RIP_RELATIVE: the absolute address of mem[0] */
    /* A plain store (mov to memory): where the stored value comes from, so
     * that it can be shown before the instruction runs. */
    bool store_known;
    uint16_t store_reg;            /* capstone register id, 0 for an immediate */
    int64_t store_imm;
    char text[80];                 /* "mov dword ptr [rip + 0x2ee6], eax" */
};

typedef struct x86_decoder x86_decoder;

x86_decoder *x86_decoder_new(void);
void x86_decoder_free(x86_decoder *d);

/* Decodes the instruction at code[0..size) located at address. False when the
 * bytes are not a valid instruction. */
bool x86_decode(x86_decoder *d, const uint8_t *code, size_t size, uint64_t address,
                struct x86_insn *out);

/* True when the instruction may be a visible operation: it accesses memory
 * that is not provably the running thread's own stack frame or TLS, or it is
 * atomic. frame_pointer says whether rbp is the frame pointer in the function
 * this instruction belongs to. */
bool x86_insn_may_be_visible(const struct x86_insn *insn, bool frame_pointer);

/* Effective address of memory operand i given the registers of the thread
 * stopped *at* this instruction (regs->rip == insn->address). fs/gs-based
 * operands add regs->fs_base / gs_base. */
uint64_t x86_effective_address(const struct x86_insn *insn, int i,
                               const struct user_regs_struct *regs);

/* The value a plain store (insn->store_known) is about to write, given the
 * registers of the thread stopped at it, truncated to the store's size.
 * False for other instructions and for registers not in user_regs_struct. */
bool x86_store_value(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *value);

/* True when code (the first bytes of a function) starts with the frame-pointer
 * prologue "[endbr64] push rbp; mov rbp, rsp". */
bool x86_is_frame_pointer_prologue(const uint8_t *code, size_t size);

#endif
