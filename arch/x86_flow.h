/* x86_flow: where control goes after one instruction, for walks over code
 * that mdat does not stop in (the stretch a thread runs natively between
 * two visible operations).
 *
 * Owns classifying an instruction as falling through, jumping to a known
 * target, branching (a known target or falling through), or ending what a
 * static walk can follow or vouch for: calls, returns, indirect jumps,
 * system calls, and instructions that order memory (mfence, sfence, a lock
 * prefix, xchg with memory, cpuid and other serializing ones). Its own
 * decoder: callers need none. */
#ifndef MDAT_ARCH_X86_FLOW_H
#define MDAT_ARCH_X86_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum x86_flow_kind {
    X86_FLOW_NEXT,      /* goes on at next */
    X86_FLOW_JUMP,      /* goes on at target */
    X86_FLOW_BRANCH,    /* goes on at target or at next */
    X86_FLOW_RETURN,    /* ret: goes on where the stack says */
    X86_FLOW_END,       /* a call, indirect jump, system call, fence or serializing instruction */
    X86_FLOW_UNKNOWN,   /* cannot be decoded */
};

struct x86_flow {
    enum x86_flow_kind kind;
    uint64_t next;      /* the address after the instruction */
    uint64_t target;    /* JUMP and BRANCH */
    bool pops_frame;    /* leave, or pop rbp: the frame-pointer epilogue before a ret */
};

/* The instruction at the start of code (n bytes, at runtime address addr). */
struct x86_flow x86_flow_of(const uint8_t *code, size_t n, uint64_t addr);

/* The bytes a return address found on a stack follows (at ret - 7 ..
 * ret - 1) end with a call (direct, or through a register or memory): a
 * return address, not a stale code pointer. */
enum { X86_CALL_BEFORE_BYTES = 7 };
bool x86_ends_with_call(const uint8_t before[X86_CALL_BEFORE_BYTES]);


#endif
