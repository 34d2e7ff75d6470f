/* Unit tests for supervisor/futex_model: decoding futex(2) arguments from the
 * registers of a syscall stop, and the waiter table (FIFO order, bitsets,
 * requeue). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <linux/futex.h>

#include "supervisor/engine/futex_model.h"

/* x86-64 futex(uaddr, op, val, timeout/val2, uaddr2, val3). */
static struct user_regs_struct futex_regs(uint64_t op)
{
    struct user_regs_struct r;
    memset(&r, 0xa5, sizeof r);     /* garbage in unrelated registers */
    r.rdi = 0x7f0000001000;
    r.rsi = op;
    r.rdx = 0xffffffff00000007;     /* upper half must be dropped: val is 32-bit */
    r.r10 = 0x7ffc00002000;
    r.r8 = 0x7f0000003000;
    r.r9 = 0x1234567800000f0f;      /* val3 is the low 32 bits */
    return r;
}

static void assert_common_fields(const struct futex_call *c)
{
    assert_int_equal(c->uaddr, 0x7f0000001000);
    assert_int_equal(c->val, 7);
    assert_int_equal(c->timeout, 0x7ffc00002000);
    assert_int_equal(c->uaddr2, 0x7f0000003000);
    assert_int_equal(c->val3, 0x00000f0f);
}

static void test_decode_wait(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_WAIT | FUTEX_PRIVATE_FLAG);
    struct futex_call c;
    memset(&c, 0x5a, sizeof c);
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_WAIT);
    assert_int_equal(c.raw_op, FUTEX_WAIT);
    assert_common_fields(&c);
    assert_int_equal(c.bitset, FUTEX_BITSET_MATCH_ANY);
    assert_int_equal(c.nr_requeue, 0);
    assert_false(c.check_val3);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_WAIT");
}

static void test_decode_wait_plain(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_WAIT);
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_WAIT);
    assert_int_equal(c.raw_op, FUTEX_WAIT);
    assert_int_equal(c.bitset, FUTEX_BITSET_MATCH_ANY);
}

static void test_decode_wait_bitset(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_WAIT);
    assert_int_equal(c.raw_op, FUTEX_WAIT_BITSET);
    assert_common_fields(&c);
    assert_int_equal(c.bitset, 0x00000f0f);
    assert_false(c.check_val3);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_WAIT_BITSET");
}

static void test_decode_wake(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_WAKE | FUTEX_PRIVATE_FLAG);
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_WAKE);
    assert_int_equal(c.raw_op, FUTEX_WAKE);
    assert_common_fields(&c);
    assert_int_equal(c.bitset, FUTEX_BITSET_MATCH_ANY);
    assert_int_equal(c.nr_requeue, 0);
    assert_false(c.check_val3);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_WAKE");
}

static void test_decode_wake_bitset(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG);
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_WAKE);
    assert_int_equal(c.raw_op, FUTEX_WAKE_BITSET);
    assert_common_fields(&c);
    assert_int_equal(c.bitset, 0x00000f0f);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_WAKE_BITSET");
}

static void test_decode_cmp_requeue(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG);
    r.rdx = 1;                  /* wake one */
    r.r10 = 0xdead00000000002a; /* val2: requeue at most 42 (low 32 bits) */
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_CMP_REQUEUE);
    assert_int_equal(c.raw_op, FUTEX_CMP_REQUEUE);
    assert_int_equal(c.val, 1);
    assert_int_equal(c.nr_requeue, 42);
    assert_int_equal(c.uaddr, 0x7f0000001000);
    assert_int_equal(c.uaddr2, 0x7f0000003000);
    assert_int_equal(c.val3, 0x00000f0f);
    assert_true(c.check_val3);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_CMP_REQUEUE");
}

static void test_decode_requeue(void **state)
{
    (void)state;
    struct user_regs_struct r = futex_regs(FUTEX_REQUEUE | FUTEX_PRIVATE_FLAG);
    r.r10 = 3;
    struct futex_call c;
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_CMP_REQUEUE);
    assert_int_equal(c.raw_op, FUTEX_REQUEUE);
    assert_int_equal(c.nr_requeue, 3);
    assert_false(c.check_val3);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_REQUEUE");
}

static void test_decode_unsupported(void **state)
{
    (void)state;
    struct futex_call c;
    struct user_regs_struct r = futex_regs(FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG);
    futex_decode(&r, &c);
    assert_int_equal(FUTEX_WAKE_OP, 5);
    assert_int_equal(c.cmd, FUTEX_CMD_UNSUPPORTED);
    assert_int_equal(c.raw_op, 5);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_WAKE_OP");

    r = futex_regs(FUTEX_LOCK_PI);
    futex_decode(&r, &c);
    assert_int_equal(FUTEX_LOCK_PI, 6);
    assert_int_equal(c.cmd, FUTEX_CMD_UNSUPPORTED);
    assert_int_equal(c.raw_op, 6);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_LOCK_PI");

    r = futex_regs(FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    futex_decode(&r, &c);
    assert_int_equal(c.cmd, FUTEX_CMD_UNSUPPORTED);
    assert_string_equal(futex_op_name(c.raw_op), "FUTEX_UNLOCK_PI");
}

static void test_op_names(void **state)
{
    (void)state;
    assert_string_equal(futex_op_name(FUTEX_FD), "FUTEX_FD");
    assert_string_equal(futex_op_name(FUTEX_TRYLOCK_PI), "FUTEX_TRYLOCK_PI");
    assert_string_equal(futex_op_name(FUTEX_WAIT_REQUEUE_PI), "FUTEX_WAIT_REQUEUE_PI");
    assert_string_equal(futex_op_name(FUTEX_CMP_REQUEUE_PI), "FUTEX_CMP_REQUEUE_PI");
    assert_string_equal(futex_op_name(13), "FUTEX_LOCK_PI2");
    /* Out of range and holes do not crash and are not mistaken for an op. */
    assert_string_equal(futex_op_name(14), "an unknown futex operation");
    assert_string_equal(futex_op_name(-1), "an unknown futex operation");
    assert_string_equal(futex_op_name(1000), "an unknown futex operation");
}

/* ---- the waiter table ---- */

static void test_table_fifo(void **state)
{
    (void)state;
    struct futex_table t = {0};
    futex_table_add(&t, 3, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 1, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 7, 0x2000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 2, 0x1000, FUTEX_BITSET_MATCH_ANY, true);

    int out[8] = {0};
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 3);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 2);

    assert_int_equal(futex_table_find(&t, 0x2000, FUTEX_BITSET_MATCH_ANY, out, 8), 1);
    assert_int_equal(out[0], 7);
    assert_int_equal(futex_table_find(&t, 0x3000, FUTEX_BITSET_MATCH_ANY, out, 8), 0);
    futex_table_free(&t);
    assert_null(t.by_thread);
    assert_int_equal(t.n, 0);
}

static void test_table_grows(void **state)
{
    (void)state;
    struct futex_table t = {0};
    for (int i = 1; i <= 100; i++)
        futex_table_add(&t, i, 0x1000 + (uint64_t)(i % 2) * 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    int out[100];
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 100), 50);
    for (int i = 0; i < 50; i++)
        assert_int_equal(out[i], 2 * (i + 1));
    assert_int_equal(futex_table_find(&t, 0x2000, FUTEX_BITSET_MATCH_ANY, out, 100), 50);
    for (int i = 0; i < 50; i++)
        assert_int_equal(out[i], 2 * i + 1);
    futex_table_free(&t);
}

static void test_table_bitset(void **state)
{
    (void)state;
    struct futex_table t = {0};
    futex_table_add(&t, 1, 0x1000, 0x1, false);
    futex_table_add(&t, 2, 0x1000, 0x2, false);
    futex_table_add(&t, 3, 0x1000, 0x3, false);
    futex_table_add(&t, 4, 0x1000, FUTEX_BITSET_MATCH_ANY, false);

    int out[8];
    assert_int_equal(futex_table_find(&t, 0x1000, 0x1, out, 8), 3);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 4);

    assert_int_equal(futex_table_find(&t, 0x1000, 0x2, out, 8), 3);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 4);

    assert_int_equal(futex_table_find(&t, 0x1000, 0x8, out, 8), 1);
    assert_int_equal(out[0], 4);

    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 4);
    futex_table_free(&t);
}

static void test_table_remove(void **state)
{
    (void)state;
    struct futex_table t = {0};
    futex_table_add(&t, 1, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 2, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 3, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    futex_table_add(&t, 4, 0x2000, FUTEX_BITSET_MATCH_ANY, false);

    futex_table_remove(&t, 2);
    assert_int_equal(t.n, 3);
    assert_null(futex_table_get(&t, 2));
    int out[8];
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 3);

    /* Removing a thread that is not waiting changes nothing. */
    futex_table_remove(&t, 99);
    assert_int_equal(t.n, 3);

    /* First and last entries. */
    futex_table_remove(&t, 1);
    futex_table_remove(&t, 4);
    assert_int_equal(t.n, 1);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 1);
    assert_int_equal(out[0], 3);
    assert_int_equal(futex_table_find(&t, 0x2000, FUTEX_BITSET_MATCH_ANY, out, 8), 0);

    /* Re-adding after removal queues at the back. */
    futex_table_add(&t, 1, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 2);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 1);

    futex_table_clear(&t);
    assert_int_equal(t.n, 0);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 0);
    assert_null(futex_table_get(&t, 3));
    futex_table_free(&t);
}

static void test_table_move(void **state)
{
    (void)state;
    struct futex_table t = {0};
    futex_table_add(&t, 1, 0x1000, FUTEX_BITSET_MATCH_ANY, false);   /* cond var */
    futex_table_add(&t, 2, 0x2000, FUTEX_BITSET_MATCH_ANY, false);   /* mutex */
    futex_table_add(&t, 3, 0x1000, 0x4, true);
    futex_table_add(&t, 4, 0x2000, FUTEX_BITSET_MATCH_ANY, false);   /* mutex */
    futex_table_add(&t, 5, 0x1000, FUTEX_BITSET_MATCH_ANY, false);

    /* Requeue thread 1 (oldest on 0x1000) onto 0x2000: it goes behind 2 and 4. */
    futex_table_move(&t, 1, 0x2000);
    assert_int_equal(t.n, 5);
    int out[8];
    assert_int_equal(futex_table_find(&t, 0x2000, FUTEX_BITSET_MATCH_ANY, out, 8), 3);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 4);
    assert_int_equal(out[2], 1);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 2);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 5);

    /* The moved waiter keeps its bitset and timed flag. */
    futex_table_move(&t, 3, 0x2000);
    const struct futex_waiter *w = futex_table_get(&t, 3);
    assert_non_null(w);
    assert_int_equal(w->thread, 3);
    assert_int_equal(w->addr, 0x2000);
    assert_int_equal(w->bitset, 0x4);
    assert_true(w->timed);
    assert_int_equal(futex_table_find(&t, 0x2000, FUTEX_BITSET_MATCH_ANY, out, 8), 4);
    assert_int_equal(out[3], 3);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 1);
    assert_int_equal(out[0], 5);

    /* Moving a thread that is not waiting changes nothing. */
    futex_table_move(&t, 42, 0x1000);
    assert_int_equal(t.n, 5);
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 8), 1);
    futex_table_free(&t);
}

static void test_table_get(void **state)
{
    (void)state;
    struct futex_table t = {0};
    futex_table_add(&t, 10, 0xabc0, 0x5, true);
    futex_table_add(&t, 11, 0xdef0, FUTEX_BITSET_MATCH_ANY, false);
    const struct futex_waiter *w = futex_table_get(&t, 10);
    assert_non_null(w);
    assert_int_equal(w->thread, 10);
    assert_int_equal(w->addr, 0xabc0);
    assert_int_equal(w->bitset, 0x5);
    assert_true(w->timed);
    w = futex_table_get(&t, 11);
    assert_non_null(w);
    assert_int_equal(w->addr, 0xdef0);
    assert_int_equal(w->bitset, FUTEX_BITSET_MATCH_ANY);
    assert_false(w->timed);
    assert_null(futex_table_get(&t, 12));
    futex_table_free(&t);
}

static void test_table_find_max(void **state)
{
    (void)state;
    struct futex_table t = {0};
    for (int i = 1; i <= 5; i++)
        futex_table_add(&t, i, 0x1000, FUTEX_BITSET_MATCH_ANY, false);
    int out[4] = {-1, -1, -1, -1};
    /* Only 2 written, but the count of all matching waiters is returned. */
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, out, 2), 5);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], -1);
    assert_int_equal(out[3], -1);
    /* max 0 with NULL out just counts. */
    assert_int_equal(futex_table_find(&t, 0x1000, FUTEX_BITSET_MATCH_ANY, NULL, 0), 5);
    futex_table_free(&t);
}

/* The table against the plainest model of it (one list in the order the
 * waits began, scanned): random waits, wakes, requeues and clears over
 * a few words and many threads. */
struct model_waiter {
    int thread;
    uint64_t addr;
    uint32_t bitset;
};

static size_t model_find(const struct model_waiter *m, size_t n, uint64_t addr, uint32_t bitset, int *out)
{
    size_t found = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i].addr == addr && (m[i].bitset & bitset))
            out[found++] = m[i].thread;
    return found;
}

static size_t model_index(const struct model_waiter *m, size_t n, int thread)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].thread == thread)
            return i;
    return n;
}

static void test_table_against_model(void **state)
{
    (void)state;
    enum { THREADS = 300, WORDS = 6 };
    struct futex_table t = {0};
    struct model_waiter m[THREADS];
    size_t n = 0;
    uint64_t rnd = 12345;
    for (int round = 0; round < 60000; round++) {
        rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(rnd >> 33);
        int thread = 1 + (int)(r % THREADS);
        uint64_t addr = 0x1000 + 0x40 * ((r >> 9) % WORDS);
        size_t at = model_index(m, n, thread);
        switch ((r >> 16) % 8) {
        case 0: case 1: case 2: case 3:
            if (at == n) {
                uint32_t bitset = (r >> 20) % 4 ? FUTEX_BITSET_MATCH_ANY : 1u << ((r >> 22) % 3);
                futex_table_add(&t, thread, addr, bitset, false);
                m[n++] = (struct model_waiter){thread, addr, bitset};
            }
            break;
        case 4: case 5: case 6:
            futex_table_remove(&t, thread);
            if (at < n) {
                memmove(&m[at], &m[at + 1], (n - at - 1) * sizeof *m);
                n--;
            }
            break;
        default:
            if (r % 1000 == 0) {
                futex_table_clear(&t);
                n = 0;
            } else if (at < n) {
                futex_table_move(&t, thread, addr);
                struct model_waiter w = m[at];
                w.addr = addr;
                memmove(&m[at], &m[at + 1], (n - at - 1) * sizeof *m);
                m[n - 1] = w;
            }
            break;
        }
        assert_int_equal(t.n, n);
        for (int w = 0; w < WORDS; w++) {
            for (uint32_t bitset = 1; bitset <= 4; bitset <<= 1) {
                int got[THREADS], want[THREADS];
                uint64_t word = 0x1000 + 0x40 * (uint64_t)w;
                uint32_t b = bitset == 4 ? FUTEX_BITSET_MATCH_ANY : bitset;
                size_t k = model_find(m, n, word, b, want);
                assert_int_equal(futex_table_find(&t, word, b, got, THREADS), k);
                assert_memory_equal(got, want, k * sizeof *got);
            }
        }
        const struct futex_waiter *g = futex_table_get(&t, thread);
        at = model_index(m, n, thread);
        assert_true((g != NULL) == (at < n));
        if (g)
            assert_true(g->addr == m[at].addr && g->bitset == m[at].bitset && g->thread == thread);
    }
    futex_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_wait),
        cmocka_unit_test(test_decode_wait_plain),
        cmocka_unit_test(test_decode_wait_bitset),
        cmocka_unit_test(test_decode_wake),
        cmocka_unit_test(test_decode_wake_bitset),
        cmocka_unit_test(test_decode_cmp_requeue),
        cmocka_unit_test(test_decode_requeue),
        cmocka_unit_test(test_decode_unsupported),
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_table_fifo),
        cmocka_unit_test(test_table_grows),
        cmocka_unit_test(test_table_bitset),
        cmocka_unit_test(test_table_remove),
        cmocka_unit_test(test_table_against_model),
        cmocka_unit_test(test_table_move),
        cmocka_unit_test(test_table_get),
        cmocka_unit_test(test_table_find_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
