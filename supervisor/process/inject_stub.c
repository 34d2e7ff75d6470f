/* inject_stub: the stub's machine code and its data layout.
 *
 * The code finds its data at the page after itself (RIP-relative, so the
 * bytes run wherever they are copied), switches to a stack of its own (the
 * thread's may be anywhere, its red zone in use), makes the calls, and
 * restores the flags and every general register from the data before
 * jumping to the saved rip: the thread goes on as if never interrupted.
 *
 * Data, from the page after the code (offsets in bytes):
 *   0    the thread's registers: rax rbx rcx rdx rsi rdi rbp rsp
 *        r8 ... r15, rflags, rip (8 bytes each)
 *   144  pkru_during   148 pkru_after   152 flags   156 number of calls
 *   160  1 + the index of the last call that failed (0: none)
 *   192  the calls, 64 bytes each: nr, six arguments, result */
#include "supervisor/process/inject_stub.h"
#include "supervisor/process/tracee.h"

#include <string.h>

enum {
    DATA = STUB_CODE_PAGES * 4096,
    OFF_RIP = 136, OFF_PKRU_DURING = 144, OFF_PKRU_AFTER = 148, OFF_FLAGS = 152, OFF_N = 156, OFF_FAILED = 160,
    OFF_CALLS = 192, CALL_SIZE = 64,
};

/* The offsets above, spelled out in the assembly (keep both in step). */
__asm__(".pushsection .rodata\n"
        ".globl mdat_stub_start\n"
        ".globl mdat_stub_end\n"
        ".intel_syntax noprefix\n"
        "mdat_stub_start:\n"
        "  lea r15, [rip + mdat_stub_start + 4096]\n"
        "  lea rsp, [r15 + 16*4096]\n"
        "  test dword ptr [r15 + 152], 1\n"
        "  jz 1f\n"
        "  mov eax, dword ptr [r15 + 144]\n"
        "  xor ecx, ecx\n"
        "  xor edx, edx\n"
        "  .byte 0x0f, 0x01, 0xef\n"            /* wrpkru */
        "1:\n"
        "  lea rbx, [r15 + 192]\n"
        "  mov r13d, dword ptr [r15 + 156]\n"
        "  xor r12d, r12d\n"
        "2:\n"
        "  cmp r12d, r13d\n"
        "  jae 4f\n"
        "  mov rax, [rbx]\n"
        "  mov rdi, [rbx + 8]\n"
        "  mov rsi, [rbx + 16]\n"
        "  mov rdx, [rbx + 24]\n"
        "  mov r10, [rbx + 32]\n"
        "  mov r8, [rbx + 40]\n"
        "  mov r9, [rbx + 48]\n"
        "  syscall\n"
        "  mov [rbx + 56], rax\n"
        "  cmp rax, -4095\n"
        "  jb 3f\n"
        "  lea rax, [r12 + 1]\n"
        "  mov [r15 + 160], rax\n"
        "  test dword ptr [r15 + 152], 16\n"
        "  jz 3f\n"
        "  int3\n"
        "3:\n"
        "  add rbx, 64\n"
        "  inc r12d\n"
        "  jmp 2b\n"
        "4:\n"
        "  test dword ptr [r15 + 152], 4\n"
        "  jz 5f\n"
        "  mov rax, [rbx - 64 + 56]\n"
        "  mov [r15], rax\n"
        "5:\n"
        "  test dword ptr [r15 + 152], 2\n"
        "  jz 6f\n"
        "  mov eax, dword ptr [r15 + 148]\n"
        "  xor ecx, ecx\n"
        "  xor edx, edx\n"
        "  .byte 0x0f, 0x01, 0xef\n"            /* wrpkru */
        "6:\n"
        "  test dword ptr [r15 + 152], 8\n"
        "  jz 7f\n"
        "  int3\n"
        "7:\n"
        "  push qword ptr [r15 + 128]\n"
        "  popfq\n"
        "  mov rax, [r15]\n"
        "  mov rbx, [r15 + 8]\n"
        "  mov rcx, [r15 + 16]\n"
        "  mov rdx, [r15 + 24]\n"
        "  mov rsi, [r15 + 32]\n"
        "  mov rdi, [r15 + 40]\n"
        "  mov rbp, [r15 + 48]\n"
        "  mov r8, [r15 + 64]\n"
        "  mov r9, [r15 + 72]\n"
        "  mov r10, [r15 + 80]\n"
        "  mov r11, [r15 + 88]\n"
        "  mov r12, [r15 + 96]\n"
        "  mov r13, [r15 + 104]\n"
        "  mov r14, [r15 + 112]\n"
        "  mov rsp, [r15 + 56]\n"
        "  mov r15, [rip + mdat_stub_start + 4096 + 120]\n"
        "  jmp qword ptr [rip + mdat_stub_start + 4096 + 136]\n"
        "mdat_stub_end:\n"
        ".att_syntax prefix\n"
        ".popsection\n");

extern const uint8_t mdat_stub_start[], mdat_stub_end[];

_Static_assert(STUB_DATA_PAGES + STUB_STACK_PAGES == 16, "the stub's stack top is spelled out in its code");


const uint8_t *stub_code(size_t *len)
{
    *len = (size_t)(mdat_stub_end - mdat_stub_start);
    return mdat_stub_start;
}

bool stub_prepare(int mem_fd, const struct user_regs_struct *regs, const struct stub_request *req,
                  struct user_regs_struct *to_run)
{
    if (req->n_calls > STUB_MAX_CALLS)
        return false;
    uint8_t head[OFF_CALLS];
    memset(head, 0, sizeof head);
    const uint64_t saved[18] = {regs->rax, regs->rbx, regs->rcx, regs->rdx, regs->rsi, regs->rdi,
                                regs->rbp, regs->rsp, regs->r8,  regs->r9,  regs->r10, regs->r11,
                                regs->r12, regs->r13, regs->r14, regs->r15, regs->eflags, regs->rip};
    memcpy(head, saved, sizeof saved);
    memcpy(head + OFF_PKRU_DURING, &req->pkru_during, 4);
    memcpy(head + OFF_PKRU_AFTER, &req->pkru_after, 4);
    memcpy(head + OFF_FLAGS, &req->flags, 4);
    uint32_t n = (uint32_t)req->n_calls;
    memcpy(head + OFF_N, &n, 4);
    uint8_t calls[STUB_MAX_CALLS * CALL_SIZE];
    memset(calls, 0, req->n_calls * CALL_SIZE);
    for (size_t i = 0; i < req->n_calls; i++) {
        memcpy(calls + i * CALL_SIZE, &req->calls[i].nr, 8);
        memcpy(calls + i * CALL_SIZE + 8, req->calls[i].args, sizeof req->calls[i].args);
    }
    static unsigned next_slot;
    uint64_t slot = STUB_BASE + (uint64_t)(next_slot++ % STUB_SLOTS) * STUB_SLOT_PAGES * 4096;
    uint64_t data = slot + DATA;
    if (!tracee_write(mem_fd, data, head, sizeof head) ||
        (req->n_calls && !tracee_write(mem_fd, data + OFF_CALLS, calls, req->n_calls * CALL_SIZE)))
        return false;
    *to_run = *regs;
    to_run->rip = slot;
    /* A thread at a system call the kernel still has to finish would
     * restart it (orig_rax) at the stub: none is left to restart. */
    to_run->orig_rax = (uint64_t)-1;
    return true;
}

bool stub_trapped_at(int mem_fd, uint64_t rip, int *failed)
{
    *failed = 0;
    size_t len = (size_t)(mdat_stub_end - mdat_stub_start);
    if (rip <= STUB_BASE || rip > STUB_BASE + (uint64_t)STUB_PAGES * 4096)
        return false;
    uint64_t slot = STUB_BASE + (rip - STUB_BASE - 1) / (STUB_SLOT_PAGES * 4096ull) * STUB_SLOT_PAGES * 4096;
    if (rip > slot + len)
        return false;
    int64_t which = 0, result = 0;
    if (tracee_read(mem_fd, slot + DATA + OFF_FAILED, &which, sizeof which) && which > 0 &&
        tracee_read(mem_fd, slot + DATA + OFF_CALLS + (uint64_t)(which - 1) * CALL_SIZE + 56, &result, sizeof result))
        *failed = (int)-result;
    return true;
}
