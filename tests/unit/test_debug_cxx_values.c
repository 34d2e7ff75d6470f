/* Unit tests for how values of the C++ library's types read
 * (supervisor/debuginfo/value_format.c), on the globals of
 * tests/fixtures/cxx_fixture.cpp: a std::atomic<T> or std::atomic_flag is
 * its value ("true", "7"), not the library's members
 * ("{_M_base = {_M_i = true}}"), under gcc and clang. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomics_read_as_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
