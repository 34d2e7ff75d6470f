/* pages_setup: page ownership prepared at the program's entry point (see
 * pages_setup.h). The program makes the system calls itself, one `syscall;
 * int3` at a time written over its entry point (put back after): nothing
 * else of its code runs meanwhile. */
#include "supervisor/launch/pages_setup.h"
#include "supervisor/debuginfo/elf_image.h"
#include "supervisor/process/inject_stub.h"
#include "supervisor/process/pkru.h"
#include "supervisor/process/proc_maps.h"
#include "supervisor/process/tracee.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_pkey_mprotect
#define SYS_pkey_mprotect 329
#define SYS_pkey_alloc 330
#endif
/* How far below its mapping the main thread's stack may still grow. */
enum { STACK_REACH = 64 << 20 };

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Calls that map, unmap or protect memory (followed to their end), and
 * calls whose buffers the kernel reaches with the caller's rights. */
static const long mapping_calls[] = {SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_brk};
static const long buffer_calls[] = {
    SYS_read, SYS_write, SYS_open, SYS_stat, SYS_fstat, SYS_lstat, SYS_poll, SYS_pread64, SYS_pwrite64,
    SYS_readv, SYS_writev, SYS_access, SYS_pipe, SYS_select, SYS_sendfile, SYS_connect, SYS_accept,
    SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, SYS_bind, SYS_getsockname, SYS_getpeername,
    SYS_socketpair, SYS_setsockopt, SYS_getsockopt, SYS_wait4, SYS_uname, SYS_fcntl, SYS_getdents,
    SYS_getcwd, SYS_chdir, SYS_rename, SYS_mkdir, SYS_rmdir, SYS_creat, SYS_link, SYS_unlink, SYS_symlink,
    SYS_readlink, SYS_chmod, SYS_chown, SYS_lchown, SYS_gettimeofday, SYS_getrlimit, SYS_getrusage,
    SYS_sysinfo, SYS_times, SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigpending, SYS_rt_sigtimedwait,
    SYS_sigaltstack, SYS_utime, SYS_statfs, SYS_fstatfs, SYS_ioctl, SYS_getdents64, SYS_clock_gettime,
    SYS_clock_getres, SYS_epoll_wait, SYS_epoll_ctl, SYS_openat, SYS_mkdirat, SYS_fchownat, SYS_futimesat,
    SYS_newfstatat, SYS_unlinkat, SYS_renameat, SYS_linkat, SYS_symlinkat, SYS_readlinkat, SYS_fchmodat,
    SYS_faccessat, SYS_pselect6, SYS_ppoll, SYS_utimensat, SYS_epoll_pwait, SYS_accept4, SYS_pipe2,
    SYS_preadv, SYS_pwritev, SYS_recvmmsg, SYS_sendmmsg, SYS_prlimit64, SYS_getrandom, SYS_statx,
    SYS_preadv2, SYS_pwritev2, SYS_waitid, SYS_sched_getaffinity, SYS_sched_setaffinity, SYS_execve,
    SYS_execveat, SYS_renameat2, SYS_getresuid, SYS_getresgid, SYS_getgroups, SYS_timer_create,
    SYS_timer_settime, SYS_timer_gettime, SYS_timerfd_settime, SYS_timerfd_gettime, SYS_setitimer,
    SYS_getitimer, SYS_capget, SYS_capset, SYS_name_to_handle_at, SYS_copy_file_range, SYS_splice,
    SYS_vmsplice, SYS_tee, SYS_process_vm_readv, SYS_process_vm_writev,
};

const long *pages_traced_syscalls(size_t *n)
{
    static long all[sizeof mapping_calls / sizeof *mapping_calls + sizeof buffer_calls / sizeof *buffer_calls];
    size_t k = 0;
    for (size_t i = 0; i < sizeof mapping_calls / sizeof *mapping_calls; i++)
        all[k++] = mapping_calls[i];
    for (size_t i = 0; i < sizeof buffer_calls / sizeof *buffer_calls; i++)
        all[k++] = buffer_calls[i];
    *n = k;
    return all;
}

bool pages_syscall_traced(long nr)
{
    if (pages_syscall_changes_mappings(nr))
        return true;
    for (size_t i = 0; i < sizeof buffer_calls / sizeof *buffer_calls; i++)
        if (buffer_calls[i] == nr)
            return true;
    return false;
}

bool pages_syscall_changes_mappings(long nr)
{
    for (size_t i = 0; i < sizeof mapping_calls / sizeof *mapping_calls; i++)
        if (mapping_calls[i] == nr)
            return true;
    return false;
}

bool pages_supported(void)
{
    const char *off = getenv("MDAT_NO_PAGE_OWNERSHIP");
    if (off && strcmp(off, "1") == 0)
        return false;
    return pkru_supported();
}

bool pages_always(void)
{
    const char *on = getenv("MDAT_ALWAYS_OWN_PAGES");
    return on && strcmp(on, "1") == 0;
}

bool pages_inject(pid_t tid, int mem_fd, uint64_t at, const struct user_regs_struct *regs,
                  const struct stub_call *calls, size_t n, int64_t *results)
{
    static const uint8_t trampoline[3] = {0x0f, 0x05, 0xcc};   /* syscall; int3 */
    uint8_t saved[3];
    if (!tracee_read(mem_fd, at, saved, sizeof saved) || !tracee_write(mem_fd, at, trampoline, sizeof trampoline))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        struct user_regs_struct r = *regs;
        r.rip = at;
        r.rax = calls[i].nr;
        r.orig_rax = (uint64_t)-1;
        r.rdi = calls[i].args[0];
        r.rsi = calls[i].args[1];
        r.rdx = calls[i].args[2];
        r.r10 = calls[i].args[3];
        r.r8 = calls[i].args[4];
        r.r9 = calls[i].args[5];
        ok = tracee_set_regs(tid, &r);
        uint64_t deadline = monotonic_ns() + 10000000000ull;
        for (bool go = true; ok && go;) {
            ok = tracee_cont(tid, 0);
            int st = ok ? tracee_wait_pid(tid, deadline) : -1;
            if (st < 0 || !WIFSTOPPED(st)) {
                ok = false;
                break;
            }
            /* A seccomp stop of the call on its way: it goes on. */
            go = !((st >> 16) == 0 && WSTOPSIG(st) == SIGTRAP);
        }
        struct user_regs_struct after;
        ok = ok && tracee_get_regs(tid, &after);
        if (ok)
            results[i] = (int64_t)after.rax;
    }
    ok = tracee_write(mem_fd, at, saved, sizeof saved) && ok;
    return tracee_set_regs(tid, regs) && ok;
}

static bool add_range(struct pages_range **list, size_t *n, uint64_t start, uint64_t end)
{
    struct pages_range *l = realloc(*list, (*n + 1) * sizeof **list);
    if (!l)
        return false;
    l[*n] = (struct pages_range){start, end};
    *list = l;
    (*n)++;
    return true;
}

static int prot_of(const struct proc_mapping *m)
{
    return (m->read ? PROT_READ : 0) | (m->write ? PROT_WRITE : 0) | (m->exec ? PROT_EXEC : 0);
}

/* mdat's allocator (inprogram/mdat_alloc.c) reserves its region at the
 * first allocation, which in a C++ program comes before the entry point
 * (the library's constructors): [*start, *end) when it is there. */
static bool allocator_region(pid_t pid, const struct proc_mapping *m, uint64_t *start, uint64_t *end)
{
    const char *base = strrchr(m->path, '/');
    if (!base || strcmp(base + 1, "libmdat_alloc.so") != 0 || m->offset != 0)
        return false;
    char err[256];
    elf_image *img = elf_image_open(m->path, err, sizeof err);
    uint64_t at, region[2];
    bool found = img && elf_image_symbol_addrs(img, "mdat_alloc_region", &at, 1) == 1 &&
                 tracee_read_as_program(pid, m->start - elf_image_base_vaddr(img) + at, region, sizeof region) &&
                 region[0] && region[1];
    if (img)
        elf_image_close(img);
    if (found) {
        *start = region[0];
        *end = region[0] + region[1];
    }
    return found;
}

/* The memory mdat follows at the entry point: the executable's writable
 * data (and its .bss), the heap and mdat's allocator's region; the main
 * thread's stack is its own. */
static bool find_memory(pid_t pid, const code_map *code, struct pages_image *img, char *err, size_t errlen)
{
    struct proc_maps maps;
    if (!proc_maps_read(pid, &maps)) {
        snprintf(err, errlen, "cannot read the memory map of process %d", (int)pid);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < maps.n; i++) {
        const struct proc_mapping *m = &maps.m[i];
        vma_list_set(&img->vmas, m->start, m->end, prot_of(m), m->shared);
        if (strcmp(m->path, "[stack]") == 0) {
            /* It grows down (with its key) as far as its limit lets it. */
            img->main_stack = (struct pages_range){m->end > STACK_REACH ? m->end - STACK_REACH : 0, m->end};
            img->main_stack_mapped = m->start;
            continue;
        }
        uint64_t region_start, region_end;
        if (allocator_region(pid, m, &region_start, &region_end))
            ok = add_range(&img->followed, &img->n_followed, region_start, region_end);
        if (!m->write || m->shared || m->exec)
            continue;
        bool exe_data = code_map_in_own_module(code, m->start);
        if (exe_data || strcmp(m->path, "[heap]") == 0)
            ok = add_range(&img->followed, &img->n_followed, m->start, m->end);
    }
    proc_maps_free(&maps);
    if (!ok)
        snprintf(err, errlen, "out of memory");
    else if (!img->main_stack.end)
        snprintf(err, errlen, "the program has no [stack] mapping");
    return ok && img->main_stack.end;
}

/* The pages of [start, end) mdat follows. */
static bool followed(const struct pages_image *img, uint64_t start, uint64_t end)
{
    for (size_t i = 0; i < img->n_followed; i++)
        if (img->followed[i].start < end && start < img->followed[i].end)
            return true;
    return false;
}

/* The executable's PLT jumps through .got.plt, which shares a page with
 * its first data (.data, .bss): every call of a library function would
 * touch a page the program's threads share, and fault. With LD_BIND_NOW
 * (spawn.c) every entry is final at the entry point: mdat copies the
 * table to a page of its own near the executable (within a 32-bit
 * displacement of the PLT, never followed) and points each PLT jump at
 * the copy. */
static bool redirect_plt(pid_t pid, int mem_fd, const struct user_regs_struct *entry, code_map *code,
                         const struct pages_image *img, char *err, size_t errlen)
{
    const elf_image *elf = debuginfo_elf(code_map_exe(code));
    uint64_t bias = code_map_bias(code);
    const struct elf_section *secs;
    size_t n = elf_image_sections(elf, &secs);
    uint64_t got = 0, got_end = 0;
    for (size_t i = 0; i < n; i++)
        if (secs[i].name && strcmp(secs[i].name, ".got.plt") == 0) {
            got = bias + secs[i].addr;
            got_end = got + secs[i].size;
        }
    if (!got || !followed(img, got, got_end))
        return true;
    uint64_t first = got & ~4095ull, size = ((got_end + 4095) & ~4095ull) - first;
    uint64_t lowest = UINT64_MAX;
    for (size_t i = 0; i < img->vmas.n; i++)
        if (code_map_in_exe(code, img->vmas.at[i].start) && img->vmas.at[i].start < lowest)
            lowest = img->vmas.at[i].start;
    struct stub_call map = {SYS_mmap, {lowest - size - 4096, size, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0}};
    int64_t copy;
    uint8_t table[65536];
    if (lowest == UINT64_MAX || size > sizeof table || !pages_inject(pid, mem_fd, entry->rip, entry, &map, 1, &copy) ||
        copy < 0 || !tracee_read(mem_fd, first, table, size) || !tracee_write(mem_fd, (uint64_t)copy, table, size)) {
        snprintf(err, errlen, "cannot copy the executable's PLT table");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!secs[i].name || !secs[i].exec || strncmp(secs[i].name, ".plt", 4) != 0)
            continue;
        for (uint64_t at = bias + secs[i].addr, end = at + secs[i].size; at < end;) {
            bool planted;
            const struct x86_insn *in = code_map_insn_at(code, mem_fd, at, &planted);
            if (!in || in->length == 0) {
                at++;
                continue;
            }
            if (in->emulation == X86_EMU_JUMP_MEM && (in->flags & X86_MEM_RIP_RELATIVE)) {
                struct user_regs_struct r = {.rip = at};
                uint64_t target = x86_effective_address(in, 0, &r);
                int64_t disp = (int64_t)((uint64_t)copy + (target - first)) - (int64_t)(at + in->length);
                int32_t d32 = (int32_t)disp;
                if (target >= got && target < got_end && d32 == disp &&
                    !tracee_write(mem_fd, at + in->length - 4, &d32, sizeof d32)) {
                    snprintf(err, errlen, "cannot redirect the executable's PLT");
                    return false;
                }
            }
            at += in->length;
        }
    }
    return true;
}

bool pages_setup(pid_t pid, int mem_fd, const struct user_regs_struct *entry, code_map *code,
                 struct pages_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    vma_list_init(&img->vmas);
    uint64_t at = entry->rip;
    /* Keys: one no thread may touch, one all may only read, the rest one per thread. */
    struct stub_call calls[PAGES_MAX_KEYS];
    int64_t results[PAGES_MAX_KEYS];
    for (int i = 0; i < PAGES_MAX_KEYS - 1; i++)
        calls[i] = (struct stub_call){SYS_pkey_alloc, {0, 0}};
    if (!pages_inject(pid, mem_fd, at, entry, calls, PAGES_MAX_KEYS - 1, results)) {
        snprintf(err, errlen, "cannot run system calls in the program");
        return false;
    }
    int keys[PAGES_MAX_KEYS], n_keys = 0;
    for (int i = 0; i < PAGES_MAX_KEYS - 1; i++)
        if (results[i] > 0 && results[i] < PAGES_MAX_KEYS)
            keys[n_keys++] = (int)results[i];
    if (n_keys < 4) {
        snprintf(err, errlen, "the kernel gave only %d protection keys", n_keys);
        return false;
    }
    img->key_closed = keys[0];
    img->key_read_only = keys[1];
    for (int i = 2; i < n_keys; i++)
        img->thread_keys[img->n_thread_keys++] = keys[i];

    /* The stub: its code read-only and executable, its data and stack
     * writable, all of it key 0 (never followed). */
    size_t code_len;
    const uint8_t *code_bytes = stub_code(&code_len);
    struct stub_call map[3] = {
        {SYS_mmap, {STUB_BASE, STUB_PAGES * 4096ull, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0}},
        {SYS_brk, {0}},
    };
    if (!pages_inject(pid, mem_fd, at, entry, map, 2, results) || results[0] != (int64_t)STUB_BASE) {
        snprintf(err, errlen, "cannot map mdat's stub into the program at 0x%llx", (unsigned long long)STUB_BASE);
        return false;
    }
    img->brk_start = img->brk_end = ((uint64_t)results[1] + 4095) & ~4095ull;
    /* Each slot's code read-only and executable. */
    struct stub_call protect[STUB_SLOTS];
    int64_t protected[STUB_SLOTS];
    bool written = true;
    for (int i = 0; i < STUB_SLOTS; i++) {
        uint64_t slot = STUB_BASE + (uint64_t)i * STUB_SLOT_PAGES * 4096;
        written = written && tracee_write(mem_fd, slot, code_bytes, code_len);
        protect[i] = (struct stub_call){SYS_mprotect, {slot, STUB_CODE_PAGES * 4096ull, PROT_READ | PROT_EXEC}};
    }
    if (!written || !pages_inject(pid, mem_fd, at, entry, protect, STUB_SLOTS, protected)) {
        snprintf(err, errlen, "cannot write mdat's stub into the program");
        return false;
    }
    for (int i = 0; i < STUB_SLOTS; i++)
        if (protected[i] != 0) {
            snprintf(err, errlen, "cannot write mdat's stub into the program");
            return false;
        }

    if (!find_memory(pid, code, img, err, errlen) || !redirect_plt(pid, mem_fd, entry, code, img, err, errlen))
        return false;

    vma_list_set(&img->vmas, STUB_BASE, STUB_BASE + STUB_PAGES * 4096ull, PROT_READ | PROT_WRITE, false);

    /* Close the followed memory; the main thread's stack carries its key. */
    size_t n = 0;
    struct stub_call *tag = calloc(img->n_followed + 1, sizeof *tag);
    int64_t *tag_results = calloc(img->n_followed + 1, sizeof *tag_results);
    if (!tag || !tag_results) {
        free(tag);
        free(tag_results);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < img->n_followed; i++) {
        const struct vma *v = vma_list_find(&img->vmas, img->followed[i].start);
        tag[n++] = (struct stub_call){SYS_pkey_mprotect, {img->followed[i].start,
                                                           img->followed[i].end - img->followed[i].start,
                                                           (uint64_t)(v ? v->prot : PROT_READ | PROT_WRITE),
                                                           (uint64_t)img->key_closed}};
    }
    const struct vma *stack = vma_list_find(&img->vmas, img->main_stack_mapped);
    tag[n++] = (struct stub_call){SYS_pkey_mprotect, {img->main_stack_mapped,
                                                       img->main_stack.end - img->main_stack_mapped,
                                                       (uint64_t)(stack ? stack->prot : PROT_READ | PROT_WRITE),
                                                       (uint64_t)img->thread_keys[0]}};
    bool ok = pages_inject(pid, mem_fd, at, entry, tag, n, tag_results);
    for (size_t i = 0; ok && i < n; i++)
        ok = tag_results[i] == 0;
    free(tag);
    free(tag_results);
    if (!ok || !pkru_set(pid, pkru_rights(img->thread_keys[0], img->key_read_only))) {
        /* Every key open: whatever was tagged is the program's as before. */
        pkru_set(pid, PKRU_ALL_OPEN);
        snprintf(err, errlen, "cannot give the program's memory its protection keys");
        return false;
    }
    img->ready = true;
    return true;
}

void pages_image_free(struct pages_image *img)
{
    vma_list_free(&img->vmas);
    free(img->followed);
    img->followed = NULL;
    img->n_followed = 0;
    img->ready = false;
}
