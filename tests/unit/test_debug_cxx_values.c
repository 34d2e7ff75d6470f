/* Unit tests for how values of the C++ library's types read
 * (supervisor/debuginfo/value_format.c), on the globals of
 * tests/fixtures/cxx_fixture.cpp: a std::atomic<T> or std::atomic_flag is
 * its value ("true", "7"), not the library's members
 * ("{_M_base = {_M_i = true}}"), under gcc and clang; the parts of a
 * shared_ptr, unique_ptr, vector and string are named by what they are,
 * and read as what they hold ("points to 3, use_count 2", "size 3 {3, 4,
 * 5}", "\"sum\""). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/debuginfo/value_format.h"
#include "debug_fixture_support.h"

/* The value bytes give when read as the variable called name. */
static void check_value(const debuginfo *di, const char *build, const char *name, const void *bytes,
                        size_t n, const char *want)
{
    uint64_t addr;
    const struct dwarf_type *type;
    char err[256], text[256];
    if (!debuginfo_eval(di, name, NULL, &addr, &type, err, sizeof err))
        fail_msg("%s: %s: %s", build, name, err);
    dwarf_format_bytes(type, bytes, n, text, sizeof text);
    if (strcmp(text, want) != 0)
        fail_msg("%s: %s reads \"%s\", expected \"%s\"", build, name, text, want);
}

static void test_atomics_read_as_values(void **state)
{
    (void)state;
    static const char *const builds[] = { "cxx_fixture_o0", "cxx_fixture_o2", "cxx_fixture_o0_dwarf4",
                                          "cxx_fixture_clang_o0", "cxx_fixture_clang_o2" };
    for (size_t i = 0; i < sizeof builds / sizeof *builds; i++) {
        char path[4096];
        if (!fixture_path(builds[i], path, sizeof path))
            continue;
        debuginfo *di = load_fixture(builds[i]);
        const uint8_t yes = 1, no = 0;
        const long seven = 7;
        check_value(di, builds[i], "ready", &yes, 1, "true");
        check_value(di, builds[i], "ready", &no, 1, "false");
        check_value(di, builds[i], "calls", &seven, sizeof seven, "7");
        check_value(di, builds[i], "busy", &yes, 1, "true");
        debuginfo_free(di);
    }
}

/* The name of the byte `offset` into the variable called name. */
static void check_name(const debuginfo *di, const char *build, const char *name, uint64_t offset, const char *want)
{
    uint64_t addr;
    const struct dwarf_type *type;
    char err[256], text[256];
    if (!debuginfo_eval(di, name, NULL, &addr, &type, err, sizeof err))
        fail_msg("%s: %s: %s", build, name, err);
    debuginfo_name_data(di, addr + offset, NULL, text, sizeof text, NULL);
    if (strcmp(text, want) != 0)
        fail_msg("%s: %s+%llu is named \"%s\", expected \"%s\"", build, name, (unsigned long long)offset, text, want);
}

/* The parts of smart pointers, vectors and strings are named by what they
 * are, not by libstdc++'s members ("amounts+8"). */
static void test_library_parts_named(void **state)
{
    (void)state;
    static const char *const builds[] = { "cxx_fixture_o0", "cxx_fixture_o2", "cxx_fixture_o0_dwarf4",
                                          "cxx_fixture_clang_o0", "cxx_fixture_clang_o2" };
    for (size_t i = 0; i < sizeof builds / sizeof *builds; i++) {
        char path[4096];
        if (!fixture_path(builds[i], path, sizeof path))
            continue;
        debuginfo *di = load_fixture(builds[i]);
        check_name(di, builds[i], "shared_total", 0, "shared_total");
        check_name(di, builds[i], "shared_total", 8, "shared_total (control block)");
        check_name(di, builds[i], "owned_total", 0, "owned_total");
        check_name(di, builds[i], "amounts", 0, "amounts.data()");
        check_name(di, builds[i], "amounts", 8, "amounts (end)");
        check_name(di, builds[i], "amounts", 16, "amounts (end of storage)");
        check_name(di, builds[i], "label", 8, "label.size()");
        check_name(di, builds[i], "label", 19, "label[3]");
        debuginfo_free(di);
    }
}

/* A program's memory for the library-value tests: a few words at
 * FAKE_BASE, read as the tracee's would be. */
enum { FAKE_BASE = 0x10000, FAKE_WORDS = 8 };
static uint64_t fake_memory[FAKE_WORDS];

static bool read_fake(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    if (addr < FAKE_BASE || addr + n > FAKE_BASE + sizeof fake_memory)
        return false;
    memcpy(buf, (const uint8_t *)fake_memory + (addr - FAKE_BASE), n);
    return true;
}

/* The value of the variable called name, its own bytes given, what it
 * points to read from fake_memory. */
static void check_library_value(const debuginfo *di, const char *build, const char *name, const uint64_t *words,
                                size_t n_words, const char *want)
{
    uint64_t addr;
    const struct dwarf_type *type;
    char err[256], text[256];
    if (!debuginfo_eval(di, name, NULL, &addr, &type, err, sizeof err))
        fail_msg("%s: %s: %s", build, name, err);
    struct data_reader rd = { read_fake, NULL, 0, NULL };
    uint64_t object = FAKE_BASE + 4 * sizeof(uint64_t);
    memcpy(&fake_memory[4], words, n_words * sizeof *words);
    value_format_at(type, object, &rd, text, sizeof text);
    if (strcmp(text, want) != 0)
        fail_msg("%s: %s reads \"%s\", expected \"%s\"", build, name, text, want);
}

/* A unique_ptr, shared_ptr, vector and string read as what they hold, not
 * as libstdc++'s members. */
static void test_library_values(void **state)
{
    (void)state;
    static const char *const builds[] = { "cxx_fixture_o0", "cxx_fixture_o2", "cxx_fixture_o0_dwarf4",
                                          "cxx_fixture_clang_o0", "cxx_fixture_clang_o2" };
    for (size_t i = 0; i < sizeof builds / sizeof *builds; i++) {
        char path[4096];
        if (!fixture_path(builds[i], path, sizeof path))
            continue;
        debuginfo *di = load_fixture(builds[i]);
        /* fake_memory[0..3]: three longs 3, 4, 5 and a control block
         * whose use count (at +8) is 2; the object itself from [4]. */
        fake_memory[0] = 3, fake_memory[1] = 4, fake_memory[2] = 5;
        const uint64_t none[3] = { 0, 0, 0 };
        check_library_value(di, builds[i], "owned_total", none, 1, "nullptr");
        const uint64_t owned[1] = { FAKE_BASE + 8 };
        check_library_value(di, builds[i], "owned_total", owned, 1, "points to 4");
        check_library_value(di, builds[i], "shared_total", none, 2, "nullptr");
        fake_memory[3] = 2;     /* the control block at fake_memory[2]: use count in its second word's low half */
        const uint64_t shared[2] = { FAKE_BASE, FAKE_BASE + 16 };
        check_library_value(di, builds[i], "shared_total", shared, 2, "points to 3, use_count 2");
        const uint64_t three[3] = { FAKE_BASE, FAKE_BASE + 24, FAKE_BASE + 24 };
        check_library_value(di, builds[i], "amounts", three, 3, "size 3 {3, 4, 5}");
        check_library_value(di, builds[i], "amounts", none, 3, "size 0");
        memcpy(&fake_memory[0], "sum!", 4);
        const uint64_t label[4] = { FAKE_BASE, 3, 0, 0 };
        check_library_value(di, builds[i], "label", label, 4, "\"sum\"");
        debuginfo_free(di);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomics_read_as_values),
        cmocka_unit_test(test_library_parts_named),
        cmocka_unit_test(test_library_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
