/* Unit tests for supervisor/debuginfo/debuginfo.c and dwarf_info.c: source lines and
 * function names for code addresses across compilers, DWARF versions, PIE and
 * non-PIE, -O0 and -O2, static, stripped and broken-DWARF builds of
 * tests/fixtures/debug_fixture.c; data names; CU ranges. Expected lines come
 * from the MARK: comments in the fixture's source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "debug_fixture_support.h"

#define FIXTURE_SOURCE SOURCE_DIR "/tests/fixtures/debug_fixture.c"
#define FIXTURE_BASENAME "debug_fixture.c"

static bool fixture_exists(const char *name)
{
    char path[4096];
    return fixture_path(name, path, sizeof path);
}

static unsigned marker_line(const char *marker) { return source_marker_line(FIXTURE_SOURCE, marker); }

static const struct elf_symbol *function_symbol(const debuginfo *di, const char *name)
{
    const struct elf_symbol *sym = elf_image_function_at(debuginfo_elf(di), symbol_addr(di, name));
    assert_non_null(sym);
    assert_string_equal(sym->name, name);
    return sym;
}

static bool in_ranges(const debuginfo *di, uint64_t addr)
{
    const struct addr_range *ranges;
    size_t count = debuginfo_cu_ranges(di, &ranges);
    for (size_t i = 0; i < count; i++)
        if (addr >= ranges[i].lo && addr < ranges[i].hi)
            return true;
    return false;
}

/* Every unoptimized build must place the entry of add_to_counter on its
 * marker line, find the body line inside it, and name static functions. */
static void check_unoptimized_build(const char *name, bool expect_columns)
{
    debuginfo *di = load_fixture(name);
    assert_true(debuginfo_has_dwarf(di));
    const char *why;
    if (debuginfo_dwarf_state(di, &why) != DEBUGINFO_DWARF_WHOLE)
        fail_msg("%s: sound DWARF said to be corrupt: %s", name, why);
    unsigned entry_line = marker_line("add_to_counter-entry");
    unsigned body_line = marker_line("add_to_counter-body");

    const struct elf_symbol *fn = function_symbol(di, "add_to_counter");
    struct src_loc loc;
    assert_true(debuginfo_code_location(di, fn->addr, &loc));
    assert_non_null(loc.file);
    assert_string_equal(loc.basename, FIXTURE_BASENAME);
    assert_string_equal(loc.file + strlen(loc.file) - strlen(FIXTURE_BASENAME), FIXTURE_BASENAME);
    assert_int_equal(loc.line, entry_line);
    assert_string_equal(loc.function, "add_to_counter");
    if (expect_columns)
        assert_true(loc.column > 0);

    char buf[128], expected[128];
    debuginfo_format_code(di, fn->addr, buf, sizeof buf);
    snprintf(expected, sizeof expected, FIXTURE_BASENAME ":%u add_to_counter", entry_line);
    assert_string_equal(buf, expected);
    debuginfo_format_line(di, fn->addr, buf, sizeof buf);
    snprintf(expected, sizeof expected, FIXTURE_BASENAME ":%u", entry_line);
    assert_string_equal(buf, expected);

    /* every byte of the function is on one of its three lines, the body among them */
    bool saw_body = false;
    for (uint64_t addr = fn->addr; addr < fn->addr + fn->size; addr++) {
        assert_true(debuginfo_code_location(di, addr, &loc));
        assert_string_equal(loc.function, "add_to_counter");
        assert_in_range(loc.line, entry_line, entry_line + 3);
        saw_body |= loc.line == body_line;
    }
    assert_true(saw_body);

    /* a file-local function, named by DWARF and by the symbol table */
    fn = function_symbol(di, "push_item");
    assert_true(debuginfo_code_location(di, fn->addr + 1, &loc));
    assert_string_equal(loc.function, "push_item");
    assert_int_equal(loc.line, marker_line("push_item-entry"));

    /* the loop line of sum_numbers has code */
    fn = function_symbol(di, "sum_numbers");
    unsigned loop_line = marker_line("sum_numbers-loop");
    bool saw_loop = false;
    for (uint64_t addr = fn->addr; addr < fn->addr + fn->size && !saw_loop; addr++)
        saw_loop = debuginfo_code_location(di, addr, &loc) && loc.line == loop_line;
    assert_true(saw_loop);

    /* user code is covered by the CU ranges, the C runtime's _start is not */
    assert_true(in_ranges(di, symbol_addr(di, "main")));
    assert_true(in_ranges(di, symbol_addr(di, "add_to_counter")));
    assert_false(in_ranges(di, symbol_addr(di, "_start")));
    debuginfo_free(di);
}

static void test_gcc_non_pie_dwarf5(void **state) { check_unoptimized_build("debug_fixture_nopie", true); }
static void test_gcc_pie_dwarf5(void **state) { check_unoptimized_build("debug_fixture_pie", true); }
static void test_gcc_pie_dwarf4(void **state) { check_unoptimized_build("debug_fixture_dwarf4", true); }
static void test_gcc_static(void **state) { check_unoptimized_build("debug_fixture_static", true); }

static void test_clang(void **state)
{
    if (!fixture_exists("debug_fixture_clang"))
        skip();
    check_unoptimized_build("debug_fixture_clang", false); /* clang: column 0 at entry */
}

static void test_format_code_exact(void **state)
{
    debuginfo *di = load_fixture("debug_fixture_nopie");
    uint64_t add = symbol_addr(di, "add_to_counter");
    char buf[128], expected[128];
    snprintf(expected, sizeof expected, "debug_fixture.c:%u add_to_counter",
             marker_line("add_to_counter-entry"));
    debuginfo_format_code(di, add, buf, sizeof buf);
    assert_string_equal(buf, expected);
    /* truncation keeps a terminated string */
    debuginfo_format_code(di, add, buf, 6);
    assert_string_equal(buf, "debug");

    /* outside DWARF but inside a symbol: symbol+offset; neither: hex */
    uint64_t start = symbol_addr(di, "_start");
    debuginfo_format_code(di, start + 0x1a, buf, sizeof buf);
    assert_string_equal(buf, "_start+0x1a");
    debuginfo_format_code(di, start, buf, sizeof buf);
    assert_string_equal(buf, "_start");
    debuginfo_format_line(di, start, buf, sizeof buf);
    assert_string_equal(buf, "");
    debuginfo_format_code(di, 0x10, buf, sizeof buf);
    assert_string_equal(buf, "0x10");
    struct src_loc loc;
    assert_false(debuginfo_code_location(di, 0x10, &loc));
    assert_null(loc.file);
    assert_null(loc.function);
    assert_int_equal(loc.line, 0);
    debuginfo_free(di);
}

static void check_data_names(const char *name)
{
    debuginfo *di = load_fixture(name);
    char buf[64];
    uint64_t queue = symbol_addr(di, "queue");
    debuginfo_format_data(di, queue, buf, sizeof buf);
    assert_string_equal(buf, "queue");
    debuginfo_format_data(di, queue + 8, buf, sizeof buf);
    assert_string_equal(buf, "queue+8");
    debuginfo_format_data(di, queue + 16 + 3 * sizeof(int), buf, sizeof buf);
    assert_string_equal(buf, "queue+28");
    debuginfo_format_data(di, symbol_addr(di, "counter"), buf, sizeof buf);
    assert_string_equal(buf, "counter");
    debuginfo_format_data(di, symbol_addr(di, "numbers") + 12, buf, sizeof buf);
    assert_string_equal(buf, "numbers+12");
    debuginfo_format_data(di, symbol_addr(di, "hidden_total"), buf, sizeof buf);
    assert_string_equal(buf, "hidden_total");
    debuginfo_format_data(di, symbol_addr(di, "main"), buf, sizeof buf);
    assert_string_equal(buf, "");
    debuginfo_format_data(di, 0, buf, sizeof buf);
    assert_string_equal(buf, "");
    debuginfo_free(di);
}

static void test_data_names_non_pie(void **state) { check_data_names("debug_fixture_nopie"); }
static void test_data_names_pie(void **state) { check_data_names("debug_fixture_pie"); }

/* -O2: the entry may already be the body line; sum_numbers' error path lives
 * in sum_numbers.cold, which DWARF describes with DW_AT_ranges. */
static void check_optimized_build(const char *name)
{
    debuginfo *di = load_fixture(name);
    assert_true(debuginfo_has_dwarf(di));
    struct src_loc loc;
    uint64_t add = symbol_addr(di, "add_to_counter");
    assert_true(debuginfo_code_location(di, add, &loc));
    assert_string_equal(loc.basename, FIXTURE_BASENAME);
    assert_string_equal(loc.function, "add_to_counter");
    assert_true(loc.line == marker_line("add_to_counter-entry") ||
                loc.line == marker_line("add_to_counter-body"));

    /* the ELF calls it sum_numbers.cold; DWARF knows whose code it is */
    uint64_t cold = symbol_addr(di, "sum_numbers.cold");
    assert_true(debuginfo_code_location(di, cold, &loc));
    assert_string_equal(loc.function, "sum_numbers");
    assert_true(in_ranges(di, cold));
    char buf[128];
    debuginfo_format_code(di, cold, buf, sizeof buf);
    assert_non_null(strstr(buf, " sum_numbers"));
    assert_true(in_ranges(di, symbol_addr(di, "main")));
    debuginfo_free(di);
}

static void test_gcc_o2_dwarf5(void **state) { check_optimized_build("debug_fixture_o2"); }
static void test_gcc_o2_dwarf4(void **state) { check_optimized_build("debug_fixture_o2_dwarf4"); }

static void test_cu_ranges_sorted_and_merged(void **state)
{
    debuginfo *di = load_fixture("debug_fixture_nopie");
    const struct addr_range *ranges;
    size_t count = debuginfo_cu_ranges(di, &ranges);
    assert_true(count >= 1);
    for (size_t i = 0; i < count; i++) {
        assert_true(ranges[i].lo < ranges[i].hi);
        if (i > 0)
            assert_true(ranges[i - 1].hi < ranges[i].lo);
    }
    const struct elf_symbol *funcs;
    size_t nfuncs = elf_image_functions(debuginfo_elf(di), &funcs);
    const char *user[] = { "add_to_counter", "push_item", "report_negative", "sum_numbers", "main" };
    for (size_t i = 0; i < nfuncs; i++) {
        bool is_user = false;
        for (size_t k = 0; k < sizeof user / sizeof user[0]; k++)
            is_user |= strcmp(funcs[i].name, user[k]) == 0;
        assert_int_equal(in_ranges(di, funcs[i].addr), is_user);
    }
    debuginfo_free(di);
}

static void test_static_cu_ranges_are_user_code(void **state)
{
    debuginfo *di = load_fixture("debug_fixture_static");
    const struct elf_section *sections;
    size_t nsections = elf_image_sections(debuginfo_elf(di), &sections);
    uint64_t text_size = 0;
    for (size_t i = 0; i < nsections; i++)
        if (strcmp(sections[i].name, ".text") == 0)
            text_size = sections[i].size;
    assert_true(text_size > 0);

    const struct addr_range *ranges;
    size_t count = debuginfo_cu_ranges(di, &ranges);
    uint64_t covered = 0;
    for (size_t i = 0; i < count; i++)
        covered += ranges[i].hi - ranges[i].lo;
    assert_true(covered > 0);
    assert_true(covered * 20 < text_size);
    assert_true(in_ranges(di, symbol_addr(di, "add_to_counter")));
    assert_false(in_ranges(di, symbol_addr(di, "abort")));

    /* linked-in libc has no DWARF: symbol + offset */
    char buf[128];
    debuginfo_format_code(di, symbol_addr(di, "abort") + 4, buf, sizeof buf);
    assert_string_equal(buf, "abort+0x4");
    debuginfo_free(di);
}

static void check_stripped(const char *name, uint64_t known_function)
{
    debuginfo *di = load_fixture(name);
    assert_false(debuginfo_has_dwarf(di));
    const char *why;
    assert_int_equal(debuginfo_dwarf_state(di, &why), DEBUGINFO_DWARF_NONE);
    const struct addr_range *ranges;
    assert_int_equal(debuginfo_cu_ranges(di, &ranges), 0);

    char buf[64], expected[64];
    snprintf(expected, sizeof expected, "0x%" PRIx64, known_function);
    debuginfo_format_code(di, known_function, buf, sizeof buf);
    assert_string_equal(buf, expected);
    debuginfo_format_line(di, known_function, buf, sizeof buf);
    assert_string_equal(buf, "");
    struct src_loc loc;
    assert_false(debuginfo_code_location(di, known_function, &loc));
    debuginfo_free(di);
}

static void test_stripped_after_link(void **state)
{
    debuginfo *full = load_fixture("debug_fixture_nopie");
    uint64_t add = symbol_addr(full, "add_to_counter");
    uint64_t queue = symbol_addr(full, "queue");
    debuginfo_free(full);
    check_stripped("debug_fixture_stripped", add);

    debuginfo *di = load_fixture("debug_fixture_stripped");
    char buf[64];
    debuginfo_format_data(di, queue + 8, buf, sizeof buf);
    assert_string_equal(buf, "");
    debuginfo_free(di);
}

static void test_stripped_by_linker(void **state)
{
    debuginfo *di = load_fixture("debug_fixture_pie_s");
    uint64_t entry = elf_image_entry(debuginfo_elf(di));
    debuginfo_free(di);
    check_stripped("debug_fixture_pie_s", entry);
}

/* Copies a fixture with its .debug_info overwritten by 0xff bytes. */
static void write_broken_copy(const char *fixture_name, const char *section, char *out_path)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, fixture_name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *bytes = malloc((size_t)size);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
    fclose(f);

    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)bytes, (size_t)size);
    assert_non_null(elf);
    size_t shstrndx;
    assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
    GElf_Off offset = 0, length = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        assert_non_null(gelf_getshdr(scn, &sh));
        if (strcmp(elf_strptr(elf, shstrndx, sh.sh_name), section) == 0) {
            offset = sh.sh_offset;
            length = sh.sh_size;
        }
    }
    elf_end(elf);
    assert_true(length > 0);
    memset(bytes + offset, 0xff, length);

    strcpy(out_path, "/tmp/mdat-test-broken-dwarf-XXXXXX");
    int fd = mkstemp(out_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, (size_t)size), size);
    close(fd);
    free(bytes);
}

static void test_broken_dwarf(void **state)
{
    debuginfo *full = load_fixture("debug_fixture_nopie");
    uint64_t add = symbol_addr(full, "add_to_counter");
    debuginfo_free(full);

    static const char *const sections[] = { ".debug_info", ".debug_abbrev", ".debug_line" };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        char path[64], err[256];
        write_broken_copy("debug_fixture_nopie", sections[i], path);
        debuginfo *di = debuginfo_load(path, err, sizeof err);
        unlink(path);
        if (!di)
            fail_msg("broken %s refused: %s", sections[i], err);
        /* it says its DWARF is corrupt, not missing, and why */
        const char *why;
        if (debuginfo_dwarf_state(di, &why) != DEBUGINFO_DWARF_CORRUPT || !why[0])
            fail_msg("broken %s not said to be corrupt (\"%s\")", sections[i], why);
        /* whatever survives, the symbol table still names the code */
        char buf[64];
        debuginfo_format_code(di, add + 2, buf, sizeof buf);
        if (!debuginfo_has_dwarf(di) || strcmp(sections[i], ".debug_line") == 0)
            assert_string_equal(buf, "add_to_counter+0x2");
        debuginfo_free(di);
    }
}

static void test_load_errors(void **state)
{
    char err[256];
    assert_null(debuginfo_load("/nonexistent/program", err, sizeof err));
    assert_string_equal(err, "no such file");
    assert_null(debuginfo_load(FIXTURE_DIR, err, sizeof err));
    assert_string_equal(err, "is a directory");
    assert_null(debuginfo_load(FIXTURE_SOURCE, err, sizeof err));
    assert_string_equal(err, "not an ELF file (a text file?)");
}

/* C++ at -O2 (the e2e target attach_cxx_deadlock_o2): lock_both's calls
 * to pthread_mutex_lock come from std::mutex::lock inlined out of a
 * system header; each stands for the user's line that called lock(). */
static void test_user_call_site(void **state)
{
    (void)state;
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/attach_cxx_deadlock_o2", TARGET_DIR);
    if (access(path, R_OK) != 0)
        skip();
    debuginfo *di = debuginfo_load(path, err, sizeof err);
    assert_non_null(di);
    const struct elf_symbol *fns;
    size_t n = elf_image_functions(debuginfo_elf(di), &fns);
    const struct elf_symbol *lock_both = NULL;
    for (size_t i = 0; i < n; i++)
        if (strstr(fns[i].name, "lock_both"))
            lock_both = &fns[i];
    assert_non_null(lock_both);
    unsigned lines[64];
    size_t n_lines = 0;
    bool header_code = false;
    for (uint64_t a = lock_both->addr; a < lock_both->addr + lock_both->size; a++) {
        struct src_loc at, call;
        /* Library code inlined into the user's is told at the user's line,
         * the library function beside it. */
        if (!debuginfo_code_location(di, a, &at) || !at.library_function)
            continue;
        header_code = true;
        if (!debuginfo_user_call_site(di, a, &call))
            continue;
        assert_int_equal(at.line, call.line);


        assert_string_equal(call.basename, "cxx_deadlock.cpp");
        assert_non_null(call.function);
        assert_non_null(strstr(call.function, "lock_both"));
        if (n_lines < 64 && (n_lines == 0 || lines[n_lines - 1] != call.line))
            lines[n_lines++] = call.line;
    }
    assert_true(header_code);
    /* a.lock() on line 16, b.lock() on line 20 (its BUG: marker). */
    bool saw16 = false, saw20 = false;
    for (size_t i = 0; i < n_lines; i++) {
        saw16 = saw16 || lines[i] == 16;
        saw20 = saw20 || lines[i] == 20;
    }
    assert_true(saw16 && saw20);
    /* The user's own code is no inlined call site. */
    struct src_loc none;
    uint64_t main_addr = symbol_addr(di, "main");
    assert_false(debuginfo_user_call_site(di, main_addr, &none));
    debuginfo_free(di);
}

static void test_shared_library_without_dwarf(void **state)
{
    const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
    if (access(libc, R_OK) != 0)
        skip();
    char err[256];
    debuginfo *di = debuginfo_load(libc, err, sizeof err);
    assert_non_null(di);
    uint64_t lock;
    assert_true(elf_image_symbol_addrs(debuginfo_elf(di), "pthread_mutex_lock", &lock, 1) >= 1);
    char buf[128];
    debuginfo_format_code(di, lock + 0x10, buf, sizeof buf);
    assert_string_equal(buf, "pthread_mutex_lock+0x10");
    debuginfo_free(di);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc_non_pie_dwarf5),
        cmocka_unit_test(test_gcc_pie_dwarf5),
        cmocka_unit_test(test_gcc_pie_dwarf4),
        cmocka_unit_test(test_gcc_static),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_format_code_exact),
        cmocka_unit_test(test_data_names_non_pie),
        cmocka_unit_test(test_data_names_pie),
        cmocka_unit_test(test_gcc_o2_dwarf5),
        cmocka_unit_test(test_gcc_o2_dwarf4),
        cmocka_unit_test(test_cu_ranges_sorted_and_merged),
        cmocka_unit_test(test_static_cu_ranges_are_user_code),
        cmocka_unit_test(test_stripped_after_link),
        cmocka_unit_test(test_stripped_by_linker),
        cmocka_unit_test(test_broken_dwarf),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_shared_library_without_dwarf),
        cmocka_unit_test(test_user_call_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
