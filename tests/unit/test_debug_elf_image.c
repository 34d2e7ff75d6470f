/* Unit tests for supervisor/debuginfo/elf_image.c: validation messages, program kinds
 * (PIE, non-PIE, static, stripped, shared library), sections and symbols.
 * Fixtures come from tests/fixtures (built by the debug_fixtures target). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/debuginfo/elf_image.h"
#include "supervisor/debuginfo/elf_plt.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

static const char *fixture(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, name);
    if (access(path, R_OK) != 0)
        fail_msg("fixture %s is missing: build the debug_fixtures target", path);
    return path;
}

static elf_image *open_fixture(const char *name)
{
    char err[256];
    elf_image *img = elf_image_open(fixture(name), err, sizeof err);
    if (!img)
        fail_msg("cannot open %s: %s", name, err);
    return img;
}

static uint64_t symbol_addr(const elf_image *img, const char *name)
{
    uint64_t addr = 0;
    if (elf_image_symbol_addrs(img, name, &addr, 1) != 1)
        fail_msg("expected exactly one symbol %s", name);
    return addr;
}

/* Writes bytes to a fresh temporary file and returns its path (static). */
static const char *temp_file_with(const void *bytes, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mdat-test-elf-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Opens a file that must be refused and returns the reason given. */
static const char *refusal_for(const char *path)
{
    static char err[256];
    memset(err, 'x', sizeof err);
    elf_image *img = elf_image_open(path, err, sizeof err);
    if (img) {
        elf_image_close(img);
        fail_msg("%s was accepted", path);
    }
    assert_null(strchr(err, '\n'));
    return err;
}

static const char *refusal_for_bytes(const void *bytes, size_t len)
{
    const char *path = temp_file_with(bytes, len);
    const char *reason = refusal_for(path);
    unlink(path);
    return reason;
}

static Elf64_Ehdr x86_64_header(uint16_t type, uint16_t machine)
{
    Elf64_Ehdr h = { 0 };
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_type = type;
    h.e_machine = machine;
    h.e_version = EV_CURRENT;
    h.e_ehsize = sizeof h;
    return h;
}

/* ---- refusals ---------------------------------------------------------------- */

/* The stub named fn: in section `in`, found again by its address. */
static void expect_stub(const elf_image *img, const elf_plt *plt, const char *fn, const char *in)
{
    const struct elf_symbol *stubs;
    size_t n = elf_plt_stubs(plt, &stubs);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(stubs[i].name, fn) != 0)
            continue;
        const struct elf_section *secs;
        size_t n_secs = elf_image_sections(img, &secs);
        bool inside = false;
        for (size_t s = 0; s < n_secs; s++)
            if (strcmp(secs[s].name, in) == 0 && stubs[i].addr >= secs[s].addr &&
                stubs[i].addr + stubs[i].size <= secs[s].addr + secs[s].size)
                inside = true;
        if (!inside)
            fail_msg("%s's stub at %#llx is not in %s", fn, (unsigned long long)stubs[i].addr, in);
        assert_string_equal(elf_plt_name_at(plt, stubs[i].addr), fn);
        assert_null(elf_plt_name_at(plt, stubs[i].addr + 1));
        return;
    }
    fail_msg("no PLT stub for %s", fn);
}

/* Each PLT stub names the function it jumps to, whatever the PLT's layout. */
static void test_plt_stubs(void **state)
{
    (void)state;
    static const struct {
        const char *fixture, *stubs;
    } cases[] = {
        {"debug_fixture_nopie", ".plt"},
        {"debug_fixture_pie", ".plt"},
        {"debug_fixture_ibt", ".plt.sec"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        elf_image *img = open_fixture(cases[i].fixture);
        elf_plt *plt = elf_plt_build(img);
        assert_non_null(plt);
        expect_stub(img, plt, "printf", cases[i].stubs);
        expect_stub(img, plt, "fprintf", cases[i].stubs);
        if (elf_image_is_pie(img))
            expect_stub(img, plt, "__cxa_finalize", ".plt.got");
        const struct elf_symbol *stubs;
        size_t n = elf_plt_stubs(plt, &stubs);
        for (size_t k = 1; k < n; k++)
            assert_true(stubs[k - 1].addr < stubs[k].addr);
        elf_plt_free(plt);
        elf_image_close(img);
    }
    /* A static binary has no PLT to speak of. */
    elf_image *img = open_fixture("debug_fixture_static");
    elf_plt *plt = elf_plt_build(img);
    const struct elf_symbol *stubs;
    assert_int_equal(elf_plt_stubs(plt, &stubs), 0);
    elf_plt_free(plt);
    elf_image_close(img);
}

/* Whether the file can call an imported function other than through a
 * stub: never for a plain call through the PLT; always for -fno-plt, and
 * for a function whose address a GOT slot holds (__cxa_finalize in PIE). */
static void test_plt_unstubbed_imports(void **state)
{
    (void)state;
    static const struct {
        const char *fixture;
        bool printf_unstubbed;
    } cases[] = {
        {"debug_fixture_nopie", false},
        {"debug_fixture_pie", false},
        {"debug_fixture_ibt", false},
        {"debug_fixture_noplt", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        elf_image *img = open_fixture(cases[i].fixture);
        elf_plt *plt = elf_plt_build(img);
        assert_non_null(plt);
        assert_int_equal(elf_plt_imports_unstubbed(plt, "printf"), cases[i].printf_unstubbed);
        assert_int_equal(elf_plt_imports_unstubbed(plt, "fprintf"), cases[i].printf_unstubbed);
        assert_false(elf_plt_imports_unstubbed(plt, "no_such_function"));
        if (elf_image_is_pie(img))
            assert_true(elf_plt_imports_unstubbed(plt, "__cxa_finalize"));
        elf_plt_free(plt);
        elf_image_close(img);
    }
}

static void test_missing_file(void **state)
{
    assert_string_equal(refusal_for("/nonexistent/mdat/program"), "no such file");
    assert_string_equal(refusal_for(FIXTURE_DIR "/no-such-fixture"), "no such file");
}

static void test_directory(void **state)
{
    assert_string_equal(refusal_for(FIXTURE_DIR), "is a directory");
}

static void test_shell_script(void **state)
{
    static const char script[] = "#!/bin/sh\necho hello\n";
    assert_string_equal(refusal_for_bytes(script, sizeof script - 1), "not an ELF file (a script?)");
}

static void test_text_and_empty_files(void **state)
{
    static const char text[] = "int main(void) { return 0; }\n";
    assert_string_equal(refusal_for_bytes(text, sizeof text - 1), "not an ELF file (a text file?)");
    assert_string_equal(refusal_for_bytes("", 0), "not an ELF file (empty file)");
    static const unsigned char binary[] = { 0x00, 0x01, 0x02, 0xff, 0xfe, 0x10, 0x80 };
    assert_string_equal(refusal_for_bytes(binary, sizeof binary), "not an ELF file");
}

static void test_32bit_elf(void **state)
{
    Elf32_Ehdr h = { 0 };
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS32;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_type = ET_EXEC;
    h.e_machine = EM_386;
    h.e_version = EV_CURRENT;
    h.e_entry = 0x8049000;
    h.e_ehsize = sizeof h;
    assert_string_equal(refusal_for_bytes(&h, sizeof h),
                        "32-bit ELF is not supported: mdat runs x86-64 programs");
}

static void test_other_machine(void **state)
{
    Elf64_Ehdr h = x86_64_header(ET_EXEC, EM_AARCH64);
    assert_string_equal(refusal_for_bytes(&h, sizeof h), "not an x86-64 ELF (machine 183, AArch64)");
    h = x86_64_header(ET_EXEC, 4242);
    assert_string_equal(refusal_for_bytes(&h, sizeof h), "not an x86-64 ELF (machine 4242)");
}

static void test_relocatable_and_core(void **state)
{
    Elf64_Ehdr h = x86_64_header(ET_REL, EM_X86_64);
    assert_string_equal(refusal_for_bytes(&h, sizeof h), "not an executable (relocatable object)");
    h = x86_64_header(ET_CORE, EM_X86_64);
    assert_string_equal(refusal_for_bytes(&h, sizeof h), "not an executable (core file)");
}

static void test_truncated_elf(void **state)
{
    Elf64_Ehdr h = x86_64_header(ET_EXEC, EM_X86_64);
    assert_string_equal(refusal_for_bytes(&h, 20), "truncated ELF file");

    /* a real program cut short: headers intact, section table and code gone */
    FILE *f = fopen(fixture("debug_fixture_nopie"), "rb");
    assert_non_null(f);
    static unsigned char head[12000];
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_string_equal(refusal_for_bytes(head, sizeof head), "truncated ELF file");
    assert_string_equal(refusal_for_bytes(head, 1000), "truncated ELF file");
}

static void test_small_error_buffer(void **state)
{
    char err[8];
    memset(err, 'x', sizeof err);
    assert_null(elf_image_open(FIXTURE_DIR, err, sizeof err));
    assert_string_equal(err, "is a di");
    assert_null(elf_image_open(FIXTURE_DIR, NULL, 0));
}

/* ---- accepted programs --------------------------------------------------------- */

static void test_non_pie(void **state)
{
    elf_image *img = open_fixture("debug_fixture_nopie");
    assert_false(elf_image_is_pie(img));
    assert_false(elf_image_is_static(img));
    assert_true(elf_image_has_symtab(img));
    assert_int_equal(elf_image_base_vaddr(img), 0x400000);
    assert_int_equal(elf_image_entry(img), symbol_addr(img, "_start"));
    assert_string_equal(elf_image_path(img), fixture("debug_fixture_nopie"));
    elf_image_close(img);
}

static void test_pie(void **state)
{
    elf_image *img = open_fixture("debug_fixture_pie");
    assert_true(elf_image_is_pie(img));
    assert_false(elf_image_is_static(img));
    assert_int_equal(elf_image_base_vaddr(img), 0);
    assert_int_equal(elf_image_entry(img), symbol_addr(img, "_start"));
    elf_image_close(img);
}

static void test_static(void **state)
{
    elf_image *img = open_fixture("debug_fixture_static");
    assert_true(elf_image_is_static(img));
    assert_false(elf_image_is_pie(img));
    /* libc is linked in: its functions are named too */
    assert_non_null(elf_image_function_at(img, symbol_addr(img, "add_to_counter")));
    uint64_t addrs[4];
    assert_true(elf_image_symbol_addrs(img, "abort", addrs, 4) >= 1);
    elf_image_close(img);
}

static void test_functions_sorted_and_found(void **state)
{
    elf_image *img = open_fixture("debug_fixture_nopie");
    const struct elf_symbol *funcs;
    size_t count = elf_image_functions(img, &funcs);
    assert_true(count >= 4);
    for (size_t i = 1; i < count; i++)
        assert_true(funcs[i - 1].addr < funcs[i].addr);
    for (size_t i = 0; i < count; i++) {
        assert_true(funcs[i].is_func);
        assert_true(funcs[i].size > 0);
    }

    uint64_t add = symbol_addr(img, "add_to_counter");
    const struct elf_symbol *fn = elf_image_function_at(img, add + 1);
    assert_non_null(fn);
    assert_string_equal(fn->name, "add_to_counter");
    assert_int_equal(fn->addr, add);
    assert_null(elf_image_function_at(img, add + fn->size + 0x100000));
    assert_null(elf_image_function_at(img, 0));
    /* a file-local function is in .symtab too */
    fn = elf_image_function_at(img, symbol_addr(img, "push_item"));
    assert_non_null(fn);
    assert_string_equal(fn->name, "push_item");
    elf_image_close(img);
}

static void test_objects(void **state)
{
    elf_image *img = open_fixture("debug_fixture_nopie");
    uint64_t queue = symbol_addr(img, "queue");
    const struct elf_symbol *obj = elf_image_object_at(img, queue + 8);
    assert_non_null(obj);
    assert_string_equal(obj->name, "queue");
    assert_false(obj->is_func);
    assert_int_equal(obj->size, 2 * sizeof(long) + 8 * sizeof(int));
    obj = elf_image_object_at(img, queue + obj->size - 1);
    assert_non_null(obj);
    assert_string_equal(obj->name, "queue");

    uint64_t numbers = symbol_addr(img, "numbers");
    obj = elf_image_object_at(img, numbers + 15 * sizeof(int));
    assert_non_null(obj);
    assert_string_equal(obj->name, "numbers");
    obj = elf_image_object_at(img, symbol_addr(img, "hidden_total"));
    assert_non_null(obj);
    assert_string_equal(obj->name, "hidden_total");
    assert_null(elf_image_object_at(img, symbol_addr(img, "main")));
    elf_image_close(img);
}

static void test_sections(void **state)
{
    elf_image *img = open_fixture("debug_fixture_nopie");
    const struct elf_section *sections;
    size_t count = elf_image_sections(img, &sections);
    const struct elf_section *text = NULL, *bss = NULL, *rodata = NULL;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(sections[i].name, ".text") == 0)
            text = &sections[i];
        else if (strcmp(sections[i].name, ".bss") == 0)
            bss = &sections[i];
        else if (strcmp(sections[i].name, ".rodata") == 0)
            rodata = &sections[i];
    }
    assert_non_null(text);
    assert_non_null(bss);
    assert_non_null(rodata);
    assert_true(text->exec && text->alloc && !text->write);
    assert_non_null(text->data);
    assert_true(bss->alloc && bss->write && !bss->exec);
    assert_null(bss->data);

    /* -O0 code starts with push %rbp (after endbr64 when CET is on) */
    uint64_t add = symbol_addr(img, "add_to_counter");
    assert_true(add >= text->addr && add < text->addr + text->size);
    const uint8_t *code = text->data + (add - text->addr);
    static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
    assert_true(code[0] == 0x55 || memcmp(code, endbr64, sizeof endbr64) == 0);

    assert_true(elf_image_addr_readonly(img, add));
    assert_true(elf_image_addr_readonly(img, rodata->addr));
    assert_false(elf_image_addr_readonly(img, symbol_addr(img, "counter")));
    assert_false(elf_image_addr_readonly(img, symbol_addr(img, "queue")));
    assert_false(elf_image_addr_readonly(img, 0));
    assert_false(elf_image_addr_readonly(img, UINT64_MAX));
    elf_image_close(img);
}

static void test_stripped(void **state)
{
    elf_image *full = open_fixture("debug_fixture_nopie");
    elf_image *img = open_fixture("debug_fixture_stripped");
    assert_false(elf_image_has_symtab(img));
    assert_false(elf_image_is_pie(img));
    assert_null(elf_image_function_at(img, symbol_addr(full, "add_to_counter")));
    assert_null(elf_image_object_at(img, symbol_addr(full, "queue")));
    uint64_t addr;
    assert_int_equal(elf_image_symbol_addrs(img, "main", &addr, 1), 0);
    /* imports in .dynsym are undefined here and must not appear as symbols */
    assert_int_equal(elf_image_symbol_addrs(img, "printf", &addr, 1), 0);
    elf_image_close(img);
    elf_image_close(full);

    img = open_fixture("debug_fixture_pie_s");
    assert_false(elf_image_has_symtab(img));
    assert_true(elf_image_is_pie(img));
    const struct elf_symbol *funcs;
    assert_int_equal(elf_image_functions(img, &funcs), 0);
    elf_image_close(img);
}

static void test_libc_dynsym(void **state)
{
    if (access(LIBC_PATH, R_OK) != 0)
        skip();
    char err[256];
    elf_image *img = elf_image_open(LIBC_PATH, err, sizeof err);
    assert_non_null(img);
    assert_true(elf_image_is_pie(img)); /* ET_DYN */

    uint64_t addrs[8];
    size_t n = elf_image_symbol_addrs(img, "pthread_mutex_lock", addrs, 8);
    assert_true(n >= 1);
    const struct elf_symbol *fn = elf_image_function_at(img, addrs[0]);
    assert_non_null(fn);
    assert_int_equal(fn->addr, addrs[0]);
    /* __pthread_mutex_lock is an alias at the same address: the plain name wins */
    assert_string_equal(fn->name, "pthread_mutex_lock");

    n = elf_image_symbol_addrs(img, "pthread_cond_wait", addrs, 8);
    assert_true(n >= 1 && n <= 8);
    for (size_t i = 0; i < n; i++) {
        fn = elf_image_function_at(img, addrs[i]);
        assert_non_null(fn);
        assert_null(strchr(fn->name, '@'));
        for (size_t j = 0; j < i; j++)
            assert_true(addrs[j] != addrs[i]);
    }
    /* the count is the full count even when fewer fit */
    assert_int_equal(elf_image_symbol_addrs(img, "pthread_cond_wait", addrs, 1), n);
    assert_int_equal(elf_image_symbol_addrs(img, "no_such_symbol_in_libc", addrs, 8), 0);
    assert_true(elf_image_symbol_addrs(img, "sem_wait", addrs, 8) >= 1);
    elf_image_close(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_shell_script),
        cmocka_unit_test(test_text_and_empty_files),
        cmocka_unit_test(test_32bit_elf),
        cmocka_unit_test(test_other_machine),
        cmocka_unit_test(test_relocatable_and_core),
        cmocka_unit_test(test_truncated_elf),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_non_pie),
        cmocka_unit_test(test_pie),
        cmocka_unit_test(test_static),
        cmocka_unit_test(test_functions_sorted_and_found),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_stripped),
        cmocka_unit_test(test_libc_dynsym),
        cmocka_unit_test(test_plt_stubs),
        cmocka_unit_test(test_plt_unstubbed_imports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
