/* Unit tests for the files and lines dwarf_info and debuginfo give C++ code
 * with the C++ library's headers inlined (tests/fixtures/cxx_fixture.cpp),
 * built by gcc and clang at -O0..-O3, -g and -g1, DWARF 4 and 5:
 *  - every code address of the fixture names a file that exists and a line
 *    within it (gcc 12's DWARF 5 sequences start at file 1, which libdwarf
 *    read as file 0: std_thread.h's line 210 was said to be the fixture's);
 *  - in optimised builds, library code inlined at a MARK: line is told at
 *    that line of the fixture, with the library function beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "debug_fixture_support.h"

#define CXX_SOURCE SOURCE_DIR "/tests/fixtures/cxx_fixture.cpp"

/* Line counts of the files seen, so each is read once per test. */
struct file_lines {
    const char *path;   /* interned by debuginfo: equal names, equal pointers */
    long lines;         /* -1: the file does not exist */
};

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long lines = 0;
    int c, last = '\n';
    while ((c = getc(f)) != EOF) {
        if (c == '\n')
            lines++;
        last = c;
    }
    fclose(f);
    return last == '\n' ? lines : lines + 1;
}

static long lines_of(struct file_lines *seen, size_t *count, size_t cap, const char *path)
{
    for (size_t i = 0; i < *count; i++)
        if (seen[i].path == path || strcmp(seen[i].path, path) == 0)
            return seen[i].lines;
    long lines = count_lines(path);
    if (*count < cap)
        seen[(*count)++] = (struct file_lines){ path, lines };
    return lines;
}

/* Every address of the fixture's code: its file exists and holds its line. */
static void check_every_line_exists(const char *name)
{
    char path[4096];
    if (!fixture_path(name, path, sizeof path)) {
        print_message("skipped: %s was not built\n", name);
        return;
    }
    debuginfo *di = load_fixture(name);
    const struct addr_range *ranges;
    size_t range_count = debuginfo_cu_ranges(di, &ranges);
    assert_true(range_count > 0);
    struct file_lines seen[256];
    size_t seen_count = 0;
    size_t located = 0;
    for (size_t r = 0; r < range_count; r++)
        for (uint64_t addr = ranges[r].lo; addr < ranges[r].hi; addr++) {
            struct src_loc loc;
            if (!debuginfo_code_location(di, addr, &loc) || !loc.file || loc.line == 0)
                continue;
            long lines = lines_of(seen, &seen_count, sizeof seen / sizeof *seen, loc.file);
            if (lines < 0 || loc.line > (unsigned long)lines)
                fail_msg("%s: 0x%" PRIx64 " is said to be at %s:%u, which %s", name, addr, loc.file, loc.line,
                         lines < 0 ? "does not exist" : "is past the file's end");
            located++;
        }
    assert_true(located > 0);
    debuginfo_free(di);
}

/* In an optimised build, some address inlined at the marker's line is
 * told at that line of the fixture, with a library function beside it
 * whose name contains library (std::atomic's store, std::thread's join). */
static void check_user_line_of_inlined(const char *name, const char *marker, const char *library)
{
    char path[4096];
    if (!fixture_path(name, path, sizeof path))
        return;
    debuginfo *di = load_fixture(name);
    unsigned want = source_marker_line(CXX_SOURCE, marker);
    const struct addr_range *ranges;
    size_t range_count = debuginfo_cu_ranges(di, &ranges);
    bool found = false;
    for (size_t r = 0; r < range_count && !found; r++)
        for (uint64_t addr = ranges[r].lo; addr < ranges[r].hi && !found; addr++) {
            struct src_loc loc;
            found = debuginfo_code_location(di, addr, &loc) && loc.file && loc.line == want &&
                    strcmp(loc.basename, "cxx_fixture.cpp") == 0 && loc.library_function &&
                    strstr(loc.library_function, library);
        }
    if (!found)
        fail_msg("%s: nothing inlined from %s is told at cxx_fixture.cpp:%u", name, library, want);
    debuginfo_free(di);
}

static const char *const all_builds[] = {
    "cxx_fixture_o0", "cxx_fixture_o2", "cxx_fixture_o3", "cxx_fixture_o2_g1", "cxx_fixture_o2_dwarf4",
    "cxx_fixture_o0_dwarf4", "cxx_fixture_clang_o0", "cxx_fixture_clang_o2", "cxx_fixture_clang_o2_dwarf4",
    "cxx_fixture_clang_o2_g1",
};

static void test_every_line_exists(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof all_builds / sizeof *all_builds; i++)
        check_every_line_exists(all_builds[i]);
}

/* -g1 has no inlined subroutines to tell the call site by: left out. */
static const char *const inlining_builds[] = {
    "cxx_fixture_o2", "cxx_fixture_o3", "cxx_fixture_o2_dwarf4", "cxx_fixture_clang_o2",
    "cxx_fixture_clang_o2_dwarf4",
};

static void test_inlined_library_at_user_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof inlining_builds / sizeof *inlining_builds; i++) {
        check_user_line_of_inlined(inlining_builds[i], "store", "std::atomic<bool>::store");
        check_user_line_of_inlined(inlining_builds[i], "load", "std::atomic<bool>::load");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_line_exists),
        cmocka_unit_test(test_inlined_library_at_user_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
