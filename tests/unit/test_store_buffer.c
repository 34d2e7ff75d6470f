/* Unit tests for supervisor/engine/store_buffer: x86-TSO's buffers over a
 * fake memory of 64 bytes. A thread sees its own pending stores and no one
 * else's; committing makes a store everyone's, in order; a native write by
 * the viewer over a pending store wins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/engine/store_buffer.h"

static uint8_t memory[64];

static bool fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    if (addr + n > sizeof memory)
        return false;
    memcpy(buf, memory + addr, n);
    return true;
}

static bool fake_write(void *ctx, uint64_t addr, const void *buf, size_t n)
{
    (void)ctx;
    if (addr + n > sizeof memory)
        return false;
    memcpy(memory + addr, buf, n);
    return true;
}

static const struct store_memory fake = {fake_read, fake_write, NULL};

/* What a running thread's store does: memory changes, the store is pending. */
static void store(struct store_buffers *sb, int thread, uint64_t addr, uint8_t value)
{
    assert_true(store_buffers_view(sb, thread));
    uint8_t old = memory[addr];
    memory[addr] = value;
    store_buffers_add(sb, addr, 1, &value, &old, 0x401000, 0);
}

static uint8_t seen_by(struct store_buffers *sb, int thread, uint64_t addr)
{
    assert_true(store_buffers_view(sb, thread));
    return memory[addr];
}

static int setup(void **state)
{
    (void)state;
    memset(memory, 0, sizeof memory);
    return 0;
}

/* The store-buffering litmus test: x = 1; r1 = y || y = 1; r2 = x ends with
 * r1 == r2 == 0 when both stores wait in their buffers. */
static void test_store_buffering_outcome(void **state)
{
    (void)state;
    struct store_buffers *sb = store_buffers_new(&fake);
    enum { X = 8, Y = 16 };
    store(sb, 1, X, 1);
    store(sb, 2, Y, 1);
    assert_int_equal(seen_by(sb, 1, Y), 0);
    assert_int_equal(seen_by(sb, 2, X), 0);
    /* Each sees its own store. */
    assert_int_equal(seen_by(sb, 1, X), 1);
    assert_int_equal(seen_by(sb, 2, Y), 1);
    assert_int_equal(store_buffers_pending(sb, 1), 1);
    assert_true(store_buffers_drain(sb, 1));
    assert_true(store_buffers_drain(sb, 2));
    assert_true(store_buffers_view(sb, 0));
    assert_int_equal(memory[X], 1);
    assert_int_equal(memory[Y], 1);
    store_buffers_free(sb);
}

/* Commits go in program order: a reader never sees the second store
 * without the first. */
static void test_commits_in_order(void **state)
{
    (void)state;
    struct store_buffers *sb = store_buffers_new(&fake);
    enum { DATA = 0, FLAG = 4 };
    store(sb, 1, DATA, 42);
    store(sb, 1, FLAG, 1);
    assert_int_equal(seen_by(sb, 2, FLAG), 0);
    assert_int_equal(seen_by(sb, 2, DATA), 0);
    /* The writer is not the viewer: committing takes effect at once. */
    assert_true(store_buffers_commit_oldest(sb, 1));
    assert_int_equal(seen_by(sb, 2, DATA), 42);
    assert_int_equal(seen_by(sb, 2, FLAG), 0);
    assert_non_null(store_buffers_oldest(sb, 1));
    assert_int_equal(store_buffers_oldest(sb, 1)->addr, FLAG);
    /* The writer is the viewer when it commits its next one. */
    assert_true(store_buffers_view(sb, 1));
    assert_true(store_buffers_commit_oldest(sb, 1));
    assert_int_equal(seen_by(sb, 2, FLAG), 1);
    assert_int_equal(store_buffers_pending(sb, 1), 0);
    store_buffers_free(sb);
}

/* Two pending stores to one byte: the thread sees the newer, others the
 * committed value, and after one commit the older. */
static void test_same_address_twice(void **state)
{
    (void)state;
    struct store_buffers *sb = store_buffers_new(&fake);
    memory[3] = 7;
    store(sb, 1, 3, 1);
    store(sb, 1, 3, 2);
    assert_int_equal(seen_by(sb, 1, 3), 2);
    assert_int_equal(seen_by(sb, 2, 3), 7);
    assert_true(store_buffers_commit_oldest(sb, 1));
    assert_int_equal(seen_by(sb, 2, 3), 1);
    assert_int_equal(seen_by(sb, 1, 3), 2);
    assert_true(store_buffers_drain(sb, 1));
    assert_int_equal(seen_by(sb, 2, 3), 2);
    store_buffers_free(sb);
}

/* Other threads' committed stores show through the viewer's own. */
static void test_other_commits_show_through(void **state)
{
    (void)state;
    struct store_buffers *sb = store_buffers_new(&fake);
    store(sb, 1, 0, 5);
    store(sb, 2, 1, 6);
    assert_true(store_buffers_drain(sb, 2));
    assert_int_equal(seen_by(sb, 1, 1), 6);
    assert_int_equal(seen_by(sb, 1, 0), 5);
    assert_int_equal(seen_by(sb, 3, 0), 0);
    int threads[4];
    assert_int_equal(store_buffers_threads(sb, threads, 4), 1);
    assert_int_equal(threads[0], 1);
    store_buffers_free(sb);
}

/* The viewer's library code wrote over a pending store: that write went
 * to memory for everyone, and the pending store is gone. */
static void test_native_write_wins(void **state)
{
    (void)state;
    struct store_buffers *sb = store_buffers_new(&fake);
    store(sb, 1, 9, 1);
    memory[9] = 99;     /* memset in libc, say */
    assert_int_equal(seen_by(sb, 2, 9), 99);
    assert_int_equal(store_buffers_pending(sb, 1), 0);
    assert_int_equal(seen_by(sb, 1, 9), 99);
    store_buffers_free(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_store_buffering_outcome, setup),
        cmocka_unit_test_setup(test_commits_in_order, setup),
        cmocka_unit_test_setup(test_same_address_twice, setup),
        cmocka_unit_test_setup(test_other_commits_show_through, setup),
        cmocka_unit_test_setup(test_native_write_wins, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
