/* syscall_filter: the one seccomp policy, for the three ABIs (see
 * syscall_filter.h). Two lists make it: the calls mdat models (they stop
 * on x86-64 and mdat carries them out or waits for them in its model) and
 * the calls that can name another process (they stop, and exec_refuse.c
 * refuses them when the process is mdat's). Through another ABI mdat
 * models nothing (the numbers and registers are not x86-64's), so every
 * call of either list stops marked with its ABI and is refused there;
 * the rest (getpid through int $0x80, a 32-bit write to stdout) runs. */
#include "supervisor/launch/syscall_filter.h"

#include "supervisor/launch/pages_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* Which arguments make a call stop (on every ABI alike, except CLONE). */
enum stop_when {
    ALWAYS,
    /* Natively always; through another ABI only a0 > 2 (a 32-bit write to
     * stdout runs, as it did). Standard input never waits (mdat's input)
     * and the standard outputs are captured, but the order in which two
     * threads write them is part of what the program does (exec_syscalls.c
     * tells the step's descriptor to dpor). */
    FD_ABOVE_STDIO,
    MAKES_PROCESS,      /* clone without CLONE_THREAD (a thread is seen through ptrace's clone event) */
    A1_IS,              /* a1 == value (an fcntl or ioctl command) */
    A0_NOT_SELF,        /* a0 (a pid) != 0 */
    A0_IS_NOT,          /* a0 != value (a "which" other than one process) */
    A1_NOT_SELF,        /* a1 (a pid) != 0 */
    A0_IS,              /* a0 == value (a signal number) */
    A2_HAS,             /* a2 has the bits of value (a protection) */
    A3_HAS,             /* a3 has the bits of value (mmap's flags) */
};

struct stop_rule {
    const char *name;   /* libseccomp's name: resolved on each ABI */
    enum stop_when when;
    uint64_t value;
};

/* What mdat models (exec_stops.c, io_wait.c): the futex and its model,
 * yields and sleeps, the end of the process, signals between the
 * program's threads (noted, and refused when they reach mdat), ptrace
 * (always refused), and the calls that can wait for another thread or
 * make a process. clone3 is not stopped (its flags are in memory, out of
 * the filter's reach): glibc makes threads with it, and a process made
 * with it is seen through ptrace's fork event. */
static const struct stop_rule modeled[] = {
    {"futex", ALWAYS, 0}, {"futex_waitv", ALWAYS, 0}, {"sched_yield", ALWAYS, 0},
    {"nanosleep", ALWAYS, 0}, {"clock_nanosleep", ALWAYS, 0}, {"exit_group", ALWAYS, 0},
    {"kill", ALWAYS, 0}, {"tkill", ALWAYS, 0}, {"tgkill", ALWAYS, 0},
    {"rt_sigqueueinfo", ALWAYS, 0}, {"rt_tgsigqueueinfo", ALWAYS, 0}, {"pidfd_send_signal", ALWAYS, 0},
    {"ptrace", ALWAYS, 0},
    {"recvfrom", ALWAYS, 0}, {"recvmsg", ALWAYS, 0}, {"sendto", ALWAYS, 0}, {"sendmsg", ALWAYS, 0},
    {"accept", ALWAYS, 0}, {"accept4", ALWAYS, 0}, {"connect", ALWAYS, 0},
    {"poll", ALWAYS, 0}, {"ppoll", ALWAYS, 0}, {"select", ALWAYS, 0}, {"pselect6", ALWAYS, 0},
    {"epoll_wait", ALWAYS, 0}, {"epoll_pwait", ALWAYS, 0},
    {"wait4", ALWAYS, 0}, {"waitid", ALWAYS, 0},
    {"fork", ALWAYS, 0}, {"vfork", ALWAYS, 0}, {"execve", ALWAYS, 0}, {"execveat", ALWAYS, 0},
    {"clone", MAKES_PROCESS, 0},
    {"read", FD_ABOVE_STDIO, 0}, {"write", FD_ABOVE_STDIO, 0},
    {"readv", FD_ABOVE_STDIO, 0}, {"writev", FD_ABOVE_STDIO, 0},
    /* Never a wait (files), but the kernel writes or reads their buffers. */
    {"pread64", FD_ABOVE_STDIO, 0}, {"pwrite64", FD_ABOVE_STDIO, 0},
    {"preadv", FD_ABOVE_STDIO, 0}, {"pwritev", FD_ABOVE_STDIO, 0},
    {"preadv2", FD_ABOVE_STDIO, 0}, {"pwritev2", FD_ABOVE_STDIO, 0},
    /* Memory mapped twice or shared with another process (page_cache.c). */
    {"mremap", ALWAYS, 0}, {"shmat", ALWAYS, 0}, {"mmap", A3_HAS, MAP_SHARED},
    /* Code that appears or changes at run time (a JIT, self-modifying
     * code, dlopen), which running ahead must not decode from what it saw
     * before (code_map.h). */
    {"mmap", A2_HAS, PROT_EXEC}, {"mprotect", A2_HAS, PROT_EXEC}, {"pkey_mprotect", A2_HAS, PROT_EXEC},
    /* Timers whose signals come while a thread runs ahead in mdat, or
     * waits in its model (exec_signals.c). */
    {"alarm", ALWAYS, 0}, {"setitimer", ALWAYS, 0}, {"timer_settime", ALWAYS, 0},
    /* A handler of the program's own for SIGTRAP must not be blocked while
     * mdat's traps happen (exec_signals.c). */
    {"rt_sigaction", A0_IS, SIGTRAP},
};

/* The same calls under the names only the 32-bit ABI has (libseccomp
 * sends recv, send, accept... through socketcall too), and clone3, which
 * through another ABI could make a thread mdat would misread. */
static const struct stop_rule modeled_32bit_only[] = {
    {"waitpid", ALWAYS, 0}, {"_newselect", ALWAYS, 0}, {"recv", ALWAYS, 0}, {"send", ALWAYS, 0},
    {"futex_time64", ALWAYS, 0}, {"clock_nanosleep_time64", ALWAYS, 0}, {"ppoll_time64", ALWAYS, 0},
    {"pselect6_time64", ALWAYS, 0}, {"clone3", ALWAYS, 0},
};

/* Calls that can reach another process of the same user (signal it,
 * change its limits or scheduling, read or write its memory, compare its
 * files): exec_refuse.c lets them run on the program's own processes and
 * refuses them on mdat's. A signal number chosen with F_SETSIG goes only
 * to the owner that F_SETOWN or an ioctl set, which stop here. */
static const struct stop_rule reaching[] = {
    {"fcntl", A1_IS, F_SETOWN}, {"fcntl", A1_IS, F_SETOWN_EX},
    {"fcntl64", A1_IS, F_SETOWN}, {"fcntl64", A1_IS, F_SETOWN_EX},
    {"ioctl", A1_IS, FIOSETOWN}, {"ioctl", A1_IS, SIOCSPGRP},
    {"prlimit64", A0_NOT_SELF, 0},
    {"sched_setaffinity", A0_NOT_SELF, 0}, {"sched_setparam", A0_NOT_SELF, 0},
    {"sched_setscheduler", A0_NOT_SELF, 0}, {"sched_setattr", A0_NOT_SELF, 0},
    {"setpriority", A0_IS_NOT, PRIO_PROCESS}, {"setpriority", A1_NOT_SELF, 0},
    {"ioprio_set", A0_IS_NOT, 1 /* IOPRIO_WHO_PROCESS */}, {"ioprio_set", A1_NOT_SELF, 0},
    {"migrate_pages", A0_NOT_SELF, 0}, {"move_pages", A0_NOT_SELF, 0}, {"get_robust_list", A0_NOT_SELF, 0},
    {"process_vm_readv", ALWAYS, 0}, {"process_vm_writev", ALWAYS, 0}, {"process_madvise", ALWAYS, 0},
    {"kcmp", ALWAYS, 0}, {"pidfd_open", ALWAYS, 0}, {"pidfd_getfd", ALWAYS, 0},
};

static int add_rule(scmp_filter_ctx ctx, uint32_t action, const struct stop_rule *r, bool native)
{
    int nr = seccomp_syscall_resolve_name(r->name);
    if (nr == __NR_SCMP_ERROR)
        return 0;       /* unknown to this libseccomp: no ABI has it */
    struct scmp_arg_cmp cmp[1];
    unsigned n = 1;
    switch (r->when) {
    case ALWAYS:
        n = 0;
        break;
    case FD_ABOVE_STDIO:
        if (native)
            n = 0;
        else
            cmp[0] = SCMP_A0_32(SCMP_CMP_GT, 2);
        break;
    case MAKES_PROCESS:
        if (native)
            cmp[0] = SCMP_A0_32(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
        else
            n = 0;
        break;
    case A1_IS:
        cmp[0] = SCMP_A1_32(SCMP_CMP_EQ, r->value);
        break;
    case A0_NOT_SELF:
        cmp[0] = SCMP_A0_32(SCMP_CMP_NE, 0);
        break;
    case A0_IS_NOT:
        cmp[0] = SCMP_A0_32(SCMP_CMP_NE, r->value);
        break;
    case A1_NOT_SELF:
        cmp[0] = SCMP_A1_32(SCMP_CMP_NE, 0);
        break;
    case A0_IS:
        cmp[0] = SCMP_A0_32(SCMP_CMP_EQ, r->value);
        break;
    case A2_HAS:
        cmp[0] = SCMP_A2_32(SCMP_CMP_MASKED_EQ, r->value, r->value);
        break;
    case A3_HAS:
        cmp[0] = SCMP_A3_32(SCMP_CMP_MASKED_EQ, r->value, r->value);
        break;
    }
    return seccomp_rule_add_array(ctx, action, nr, n, n ? cmp : NULL);
}

static int add_rules(scmp_filter_ctx ctx, uint32_t action, const struct stop_rule *rules, size_t n, bool native)
{
    for (size_t i = 0; i < n; i++) {
        int rc = add_rule(ctx, action, &rules[i], native);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* With page ownership, on x86-64: the calls that map memory, and those
 * whose buffers the kernel reaches with the calling thread's rights
 * (pages_setup.h), stop too. */
static int add_pages_rules(scmp_filter_ctx ctx, uint32_t action)
{
    size_t n;
    const long *nrs = pages_traced_syscalls(&n);
    for (size_t i = 0; i < n; i++) {
        int rc = seccomp_rule_add_array(ctx, action, (int)nrs[i], 0, NULL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The rules of one ABI, in a filter of its own (merged below). */
static scmp_filter_ctx abi_filter(uint32_t arch, enum syscall_abi abi, bool pages, int *rc)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        *rc = -ENOMEM;
        return NULL;
    }
    bool native = abi == SYSCALL_ABI_X86_64;
    if (!native && ((*rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE)) != 0 || (*rc = seccomp_arch_add(ctx, arch)) != 0)) {
        seccomp_release(ctx);
        return NULL;
    }
    uint32_t action = SCMP_ACT_TRACE(abi);
    *rc = add_rules(ctx, action, modeled, sizeof modeled / sizeof modeled[0], native);
    if (*rc == 0 && !native)
        *rc = add_rules(ctx, action, modeled_32bit_only, sizeof modeled_32bit_only / sizeof modeled_32bit_only[0],
                        native);
    if (*rc == 0)
        *rc = add_rules(ctx, action, reaching, sizeof reaching / sizeof reaching[0], native);
    if (*rc == 0 && native && pages)
        *rc = add_pages_rules(ctx, action);
    if (*rc != 0) {
        seccomp_release(ctx);
        return NULL;
    }
    return ctx;
}

/* The filter's BPF, without and with page ownership's rules. */
struct prepared_filter {
    bool ready;
    struct sock_filter *code;
    unsigned short len;
};
static struct prepared_filter prepared[2];

/* The merged filter's BPF, exported through a memory file (libseccomp
 * 2.5 exports to a descriptor only). */
static bool export_bpf(scmp_filter_ctx ctx, struct prepared_filter *out, char *err, size_t errlen)
{
    int fd = memfd_create("mdat-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "seccomp filter: memfd_create: %s", strerror(errno));
        return false;
    }
    int rc = seccomp_export_bpf(ctx, fd);
    off_t size = lseek(fd, 0, SEEK_END);
    if (rc != 0 || size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
        size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
        snprintf(err, errlen, "seccomp filter: cannot export it (%s)", rc ? strerror(-rc) : "bad size");
        close(fd);
        return false;
    }
    out->code = malloc((size_t)size);
    bool ok = out->code && pread(fd, out->code, (size_t)size, 0) == size;
    close(fd);
    if (!ok) {
        free(out->code);
        out->code = NULL;
        snprintf(err, errlen, "seccomp filter: cannot read it back");
        return false;
    }
    out->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
    return true;
}

static bool prepare_one(bool pages, struct prepared_filter *out, char *err, size_t errlen)
{
    if (out->ready)
        return true;
    int rc = 0;
    scmp_filter_ctx all = abi_filter(SCMP_ARCH_X86_64, SYSCALL_ABI_X86_64, pages, &rc);
    scmp_filter_ctx i386 = all ? abi_filter(SCMP_ARCH_X86, SYSCALL_ABI_I386, pages, &rc) : NULL;
    scmp_filter_ctx x32 = i386 ? abi_filter(SCMP_ARCH_X32, SYSCALL_ABI_X32, pages, &rc) : NULL;
    /* merge releases the filter it merges in */
    if (x32 && (rc = seccomp_merge(all, i386)) == 0) {
        i386 = NULL;
        if ((rc = seccomp_merge(all, x32)) == 0)
            x32 = NULL;
    }
    bool ok = rc == 0 && all;
    if (ok) {
        /* A binary search on the call number: a call that does not stop
         * passes a handful of comparisons, not one per rule. */
        seccomp_attr_set(all, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        ok = export_bpf(all, out, err, errlen);
    } else {
        snprintf(err, errlen, "seccomp filter: libseccomp: %s", strerror(rc ? -rc : ENOMEM));
    }
    seccomp_release(all);
    seccomp_release(i386);
    seccomp_release(x32);
    out->ready = ok;
    return ok;
}

bool syscall_filter_prepare(bool follow_pages, char *err, size_t errlen)
{
    return prepare_one(follow_pages, &prepared[follow_pages], err, errlen);
}

int syscall_filter_install(bool follow_pages)
{
    const struct prepared_filter *f = &prepared[follow_pages];
    if (!f->ready) {
        errno = EINVAL;
        return -1;
    }
    struct sock_fprog prog = {.len = f->len, .filter = f->code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

void syscall_filter_name(enum syscall_abi abi, long nr, char *buf, size_t len)
{
    uint32_t arch = abi == SYSCALL_ABI_I386 ? SCMP_ARCH_X86 : abi == SYSCALL_ABI_X32 ? SCMP_ARCH_X32 : SCMP_ARCH_X86_64;
    char *name = nr >= 0 && nr <= INT32_MAX ? seccomp_syscall_resolve_num_arch(arch, (int)nr) : NULL;
    if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "call %ld", nr);
    free(name);
}

const char *syscall_filter_abi_name(enum syscall_abi abi)
{
    switch (abi) {
    case SYSCALL_ABI_I386:
        return "the 32-bit int $0x80 ABI";
    case SYSCALL_ABI_X32:
        return "the x32 ABI";
    case SYSCALL_ABI_X86_64:
        break;
    }
    return "the 64-bit ABI";
}
