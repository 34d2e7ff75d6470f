/* Unit tests for how values of the C++ library's types read
 * (supervisor/debuginfo/value_format.c), on the globals of
 * tests/fixtures/cxx_fixture.cpp: a std::atomic<T> or std::atomic_flag is
 * its value ("true", "7"), not the library's members
 * ("{_M_base = {_M_i = true}}"), under gcc and clang; the parts of a
 * shared_ptr, unique_ptr, vector and string are named by what they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "supervisor/debuginfo/debuginfo.h"
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
        check_name(di, builds[i], "amounts", 8, "amounts.size()");
        check_name(di, builds[i], "amounts", 16, "amounts.capacity()");
        check_name(di, builds[i], "label", 8, "label.size()");
        check_name(di, builds[i], "label", 19, "label[3]");
        debuginfo_free(di);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomics_read_as_values),
        cmocka_unit_test(test_library_parts_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
