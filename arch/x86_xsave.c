/* x86_xsave: the vector registers (struct x86_vector_regs) in and out of
 * an XSAVE area in standard form, the layout PTRACE_GETREGSET and
 * PTRACE_SETREGSET use for NT_X86_XSTATE. The legacy region holds MXCSR
 * and xmm0-15; the extended components' offsets come from CPUID leaf 0xD:
 * 2 (the upper halves of ymm0-15), 5 (k0-7), 6 (the upper halves of
 * zmm0-15) and 7 (zmm16-31). A component whose bit in the header's
 * XSTATE_BV is clear is in its initial state: zeros. */
#include "arch/x86_insn.h"

#include <cpuid.h>
#include <pthread.h>
#include <string.h>

enum { LEGACY_MXCSR = 24, LEGACY_XMM = 160, HEADER = 512, FIRST_EXTENDED = 576 };
enum { C_SSE = 1, C_AVX = 2, C_OPMASK = 5, C_ZMM_HI256 = 6, C_HI16_ZMM = 7 };

static uint32_t component_offset[8], component_size[8];
static uint64_t xcr0;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void read_layout(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
        return;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((uint64_t)hi << 32) | lo;
    for (unsigned i = C_AVX; i <= C_HI16_ZMM; i++)
        if ((xcr0 >> i) & 1 && __get_cpuid_count(0xd, i, &a, &b, &c, &d)) {
            component_size[i] = a;
            component_offset[i] = b;
        }
}

/* Where component i's bytes are in an area of size bytes; NULL when the
 * CPU does not have it or the area is too small. */
static size_t component_at(unsigned i, size_t size)
{
    if (!component_size[i] || component_offset[i] < FIRST_EXTENDED ||
        component_offset[i] + component_size[i] > size)
        return 0;
    return component_offset[i];
}

static uint64_t xstate_bv(const uint8_t *area, size_t size)
{
    uint64_t bv = 0;
    if (size >= HEADER + 8)
        memcpy(&bv, area + HEADER, 8);
    return bv;
}

bool x86_vector_regs_from_xsave(const void *xsave, size_t size, struct x86_vector_regs *out)
{
    pthread_once(&layout_once, read_layout);
    const uint8_t *area = xsave;
    memset(out, 0, sizeof *out);
    if (size < HEADER + 64)
        return false;
    uint64_t bv = xstate_bv(area, size);
    memcpy(&out->mxcsr, area + LEGACY_MXCSR, 4);
    if (bv & (1u << C_SSE))
        for (int i = 0; i < 16; i++)
            memcpy(out->zmm[i], area + LEGACY_XMM + 16 * i, 16);
    size_t at;
    if ((bv & (1u << C_AVX)) && (at = component_at(C_AVX, size)))
        for (int i = 0; i < 16; i++)
            memcpy(out->zmm[i] + 16, area + at + 16 * i, 16);
    if ((bv & (1u << C_OPMASK)) && (at = component_at(C_OPMASK, size)))
        memcpy(out->k, area + at, sizeof out->k);
    if ((bv & (1u << C_ZMM_HI256)) && (at = component_at(C_ZMM_HI256, size)))
        for (int i = 0; i < 16; i++)
            memcpy(out->zmm[i] + 32, area + at + 32 * i, 32);
    if ((bv & (1u << C_HI16_ZMM)) && (at = component_at(C_HI16_ZMM, size)))
        for (int i = 0; i < 16; i++)
            memcpy(out->zmm[16 + i], area + at + 64 * i, 64);
    return true;
}

bool x86_vector_regs_to_xsave(const struct x86_vector_regs *regs, void *xsave, size_t size)
{
    pthread_once(&layout_once, read_layout);
    uint8_t *area = xsave;
    if (size < HEADER + 64)
        return false;
    uint64_t bv = xstate_bv(area, size) | (1u << C_SSE);
    memcpy(area + LEGACY_MXCSR, &regs->mxcsr, 4);
    for (int i = 0; i < 16; i++)
        memcpy(area + LEGACY_XMM + 16 * i, regs->zmm[i], 16);
    size_t at;
    if ((at = component_at(C_AVX, size))) {
        for (int i = 0; i < 16; i++)
            memcpy(area + at + 16 * i, regs->zmm[i] + 16, 16);
        bv |= 1u << C_AVX;
    }
    if ((at = component_at(C_OPMASK, size))) {
        memcpy(area + at, regs->k, sizeof regs->k);
        bv |= 1u << C_OPMASK;
    }
    if ((at = component_at(C_ZMM_HI256, size))) {
        for (int i = 0; i < 16; i++)
            memcpy(area + at + 32 * i, regs->zmm[i] + 32, 32);
        bv |= 1u << C_ZMM_HI256;
    }
    if ((at = component_at(C_HI16_ZMM, size))) {
        for (int i = 0; i < 16; i++)
            memcpy(area + at + 64 * i, regs->zmm[16 + i], 64);
        bv |= 1u << C_HI16_ZMM;
    }
    memcpy(area + HEADER, &bv, 8);
    return true;
}
