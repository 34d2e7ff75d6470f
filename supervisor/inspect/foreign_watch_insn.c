/* foreign_watch_insn: whether an instruction of a watched thread can be
 * followed, and what it may write (see foreign_watch_insn.h). */
#include "supervisor/inspect/foreign_watch_insn.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>

/* Offset of rseq_cs in struct rseq (linux/rseq.h): non-zero while a
 * thread is inside a restartable sequence, which the kernel may abort. */
enum { RSEQ_CS_OFFSET = 8, MAX_ALLOWED_SLEEP_MS = 100 };

bool watch_memory_read(pid_t pid, const pid_t *tids, size_t n, struct watch_memory *out)
{
    memset(out, 0, sizeof *out);
    if (!proc_maps_read(pid, &out->maps))
        return false;
    out->rseq = calloc(n ? n : 1, sizeof *out->rseq);
    if (!out->rseq) {
        proc_maps_free(&out->maps);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        struct __ptrace_rseq_configuration conf;
        memset(&conf, 0, sizeof conf);
        long got = ptrace(PTRACE_GET_RSEQ_CONFIGURATION, tids[i], (void *)sizeof conf, &conf);
        if (got < 0) {
            out->rseq_unknown = true;   /* a kernel before 5.13: where a thread's rseq area is, unknown */
            continue;
        }
        if (conf.rseq_abi_size == 0)
            continue;
        out->rseq[out->n_rseq][0] = conf.rseq_abi_pointer;
        out->rseq[out->n_rseq][1] = conf.rseq_abi_pointer + conf.rseq_abi_size;
        out->n_rseq++;
    }
    return true;
}

void watch_memory_free(struct watch_memory *m)
{
    proc_maps_free(&m->maps);
    free(m->rseq);
    memset(m, 0, sizeof *m);
}

/* ---- instructions ---- */

/* The mnemonic of insn's text, its prefixes skipped: "cmpxchg" of "lock
 * cmpxchg [rdi], esi". */
static void mnemonic(const struct x86_insn *insn, char *buf, size_t len)
{
    static const char *const prefixes[] = {"lock", "rep", "repe", "repz", "repne", "repnz", "bnd", "notrack"};
    const char *p = insn->text;
    for (;;) {
        size_t word = strcspn(p, " ");
        bool prefix = false;
        for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
            prefix = prefix || (strlen(prefixes[i]) == word && strncmp(p, prefixes[i], word) == 0);
        if (!prefix || !p[word])
            break;
        p += word + 1;
    }
    snprintf(buf, len, "%.*s", (int)strcspn(p, " "), p);
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Instructions whose result does not follow from the thread's state (the
 * clock, random numbers, the CPU it runs on, a transaction's abort), or
 * that write memory of a size the decoder does not give: what to say. */
static const char *refused(const char *m)
{
    static const struct {
        const char *prefix, *says;
    } rules[] = {
        {"rdtsc", "reads the time stamp counter"},
        {"rdpid", "reads the CPU it runs on"},
        {"rdpmc", "reads a performance counter"},
        {"rdrand", "reads a random number"},
        {"rdseed", "reads a random number"},
        {"cpuid", "asks the CPU what it is"},
        {"xgetbv", "reads an extended control register"},
        {"rdpkru", "reads its memory protection keys"},
        {"wrpkru", "changes its memory protection keys"},
        {"xbegin", "begins a memory transaction"},
        {"xend", "ends a memory transaction"},
        {"xabort", "aborts a memory transaction"},
        {"xacquire", "elides a lock (HLE)"},
        {"xrelease", "elides a lock (HLE)"},
        {"umonitor", "waits for a store or the time"},
        {"umwait", "waits for a store or the time"},
        {"tpause", "waits for the time"},
        {"xsave", "saves its extended state"},
        {"xrstor", "restores its extended state"},
        {"fxsave", "saves its x87 and SSE state"},
        {"fxrstor", "restores its x87 and SSE state"},
        {"fsave", "saves its x87 state"},
        {"fnsave", "saves its x87 state"},
        {"frstor", "restores its x87 state"},
        {"fstenv", "saves its x87 environment"},
        {"fnstenv", "saves its x87 environment"},
        {"fldenv", "loads an x87 environment"},
        {"enter", "builds a stack frame (enter)"},
        {"int", "raises an interrupt"},
        {"into", "raises an interrupt"},
        {"ud", "runs an undefined instruction"},
        {"hlt", "halts"},
        {"sysenter", "makes a 32-bit system call"},
        {"senduipi", "sends a user interrupt"},
        {"clui", "changes user interrupts"},
        {"stui", "changes user interrupts"},
        {"testui", "reads user interrupts"},
    };
    /* Whole names: these read the CPU's descriptor tables, whose place
     * or limits differ from one CPU to the next (getcpu's lsl). */
    static const char *const tables[] = {"lsl", "lar", "sgdt", "sidt", "sldt", "str", "smsw", "verr", "verw"};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (starts_with(m, rules[i].prefix))
            return rules[i].says;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (strcmp(m, tables[i]) == 0)
            return "reads a CPU descriptor table (the CPU it runs on)";
    return NULL;
}

/* The calls that change nothing a watched thread reads but their result:
 * a short sleep, a yield, its own ids. The others are not run. */
static bool allowed_syscall(const struct user_regs_struct *r, int mem_fd, char *why, size_t len)
{
    long nr = (long)r->rax;
    uint64_t req = 0;
    switch (nr) {
    case SYS_sched_yield:
    case SYS_getpid:
    case SYS_gettid:
        return true;
    case SYS_nanosleep:
        req = r->rdi;
        break;
    case SYS_clock_nanosleep:
        if (r->rsi != 0) {      /* TIMER_ABSTIME: when it returns depends on the clock */
            snprintf(why, len, "sleeps until a time of the clock");
            return false;
        }
        req = r->rdx;
        break;
    default:
        snprintf(why, len, "makes system call %ld", nr);
        return false;
    }
    struct timespec ts;
    if (mem_fd < 0 || !tracee_read(mem_fd, req, &ts, sizeof ts) || ts.tv_sec < 0 || ts.tv_nsec < 0 ||
        ts.tv_sec * 1000 + ts.tv_nsec / 1000000 > MAX_ALLOWED_SLEEP_MS) {
        snprintf(why, len, "sleeps for longer than %d ms", MAX_ALLOWED_SLEEP_MS);
        return false;
    }
    return true;
}

/* ---- memory ---- */

static bool in_rseq(const struct watch_memory *m, uint64_t lo, uint64_t hi)
{
    for (size_t i = 0; i < m->n_rseq; i++)
        if (lo < m->rseq[i][1] && m->rseq[i][0] < hi)
            return true;
    return false;
}

/* Whether [addr, addr+len) is the process's own memory, which only its
 * threads change; else why not. */
static bool own_memory(const struct watch_memory *m, uint64_t addr, unsigned len, bool write,
                       const struct user_regs_struct *r, char *why, size_t wlen)
{
    const struct proc_mapping *map = proc_maps_find(&m->maps, addr);
    if (!map || addr + len > map->end) {
        snprintf(why, wlen, "accesses 0x%llx, outside one mapping", (unsigned long long)addr);
        return false;
    }
    if (map->shared) {
        snprintf(why, wlen, "%s memory shared with other processes (MAP_SHARED %s)", write ? "writes" : "reads",
                 map->path[0] ? map->path : "anonymous");
        return false;
    }
    if (starts_with(map->path, "[vvar") || strcmp(map->path, "[vsyscall]") == 0) {
        snprintf(why, wlen, "reads the kernel's clock data (%s)", map->path);
        return false;
    }
    if (write && map->exec) {
        snprintf(why, wlen, "writes into code (0x%llx)", (unsigned long long)addr);
        return false;
    }
    /* Where the rseq areas are unknown, the thread's own TLS block
     * around its thread pointer is where glibc keeps one. */
    if (in_rseq(m, addr, addr + len) ||
        (m->rseq_unknown && addr + len > r->fs_base - 4096 && addr < r->fs_base + 4096)) {
        snprintf(why, wlen, "accesses memory the kernel writes (its rseq area: the CPU it runs on)");
        return false;
    }
    return true;
}

static void add_write(struct insn_effect *out, uint64_t addr, unsigned len)
{
    if (out->n_writes < WATCH_MAX_WRITES) {
        out->write_addr[out->n_writes] = addr;
        out->write_len[out->n_writes] = len;
        out->n_writes++;
    }
}

static bool memory_effect(const struct x86_insn *insn, const char *m, const struct user_regs_struct *regs,
                          const struct watch_memory *mem, struct insn_effect *out, char *why, size_t len)
{
    if (insn->flags & (X86_MEM_VECTOR_INDEX | X86_MEM_MASKED)) {
        snprintf(why, len, "accesses memory through a vector of addresses or a mask (%s)", insn->text);
        return false;
    }
    for (int i = 0; i < insn->n_mem; i++) {
        const struct x86_mem_operand *op = &insn->mem[i];
        if (op->size == 255) {
            snprintf(why, len, "accesses a block of memory mdat does not measure (%s)", insn->text);
            return false;
        }
        uint64_t addr = x86_effective_address(insn, i, regs);
        if (!own_memory(mem, addr, op->size, op->write, regs, why, len))
            return false;
        if (op->write)
            add_write(out, addr, op->size);
    }
    /* push and call fill the stack slot below rsp (Zydis lists it as a
     * hidden operand, which x86_decode leaves out). */
    if (starts_with(m, "push") || (insn->flags & X86_CALL)) {
        if (!own_memory(mem, regs->rsp - 16, 16, true, regs, why, len))
            return false;
        add_write(out, regs->rsp - 16, 16);
    }
    return true;
}

bool watch_insn_effect(const struct x86_insn *insn, const struct user_regs_struct *regs, const struct watch_memory *m,
                       int mem_fd, struct insn_effect *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    char name[32];
    mnemonic(insn, name, sizeof name);
    const char *says = refused(name);
    if (says) {
        snprintf(why, len, "%s (%s)", says, name);
        return false;
    }
    if (insn->flags & X86_SYSCALL) {
        if (!allowed_syscall(regs, mem_fd, why, len))
            return false;
        out->syscall = true;
    }
    out->vector = (insn->flags & X86_VECTOR_REGS) != 0;
    return memory_effect(insn, name, regs, m, out, why, len);
}
