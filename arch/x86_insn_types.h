/* x86_insn_types: the decoded instruction, as data (struct x86_insn and
 * its enums), and what the emulator reaches besides the general registers
 * (struct x86_memory, struct x86_vector_regs). Split from arch/x86_insn.h so that the classifier
 * (x86_classify.c), which x86_decode calls, can fill one in without
 * depending on the decoder. Include arch/x86_insn.h, which includes this. */
#ifndef MDAT_ARCH_X86_INSN_TYPES_H
#define MDAT_ARCH_X86_INSN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    X86_MEM_VECTOR_INDEX = 1u << 11, /* a gather or scatter: the addresses are in a vector register (mem[0]
                                      * names only its base, displacement and one element's size) */
    X86_MEM_MASKED = 1u << 12,    /* an AVX-512 or vmaskmov access that touches only the elements its mask
                                   * selects (mem[] names them all) */
    X86_VECTOR_REGS = 1u << 13,   /* reads or writes registers beyond user_regs_struct (xmm, ymm, zmm, k,
                                   * mxcsr, x87) */
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
    X86_EMU_ALU,            /* arithmetic, logic, shifts, imul, bit tests (alu_op, alu_form) */
    X86_EMU_XCHG,           /* xchg [m], reg (always atomic) */
    X86_EMU_XADD,           /* [lock] xadd [m], reg */
    X86_EMU_CMPXCHG,        /* [lock] cmpxchg [m], reg (compares with al/ax/eax/rax) */
    X86_EMU_MOVE,           /* mov reg, reg (no memory) */
    X86_EMU_LEA,            /* lea reg, [m]: computes mem[0]'s address, touches nothing (n_mem is 0) */
    X86_EMU_NOP,            /* nop, endbr64, pause */
    X86_EMU_JUMP_MEM,       /* jmp qword ptr [m]: rip := [m] */
    X86_EMU_CALL_MEM,       /* call qword ptr [m]: push the return address, rip := [m] */
    X86_EMU_SETCC,          /* setcc [m] or setcc reg8 (cond) */
    X86_EMU_CMOV,           /* cmovcc reg, [m] (always reads) or cmovcc reg, src_reg (cond) */
    /* Control flow and the stack, for running user code ahead in mdat
     * (exec_ahead.c): store_imm is a branch's target less the address the
     * instruction was decoded at (the code may run relocated), or ret's
     * extra bytes to pop. */
    X86_EMU_POP,            /* pop reg64 */
    X86_EMU_LEAVE,          /* leave: rsp := rbp, pop rbp */
    X86_EMU_RET,            /* ret [imm16] */
    X86_EMU_CALL_REL,       /* call rel32: push the return address, rip := target */
    X86_EMU_JUMP_REL,       /* jmp rel8/rel32 */
    X86_EMU_JCC,            /* jcc rel8/rel32 (cond) */
    X86_EMU_JUMP_REG,       /* jmp reg64: rip := load_reg */
    X86_EMU_CALL_REG,       /* call reg64: push the return address, rip := load_reg (as it was before) */
    X86_EMU_EXTEND,         /* movzx/movsx/movsxd reg, src_reg; cbw, cwde, cdqe (cond 1: signed) */
    X86_EMU_SIGN_FILL,      /* cwd, cdq, cqo: load_reg (dx/edx/rdx) := the sign of src_reg, every bit */
    /* Carried out by running the instruction itself in mdat, on copies of
     * the thread's registers and of the memory it accesses (x86_native.c):
     * SSE, AVX and AVX-512 loads, stores and arithmetic, and other
     * instructions whose only effects are registers, flags and at most one
     * memory operand of known size. */
    X86_EMU_NATIVE,
};

/* The condition of setcc and cmovcc, in the encoding's order. */
enum x86_cond {
    X86_COND_O, X86_COND_NO, X86_COND_B, X86_COND_AE, X86_COND_E, X86_COND_NE, X86_COND_BE, X86_COND_A,
    X86_COND_S, X86_COND_NS, X86_COND_P, X86_COND_NP, X86_COND_L, X86_COND_GE, X86_COND_LE, X86_COND_G,
};

/* The arithmetic of X86_EMU_ALU. */
enum x86_alu_op {
    X86_ALU_ADD, X86_ALU_SUB, X86_ALU_ADC, X86_ALU_SBB, X86_ALU_AND, X86_ALU_OR, X86_ALU_XOR,
    X86_ALU_CMP, X86_ALU_TEST, X86_ALU_INC, X86_ALU_DEC, X86_ALU_NEG, X86_ALU_NOT,
    X86_ALU_IMUL,           /* two- and three-operand forms (truncating; CF and OF on overflow) */
    X86_ALU_BT, X86_ALU_BTS, X86_ALU_BTR, X86_ALU_BTC, /* the bit's old value in CF */
    X86_ALU_SHL, X86_ALU_SHR, X86_ALU_SAR, X86_ALU_ROL, X86_ALU_ROR, /* by imm or cl (load_reg) */
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

/* Registers are named by the decoder's ids (ZydisRegister: include
 * <Zydis/Zydis.h> to name them, ZYDIS_REGISTER_RSP ...). */
struct x86_mem_operand {
    uint16_t base, index;          /* register ids; 0 = none */
    uint16_t segment;              /* ZYDIS_REGISTER_FS or _GS when the access adds its base; else 0 */
    int32_t scale;
    int64_t disp;
    uint8_t size;                  /* bytes accessed */
    bool read, write;
};

/* What an X86_EMU_NATIVE instruction needs of the registers beyond
 * user_regs_struct (struct x86_vector_regs): they are fetched from the
 * kernel only when it uses them, and written back only when it may change
 * them (MXCSR's flags aside, which are compared after each run). */
enum x86_vector_use {
    X86_VECTOR_UNUSED,      /* integer only: general registers and flags */
    X86_VECTOR_READ,        /* reads vector or mask registers or MXCSR */
    X86_VECTOR_WRITE,       /* may change a vector or mask register */
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
    uint16_t store_reg;            /* register id, 0 for an immediate */
    int64_t store_imm;             /* also: the immediate of a set or of an ALU form */
    /* What x86_emulate can perform, with general registers and immediates only. */
    uint8_t emulation;             /* enum x86_emulation */
    uint16_t load_reg;             /* the destination of a load, set, move, lea, cmov or setcc reg;
                                    * the pushed register; the register operand of ALU, xchg,
                                    * xadd, cmpxchg */
    uint16_t src_reg;              /* the source of a move, a cmov reg, reg or an ALU reg, reg */
    uint8_t alu_op;                /* enum x86_alu_op, for X86_EMU_ALU */
    uint8_t alu_form;              /* enum x86_alu_form */
    uint8_t cond;                  /* enum x86_cond, for X86_EMU_SETCC and X86_EMU_CMOV */
    uint8_t vector_use;            /* enum x86_vector_use, for X86_EMU_NATIVE */
    uint8_t bytes[15];             /* the instruction's own bytes (length of them) */
    char text[80];                 /* "mov dword ptr [rip+0x2EE6], eax" */
};


/* A thread's registers beyond user_regs_struct that X86_EMU_NATIVE
 * instructions use: zmm0-31 (whose low 256 and 128 bits are ymm and xmm;
 * on a CPU without AVX-512 only the first 16 and the bits it has count),
 * the opmask registers k0-7 and MXCSR. */
struct x86_vector_regs {
    uint8_t zmm[32][64];
    uint64_t k[8];
    uint32_t mxcsr;
};

/* What x86_emulate reaches beyond the registers it is given. Memory: true
 * when all n bytes were moved. vector_regs: the thread's vector registers,
 * fetched only for an X86_EMU_NATIVE instruction that uses them (NULL, or a
 * NULL result: such instructions are left to the CPU); vector_regs_changed
 * is called after one may have changed them. */
struct x86_memory {
    bool (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
    bool (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
    void *ctx;
    struct x86_vector_regs *(*vector_regs)(void *ctx);
    void (*vector_regs_changed)(void *ctx);
};

#endif
