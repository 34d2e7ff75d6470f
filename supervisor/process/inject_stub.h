/* inject_stub: a few instructions of mdat's inside the program, which make
 * system calls on mdat's behalf without a ptrace stop.
 *
 * Changing which protection key a page carries (pkey_mprotect) is a system
 * call the program itself must make: no call reaches into another process
 * to do it. Making a thread of the program run it through ptrace costs a
 * stop per call. Instead, a thread that mdat resumes anyway can be sent
 * through the stub first: mdat writes the thread's registers and a list
 * of calls into the stub's data, points the thread at the stub, and lets
 * it go; the stub makes the calls (optionally with other protection-key
 * rights), puts every register back, and jumps to where the thread was.
 * The same path runs a system call of the program's with every key open,
 * so that the kernel may read or write buffers the thread itself may not
 * touch natively.
 *
 * The stub lives at a fixed address (STUB_BASE), mapped into the program
 * once, at its entry point, by exec_pages_setup. Owns the stub's code and
 * the layout of its data; when to send a thread through it is
 * exec_pages.c's business. */
#ifndef MDAT_ENGINE_INJECT_STUB_H
#define MDAT_ENGINE_INJECT_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* Far from where the kernel puts anything of a program with ASLR off.
 * Several copies (slots), each with its data and stack: a signal handler
 * can run before a thread sent through one has executed any of it (the
 * kernel delivers a due signal first), and the handler's thread may be
 * sent through the stub again meanwhile; taking the slots in turn keeps
 * the first one's data. */
#define STUB_BASE 0x100000000000ull
enum {
    STUB_CODE_PAGES = 1,
    STUB_DATA_PAGES = 8,
    STUB_STACK_PAGES = 8,
    STUB_SLOT_PAGES = STUB_CODE_PAGES + STUB_DATA_PAGES + STUB_STACK_PAGES,
    STUB_SLOTS = 8,
    STUB_PAGES = STUB_SLOT_PAGES * STUB_SLOTS,
    STUB_MAX_CALLS = (STUB_DATA_PAGES * 4096 - 192) / 64,
};

/* What the stub does besides its calls. */
enum stub_flags {
    STUB_PKRU_DURING = 1,       /* the calls run with pkru_during */
    STUB_PKRU_AFTER = 2,        /* the thread goes on with pkru_after */
    STUB_RESULT_TO_RAX = 4,     /* the last call's result is the thread's rax (a call of its own) */
    STUB_TRAP_AT_END = 8,       /* an int3 instead of going on: mdat takes it back (a single-step follows) */
    STUB_TRAP_ON_FAILURE = 16,  /* an int3 at the first call that fails */
};

struct stub_call {
    uint64_t nr, args[6];
};

struct stub_request {
    const struct stub_call *calls;
    size_t n_calls;             /* at most STUB_MAX_CALLS */
    uint32_t flags;
    uint32_t pkru_during, pkru_after;
};

/* The stub's code, to copy to the start of every slot (STUB_BASE + i *
 * STUB_SLOT_PAGES pages). */
const uint8_t *stub_code(size_t *len);

/* Writes regs and the request into the stub's data (through mem_fd) and
 * sets *to_run to the registers that send the thread into the stub.
 * false when the program's memory could not be written. */
bool stub_prepare(int mem_fd, const struct user_regs_struct *regs, const struct stub_request *req,
                  struct user_regs_struct *to_run);
/* The thread stopped at an int3 of the stub (STUB_TRAP_*): *failed gets
 * the error of the call that failed (STUB_TRAP_ON_FAILURE), 0 if none. */
bool stub_trapped_at(int mem_fd, uint64_t rip, int *failed);

#endif
