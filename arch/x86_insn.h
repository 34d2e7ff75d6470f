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

/* What x86_emulate can carry out (see x86_classify.c for the exact forms). */
enum x86_emulation {
    X86_EMU_NONE,
    X86_EMU_STORE,          /* mov [m], reg/imm */
    X86_EMU_LOAD,           /* mov reg, [m] */
    X86_EMU_LOAD_ZERO,      /* movzx reg, [m] */
    X86_EMU_LOAD_SIGN,      /* movsx / movsxd reg, [m] */
    X86_EMU_SET,            /* mov reg, imm (no memory) */
    X86_EMU_PUSH,           /* push reg64 */
    X86_EMU_ALU,            /* arithmetic, logic, imul and bit tests (alu_op, alu_form) */
    X86_EMU_XCHG,           /* xchg [m], reg (always atomic) */
    X86_EMU_XADD,           /* [lock] xadd [m], reg */
    X86_EMU_CMPXCHG,        /* [lock] cmpxchg [m], reg (compares with al/ax/eax/rax) */
    X86_EMU_MOVE,           /* mov reg, reg (no memory) */
    X86_EMU_LEA,            /* lea reg, [m]: computes mem[0]'s address, touches nothing (n_mem is 0) */
    X86_EMU_NOP,            /* nop, endbr64 */
    X86_EMU_JUMP_MEM,       /* jmp qword ptr [m]: rip := [m] */
};

/* The arithmetic of X86_EMU_ALU. */
enum x86_alu_op {
    X86_ALU_ADD, X86_ALU_SUB, X86_ALU_ADC, X86_ALU_SBB, X86_ALU_AND, X86_ALU_OR, X86_ALU_XOR,
    X86_ALU_CMP, X86_ALU_TEST, X86_ALU_INC, X86_ALU_DEC, X86_ALU_NEG, X86_ALU_NOT,
    X86_ALU_IMUL,           /* two- and three-operand forms (truncating; CF and OF on overflow) */
    X86_ALU_BT, X86_ALU_BTS, X86_ALU_BTR, X86_ALU_BTC, /* the bit's old value in CF */
};

/* Where X86_EMU_ALU's operands are. load_reg is the register operand
 * (destination or source, as the form says), src_reg a second one,
 * store_imm the immediate. */
enum x86_alu_form {
    X86_ALU_MEM_REG,        /* op [m], reg   (destination memory; cmp/test/bt only read it;
                             *                for bt* the register is a bit offset that may
                             *                reach beyond the operand: see x86_effective_address) */
    X86_ALU_MEM_IMM,        /* op [m], imm */
    X86_ALU_REG_MEM,        /* op reg, [m]   (destination the register) */
    X86_ALU_MEM,            /* op [m]        (inc, dec, neg, not) */
    X86_ALU_REG_MEM_IMM,    /* imul reg, [m], imm */
    X86_ALU_REG_REG,        /* op reg, src_reg (no memory) */
    X86_ALU_REG_IMM,        /* op reg, imm     (no memory) */
    X86_ALU_REG,            /* op reg          (no memory: inc, dec, neg, not) */
};

/* Memory as x86_emulate reaches it: true when all n bytes were moved. */
struct x86_memory {
    bool (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
    bool (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
    void *ctx;
};

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
    /* What x86_emulate can perform, with general registers and immediates only. */
    uint8_t emulation;             /* enum x86_emulation */
    uint16_t load_reg;             /* the destination of a load, set, move or lea; the pushed
                                    * register; the register operand of ALU, xchg, xadd, cmpxchg */
    uint16_t src_reg;              /* the source of a move or of an ALU register-register form */
    uint8_t alu_op;                /* enum x86_alu_op, for X86_EMU_ALU */
    uint8_t alu_form;              /* enum x86_alu_form */
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
 * operands add regs->fs_base / gs_base. Two cases say more than the
 * operand's text: for bt/bts/btr/btc [m], reg (X86_EMU_ALU) it is the
 * operand-sized word the CPU accesses, [m] moved by the bit offset's
 * multiple of the operand size (the bit string may extend far beyond [m]);
 * for X86_EMU_LEA, i == 0 is the address lea computes (nothing accessed). */
uint64_t x86_effective_address(const struct x86_insn *insn, int i,
                               const struct user_regs_struct *regs);

/* The value a plain store (insn->store_known) is about to write, given the
 * registers of the thread stopped at it, truncated to the store's size.
 * False for other instructions and for registers not in user_regs_struct. */
bool x86_store_value(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *value);

/* Performs an emulatable instruction (insn->emulation) on regs and mem as
 * the CPU would, rip included (a jmp [m] sets it to the target), for a
 * thread stopped at it. RFLAGS: CF, PF, AF, ZF, SF and OF as the CPU sets
 * them; flags the manuals leave undefined (AF after logic operations is
 * cleared, SF/ZF/AF/PF after imul and bt* are left as they were, as AMD
 * cores do) may differ from another CPU's; other bits untouched. False, with
 * nothing changed, when the instruction is not one of those or the memory
 * could not be reached (the caller then lets the CPU run it, fault and
 * all). The caller decides whether the address (x86_emulated_access) is one
 * the program may access: mem may well reach pages the program could not. */
bool x86_emulate(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem);
/* The memory an emulatable instruction would touch: false when none
 * (set, move, lea, nop, arithmetic on registers), else its address, size
 * and direction (write: it may store; cmp, test, bt and loads only read). */
bool x86_emulated_access(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t *addr,
                         unsigned *size, bool *write);

/* A read-modify-write on memory without LOCK (add, sub, adc, sbb, and, or,
 * xor, inc, dec, neg, not, bts, btr, btc with a memory destination): on
 * real hardware the load and the store are two accesses another core can
 * come between. The engine splits it into two steps: x86_rmw_load reads
 * the old value (nothing else changes), and later x86_rmw_store computes
 * from that old value (not from memory as it is then), stores, sets the
 * flags and advances rip, as the whole instruction would have done had it
 * read `old`. */
bool x86_is_split_rmw(const struct x86_insn *insn);
bool x86_rmw_load(const struct x86_insn *insn, const struct user_regs_struct *regs, const struct x86_memory *mem,
                  uint64_t *old);
bool x86_rmw_store(const struct x86_insn *insn, struct user_regs_struct *regs, const struct x86_memory *mem,
                   uint64_t old);
/* The value x86_rmw_store would write from old (for traces: "5 -> 6"). */
bool x86_rmw_result(const struct x86_insn *insn, const struct user_regs_struct *regs, uint64_t old, uint64_t *result);

/* What a cmpxchg does, from the registers before it and the memory value
 * it found: expected (the accumulator), desired (the source register),
 * and whether it stores (found == expected, which is ZF after it). Around
 * one emulated step: read `found` (size bytes at x86_emulated_access's
 * address) and keep the registers, then x86_emulate; or ask before the
 * step, to say what it will do, as the memory is now. */
struct x86_cas {
    uint64_t expected, found, desired;
    bool stored;
    unsigned size;
};
bool x86_cas_outcome(const struct x86_insn *insn, const struct user_regs_struct *before, uint64_t found,
                     struct x86_cas *out);

/* True when code (the first bytes of a function) starts with the frame-pointer
 * prologue "[endbr64] push rbp; mov rbp, rsp". */
bool x86_is_frame_pointer_prologue(const uint8_t *code, size_t size);

#endif
