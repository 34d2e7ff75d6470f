/* Unit tests for foreign_watch_insn: which instructions a livelock watch
 * follows (their effect follows from the registers and the process's own
 * memory) and what they may write; the others are refused with a reason.
 * Instructions are decoded from bytes; the memory map is made up here, and
 * this process's own memory stands for the program's (a sleep's timespec). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/inspect/foreign_watch_insn.h"

enum { PRIVATE_LO = 0x10000, SHARED_LO = 0x20000, CODE_LO = 0x30000, VVAR_LO = 0x40000, RSEQ_AT = 0x10800 };

static struct proc_mapping mappings[] = {
    {.start = PRIVATE_LO, .end = PRIVATE_LO + 0x1000, .read = true, .write = true},
    {.start = SHARED_LO, .end = SHARED_LO + 0x1000, .read = true, .write = true, .shared = true, .path = "/dev/shm/x"},
    {.start = CODE_LO, .end = CODE_LO + 0x1000, .read = true, .write = true, .exec = true, .path = "/jit"},
    {.start = VVAR_LO, .end = VVAR_LO + 0x1000, .read = true, .path = "[vvar]"},
};
static uint64_t rseq_area[1][2] = {{RSEQ_AT, RSEQ_AT + 32}};

static struct watch_memory memory(void)
{
    struct watch_memory m = {.rseq = rseq_area, .n_rseq = 1};
    m.maps.m = mappings;
    m.maps.n = sizeof mappings / sizeof *mappings;
    return m;
}

/* Decodes bytes and asks for their effect with regs; why gets the reason. */
static bool effect_of(const uint8_t *bytes, size_t n, struct user_regs_struct *regs, int mem_fd,
                      struct insn_effect *eff, char *why, size_t len)
{
    x86_decoder *d = x86_decoder_new();
    struct x86_insn insn;
    assert_true(x86_decode(d, bytes, n, 0x401000, &insn));
    x86_decoder_free(d);
    regs->rip = 0x401000;
    struct watch_memory m = memory();
    why[0] = '\0';
    return watch_insn_effect(&insn, regs, &m, mem_fd, eff, why, len);
}

static void clock_and_cpu_refused(void **state)
{
    (void)state;
    static const struct {
        uint8_t bytes[4];
        size_t n;
        const char *why;
    } cases[] = {
        {{0x0f, 0x31}, 2, "reads the time stamp counter (rdtsc)"},
        {{0x0f, 0x01, 0xf9}, 3, "reads the time stamp counter (rdtscp)"},
        {{0x0f, 0xa2}, 2, "asks the CPU what it is (cpuid)"},
        {{0x0f, 0xc7, 0xf0}, 3, "reads a random number (rdrand)"},
        {{0x0f, 0x03, 0xc0}, 3, "reads a CPU descriptor table (the CPU it runs on) (lsl)"},
        {{0xcc}, 1, "raises an interrupt (int3)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct user_regs_struct regs = {.rsp = PRIVATE_LO + 0x800};
        struct insn_effect eff;
        char why[160];
        assert_false(effect_of(cases[i].bytes, cases[i].n, &regs, -1, &eff, why, sizeof why));
        assert_string_equal(why, cases[i].why);
    }
}

static void system_calls(void **state)
{
    (void)state;
    static const uint8_t syscall_insn[] = {0x0f, 0x05};
    struct insn_effect eff;
    char why[160];
    struct user_regs_struct regs = {.rax = SYS_sched_yield};
    assert_true(effect_of(syscall_insn, 2, &regs, -1, &eff, why, sizeof why));
    assert_true(eff.syscall);
    assert_int_equal(eff.n_writes, 0);
    regs = (struct user_regs_struct){.rax = SYS_write};
    assert_false(effect_of(syscall_insn, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "makes system call 1");
    /* A sleep: short ones are followed, long ones and absolute ones not. */
    int mem_fd = open("/proc/self/mem", O_RDONLY);
    assert_true(mem_fd >= 0);
    struct timespec ts = {0, 50 * 1000000};
    regs = (struct user_regs_struct){.rax = SYS_nanosleep, .rdi = (uintptr_t)&ts};
    assert_true(effect_of(syscall_insn, 2, &regs, mem_fd, &eff, why, sizeof why));
    ts.tv_sec = 1;
    assert_false(effect_of(syscall_insn, 2, &regs, mem_fd, &eff, why, sizeof why));
    assert_string_equal(why, "sleeps for longer than 100 ms");
    ts = (struct timespec){0, 1000};
    regs = (struct user_regs_struct){.rax = SYS_clock_nanosleep, .rsi = 1 /* TIMER_ABSTIME */, .rdx = (uintptr_t)&ts};
    assert_false(effect_of(syscall_insn, 2, &regs, mem_fd, &eff, why, sizeof why));
    assert_string_equal(why, "sleeps until a time of the clock");
    close(mem_fd);
}

static void stores_and_pushes(void **state)
{
    (void)state;
    struct insn_effect eff;
    char why[160];
    /* mov dword ptr [rax], ecx */
    static const uint8_t store[] = {0x89, 0x08};
    struct user_regs_struct regs = {.rax = PRIVATE_LO + 0x100, .rsp = PRIVATE_LO + 0xf00};
    assert_true(effect_of(store, 2, &regs, -1, &eff, why, sizeof why));
    assert_int_equal(eff.n_writes, 1);
    assert_int_equal(eff.write_addr[0], PRIVATE_LO + 0x100);
    assert_int_equal(eff.write_len[0], 4);
    /* lock cmpxchg dword ptr [rdi], esi: it may write */
    static const uint8_t cas[] = {0xf0, 0x0f, 0xb1, 0x37};
    regs = (struct user_regs_struct){.rdi = PRIVATE_LO + 0x40, .rsp = PRIVATE_LO + 0xf00};
    assert_true(effect_of(cas, 4, &regs, -1, &eff, why, sizeof why));
    assert_int_equal(eff.n_writes, 1);
    assert_int_equal(eff.write_addr[0], PRIVATE_LO + 0x40);
    /* push rbp: the stack slot below rsp, which the decoder leaves out */
    static const uint8_t push[] = {0x55};
    regs = (struct user_regs_struct){.rsp = PRIVATE_LO + 0xf00};
    assert_true(effect_of(push, 1, &regs, -1, &eff, why, sizeof why));
    assert_int_equal(eff.n_writes, 1);
    assert_int_equal(eff.write_addr[0], PRIVATE_LO + 0xf00 - 16);
    assert_int_equal(eff.write_len[0], 16);
    /* a load changes no memory */
    static const uint8_t load[] = {0x8b, 0x08};  /* mov ecx, dword ptr [rax] */
    regs = (struct user_regs_struct){.rax = PRIVATE_LO + 0x100};
    assert_true(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
    assert_int_equal(eff.n_writes, 0);
}

static void memory_others_change_refused(void **state)
{
    (void)state;
    struct insn_effect eff;
    char why[160];
    static const uint8_t load[] = {0x8b, 0x08};     /* mov ecx, dword ptr [rax] */
    static const uint8_t store[] = {0x89, 0x08};    /* mov dword ptr [rax], ecx */
    struct user_regs_struct regs = {.rax = SHARED_LO + 8};
    assert_false(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "reads memory shared with other processes (MAP_SHARED /dev/shm/x)");
    regs.rax = VVAR_LO + 0x80;
    assert_false(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "reads the kernel's clock data ([vvar])");
    regs.rax = RSEQ_AT + 4;    /* struct rseq's cpu_id */
    assert_false(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "accesses memory the kernel writes (its rseq area: the CPU it runs on)");
    regs.rax = CODE_LO + 0x10;
    assert_false(effect_of(store, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "writes into code (0x30010)");
    regs.rax = 0x90000;         /* in no mapping: it would fault */
    assert_false(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
    assert_string_equal(why, "accesses 0x90000, outside one mapping");
    /* A 4-byte load straddling the end of the private mapping. */
    regs.rax = PRIVATE_LO + 0xffe;
    assert_false(effect_of(load, 2, &regs, -1, &eff, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clock_and_cpu_refused),
        cmocka_unit_test(system_calls),
        cmocka_unit_test(stores_and_pushes),
        cmocka_unit_test(memory_others_change_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
