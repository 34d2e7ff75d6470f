/* pkru: PKRU through ptrace's extended-state register set. The register's
 * place in that (standard-format) area is what CPUID leaf 0xd says of
 * state component 9; the area's header says which components it holds,
 * and a component left out reads as its initial value. */
#include "supervisor/process/pkru.h"

#include "supervisor/process/vector_regs.h"

#include <cpuid.h>
#include <elf.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

enum { XSTATE_MAX = 16384, XSTATE_BV = 512, PKRU_COMPONENT = 9 };

static struct {
    bool probed, supported;
    unsigned offset;        /* of PKRU in the extended state */
    unsigned size;          /* of the whole area */
} cpu;

static void probe(void)
{
    if (cpu.probed)
        return;
    cpu.probed = true;
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 0xd)
        return;
    __cpuid_count(7, 0, a, b, c, d);
    bool pku = c & (1u << 3), ospke = c & (1u << 4);
    if (!pku || !ospke)
        return;
    __cpuid_count(0xd, 0, a, b, c, d);
    if (!(a & (1u << PKRU_COMPONENT)) || b > XSTATE_MAX)
        return;
    cpu.size = b;
    __cpuid_count(0xd, PKRU_COMPONENT, a, b, c, d);
    if (a < 4 || b + 4 > cpu.size)
        return;
    cpu.offset = b;
    cpu.supported = true;
}

bool pkru_supported(void)
{
    probe();
    return cpu.supported;
}

static bool get_xstate(pid_t tid, uint8_t *buf, struct iovec *iov)
{
    iov->iov_base = buf;
    iov->iov_len = XSTATE_MAX;
    return ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, iov) == 0 && iov->iov_len >= cpu.offset + 4;
}

bool pkru_get(pid_t tid, uint32_t *value)
{
    probe();
    static uint8_t buf[XSTATE_MAX];
    struct iovec iov;
    if (!cpu.supported || !get_xstate(tid, buf, &iov))
        return false;
    uint64_t bv;
    memcpy(&bv, buf + XSTATE_BV, sizeof bv);
    if (!(bv & (1ull << PKRU_COMPONENT))) {
        *value = 0;     /* in its initial state: everything open */
        return true;
    }
    memcpy(value, buf + cpu.offset, sizeof *value);
    return true;
}

bool pkru_set(pid_t tid, uint32_t value)
{
    probe();
    static uint8_t buf[XSTATE_MAX];
    struct iovec iov;
    if (!cpu.supported || !vector_regs_flush(tid) || !get_xstate(tid, buf, &iov))
        return false;
    uint64_t bv;
    memcpy(&bv, buf + XSTATE_BV, sizeof bv);
    bv |= 1ull << PKRU_COMPONENT;
    memcpy(buf + XSTATE_BV, &bv, sizeof bv);
    memcpy(buf + cpu.offset, &value, sizeof value);
    return ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == 0;
}

uint32_t pkru_rights(int own_key, int read_only_key)
{
    uint32_t v = 0;
    for (int k = 1; k < 16; k++) {
        if (k == own_key)
            continue;
        if (k == read_only_key)
            v |= 2u << (2 * k);         /* write disabled */
        else
            v |= 1u << (2 * k);         /* access disabled */
    }
    return v;
}
