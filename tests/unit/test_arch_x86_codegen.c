/* Unit tests for arch/ on the code gcc really emits for shared counters,
 * atomics and flags at -O2, in 1, 2, 4 and 8-byte widths: the functions
 * below are compiled by this build's gcc (optimize("O2"), whatever the
 * build type), and the test decodes their bytes where they are loaded.
 * For each function it carries out the instructions before the access to
 * the shared variable with x86_emulate (argument moves and the like, which
 * must be emulated too), then checks how the access is classified (split
 * read-modify-write, atomic, read-only) and that emulating it gives what
 * the C statement means. Assertions are on meaning, not on the exact
 * instruction gcc picked (add [m], 1 or inc [m] both pass). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86_insn.h"

#define O2 __attribute__((optimize("O2"), noinline, noipa, no_sanitize_address, no_sanitize("undefined")))

uint8_t c8;
uint16_t c16;
uint32_t c32;
uint64_t c64;
volatile uint8_t f8;
volatile uint16_t f16;
volatile uint32_t f32;
volatile uint64_t f64;

/* One set of functions per width W on counter c##W and flag f##W. */
#define WIDTH(W)                                                                                          \
    O2 void increment##W(void) { c##W++; }                                                              \
    O2 void add_to##W(uint##W##_t x) { c##W += x; }                                                     \
    O2 void atomic_add##W(void) { __atomic_fetch_add(&c##W, 1, __ATOMIC_SEQ_CST); }                     \
    O2 uint##W##_t fetch_add##W(void) { return __atomic_fetch_add(&c##W, 3, __ATOMIC_SEQ_CST); }         \
    O2 int cas##W(uint##W##_t expected, uint##W##_t desired)                                            \
    {                                                                                                   \
        return __sync_bool_compare_and_swap(&c##W, expected, desired);                                  \
    }                                                                                                   \
    O2 uint##W##_t exchange##W(uint##W##_t v) { return atomic_exchange((_Atomic uint##W##_t *)&c##W, v); } \
    O2 void wait_flag##W(void) { while (!f##W) { } }                                                   \
    O2 int is_turn##W(uint##W##_t me) { return c##W == me; }
WIDTH(8)
WIDTH(16)
WIDTH(32)
WIDTH(64)
O2 int test_and_set_bit(void) { return __atomic_fetch_or(&c32, 4, __ATOMIC_SEQ_CST) & 4; }
O2 void double_it(void) { c32 <<= 1; }                          /* shl [m], 1 */
O2 void halve(void) { c64 >>= 3; }                              /* shr [m], 3 */
_Bool done;
O2 void set_done(int x, int y) { done = x == y; }                 /* sete [m] */
O2 uint32_t pick(uint32_t x) { return x > 3 ? c32 : x; }          /* cmova reg, [m] */

/* ---- running a function up to its access --------------------------------- */

/* The emulator may reach the shared variable only: any other address
 * means it computed a wrong one. */
struct shared {
    uint64_t addr;
    unsigned size;
};

static bool read_shared(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct shared *s = ctx;
    if (addr != s->addr || n != s->size)
        return false;
    memcpy(buf, (void *)(uintptr_t)addr, n);
    return true;
}

static bool write_shared(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    const struct shared *s = ctx;
    if (addr != s->addr || n != s->size)
        return false;
    memcpy((void *)(uintptr_t)addr, buf, n);
    return true;
}

struct at_access {
    x86_decoder *decoder;
    struct shared shared;
    struct x86_memory mem;
    struct x86_insn insn;           /* the instruction that accesses the variable */
    struct user_regs_struct regs;   /* the registers just before it */
};

/* Emulates fn from its entry, with rdi and rsi its arguments, up to the
 * first instruction that accesses var (rip-relative); fails the test when
 * an instruction on the way is not emulated or it returns first. */
static void run_to_access(struct at_access *a, void (*fn)(void), const void *var, unsigned size, uint64_t rdi,
                          uint64_t rsi)
{
    a->shared = (struct shared){(uint64_t)(uintptr_t)var, size};
    a->mem = (struct x86_memory){read_shared, write_shared, &a->shared};
    memset(&a->regs, 0, sizeof a->regs);
    a->regs.rip = (uint64_t)(uintptr_t)fn;
    a->regs.rdi = rdi;
    a->regs.rsi = rsi;
    a->regs.eflags = 0x202;
    for (int n = 0; n < 16; n++) {
        const uint8_t *code = (const uint8_t *)(uintptr_t)a->regs.rip;
        if (!x86_decode(a->decoder, code, 15, a->regs.rip, &a->insn))
            fail_msg("undecodable bytes in the function");
        if (a->insn.n_mem == 1 && (a->insn.flags & X86_MEM_RIP_RELATIVE) && a->insn.rip_target == a->shared.addr) {
            if (a->insn.mem[0].size != size)
                fail_msg("%s: accesses %u bytes, not %u", a->insn.text, a->insn.mem[0].size, size);
            return;
        }
        if (a->insn.flags & X86_RET)
            fail_msg("returned without accessing the variable");
        if (!x86_emulate(&a->insn, &a->regs, &a->mem))
            fail_msg("%s: on the way to the access, not emulated", a->insn.text);
    }
    fail_msg("no access to the variable in 16 instructions");
}

static uint64_t value_of(const void *var, unsigned size)
{
    uint64_t v = 0;
    memcpy(&v, var, size);
    return v;
}

static void set_value(void *var, unsigned size, uint64_t v)
{
    memcpy(var, &v, size);
}

static void emulate_access(struct at_access *a)
{
    if (!x86_emulate(&a->insn, &a->regs, &a->mem))
        fail_msg("%s: not emulated", a->insn.text);
}

/* ---- the statements --------------------------------------------------------- */

/* counter++ and counter += x: a read-modify-write without lock, split in
 * two steps; whole or split, it computes from the value it loaded. */
static void check_counter(struct at_access *a, void (*inc)(void), void (*add)(void), void *counter, unsigned size)
{
    set_value(counter, size, 5);
    run_to_access(a, inc, counter, size, 0, 0);
    assert_true(x86_is_split_rmw(&a->insn));
    assert_false(a->insn.flags & X86_ATOMIC);
    uint64_t old, result;
    assert_true(x86_rmw_load(&a->insn, &a->regs, &a->mem, &old));
    assert_int_equal(old, 5);
    set_value(counter, size, 40);       /* another thread's store, lost */
    assert_true(x86_rmw_result(&a->insn, &a->regs, old, &result));
    assert_int_equal(result, 6);
    assert_true(x86_rmw_store(&a->insn, &a->regs, &a->mem, old));
    assert_int_equal(value_of(counter, size), 6);

    set_value(counter, size, 5);
    run_to_access(a, add, counter, size, 7, 0);
    assert_true(x86_is_split_rmw(&a->insn));
    assert_true(x86_rmw_result(&a->insn, &a->regs, 5, &result));
    assert_int_equal(result, 12);
    emulate_access(a);
    assert_int_equal(value_of(counter, size), 12);
}

/* __atomic_fetch_add, result unused (lock add) and used (lock xadd): one
 * atomic step. */
static void check_fetch_add(struct at_access *a, void (*unused)(void), void (*used)(void), void *counter,
                            unsigned size)
{
    set_value(counter, size, 5);
    run_to_access(a, unused, counter, size, 0, 0);
    assert_true(a->insn.flags & X86_ATOMIC);
    assert_false(x86_is_split_rmw(&a->insn));
    emulate_access(a);
    assert_int_equal(value_of(counter, size), 6);

    run_to_access(a, used, counter, size, 0, 0);
    assert_true(a->insn.flags & X86_ATOMIC);
    assert_false(x86_is_split_rmw(&a->insn));
    emulate_access(a);
    assert_int_equal(value_of(counter, size), 9);
}

/* __sync_bool_compare_and_swap: a cmpxchg whose outcome is known from the
 * registers before it and the value found. */
static void check_cas(struct at_access *a, void (*cas)(void), void *counter, unsigned size)
{
    for (int succeed = 0; succeed < 2; succeed++) {
        set_value(counter, size, succeed ? 3 : 9);
        run_to_access(a, cas, counter, size, 3, 4);
        assert_int_equal(a->insn.emulation, X86_EMU_CMPXCHG);
        assert_true(a->insn.flags & X86_ATOMIC);
        struct x86_cas outcome;
        assert_true(x86_cas_outcome(&a->insn, &a->regs, value_of(counter, size), &outcome));
        assert_int_equal(outcome.expected, 3);
        assert_int_equal(outcome.desired, 4);
        assert_int_equal(outcome.found, succeed ? 3 : 9);
        assert_int_equal(outcome.stored, succeed);
        assert_int_equal(outcome.size, size);
        emulate_access(a);
        assert_int_equal(value_of(counter, size), succeed ? 4 : 9);
        assert_int_equal((a->regs.eflags & 0x40) != 0, succeed);   /* ZF after it says the same */
    }
}

static void check_exchange(struct at_access *a, void (*exchange)(void), void *counter, unsigned size)
{
    set_value(counter, size, 5);
    run_to_access(a, exchange, counter, size, 11, 0);
    assert_int_equal(a->insn.emulation, X86_EMU_XCHG);
    assert_true(a->insn.flags & X86_ATOMIC);
    emulate_access(a);
    assert_int_equal(value_of(counter, size), 11);
}

/* while (!flag) and counter == me: one read, no write. */
static void check_reads(struct at_access *a, void (*wait)(void), void (*compare)(void), const void *flag,
                        void *counter, unsigned size)
{
    void (*fns[])(void) = {wait, compare};
    const void *vars[] = {flag, counter};
    for (int i = 0; i < 2; i++) {
        run_to_access(a, (void (*)(void))fns[i], vars[i], size, 5, 0);
        uint64_t addr;
        unsigned n;
        bool write;
        assert_true(x86_emulated_access(&a->insn, &a->regs, &addr, &n, &write));
        assert_false(write);
        assert_false(x86_is_split_rmw(&a->insn));
        assert_false(a->insn.flags & X86_ATOMIC);
        emulate_access(a);
    }
}

#define CHECK_WIDTH(a, W)                                                                                 \
    do {                                                                                                  \
        check_counter(a, (void (*)(void))increment##W, (void (*)(void))add_to##W, &c##W, W / 8);          \
        check_fetch_add(a, (void (*)(void))atomic_add##W, (void (*)(void))fetch_add##W, &c##W, W / 8);    \
        check_cas(a, (void (*)(void))cas##W, &c##W, W / 8);                                               \
        check_exchange(a, (void (*)(void))exchange##W, &c##W, W / 8);                                     \
        check_reads(a, (void (*)(void))wait_flag##W, (void (*)(void))is_turn##W, (const void *)&f##W, &c##W, W / 8); \
    } while (0)

static void gcc_o2_shared_accesses_are_classified_and_emulated(void **unused)
{
    struct at_access a = {.decoder = x86_decoder_new()};
    assert_non_null(a.decoder);
    CHECK_WIDTH(&a, 8);
    CHECK_WIDTH(&a, 16);
    CHECK_WIDTH(&a, 32);
    CHECK_WIDTH(&a, 64);

    /* __atomic_fetch_or(&c32, 4) & 4: lock bts. */
    c32 = 1;
    run_to_access(&a, (void (*)(void))test_and_set_bit, &c32, 4, 0, 0);
    assert_true(a.insn.flags & X86_ATOMIC);
    emulate_access(&a);
    assert_int_equal(c32, 5);

    /* Shifts of a shared variable are read-modify-writes too. */
    struct { void (*fn)(void); void *var; unsigned size; uint64_t from, to; } shifts[] = {
        {(void (*)(void))double_it, &c32, 4, 5, 10},
        {(void (*)(void))halve, &c64, 8, 80, 10},
    };
    for (int i = 0; i < 2; i++) {
        set_value(shifts[i].var, shifts[i].size, shifts[i].from);
        run_to_access(&a, shifts[i].fn, shifts[i].var, shifts[i].size, 0, 0);
        assert_true(x86_is_split_rmw(&a.insn));
        uint64_t result;
        assert_true(x86_rmw_result(&a.insn, &a.regs, shifts[i].from, &result));
        assert_int_equal(result, shifts[i].to);
        emulate_access(&a);
        assert_int_equal(value_of(shifts[i].var, shifts[i].size), shifts[i].to);
    }
    x86_decoder_free(a.decoder);
}

/* A flag set from a comparison and a conditional load: what the compiler
 * puts around the access (cmp, mov) is emulated too, and the access gives
 * the C result. */
static void gcc_o2_conditional_accesses(void **unused)
{
    struct at_access a = {.decoder = x86_decoder_new()};
    for (int equal = 0; equal < 2; equal++) {
        done = !equal;
        run_to_access(&a, (void (*)(void))set_done, &done, 1, 4, equal ? 4 : 5);
        uint64_t addr;
        unsigned n;
        bool write;
        assert_true(x86_emulated_access(&a.insn, &a.regs, &addr, &n, &write) && write);
        assert_false(x86_is_split_rmw(&a.insn));
        emulate_access(&a);
        assert_int_equal(done, equal);
    }
    c32 = 77;
    for (uint32_t x = 2; x < 6; x += 3) {
        run_to_access(&a, (void (*)(void))pick, &c32, 4, x, 0);
        uint64_t addr;
        unsigned n;
        bool write;
        assert_true(x86_emulated_access(&a.insn, &a.regs, &addr, &n, &write) && !write);
        emulate_access(&a);
        assert_int_equal((uint32_t)a.regs.rax, x > 3 ? 77 : x);
    }
    x86_decoder_free(a.decoder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gcc_o2_shared_accesses_are_classified_and_emulated),
        cmocka_unit_test(gcc_o2_conditional_accesses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
