/* Unit tests for naming data in the student's terms (supervisor/debuginfo/debuginfo.c
 * with dwarf_info, dwarf_type_reader, dwarf_types, object_path, value_format,
 * data_expr, sync_globals): variables, members and elements, pointers, types,
 * values, expressions, sync objects, TLS and inlined code, over every build of
 * tests/fixtures/data_fixture.c (gcc -O0/-O2, DWARF 4/5, PIE/non-PIE/static,
 * clang). Memory comes from the fixture file's own sections plus a few
 * planted pointer values; the live tests run the fixture and read its real
 * memory and thread pointers. Offsets come from data_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/debuginfo/sync_globals.h"
#include "tests/fixtures/data_fixture.h"
#include "debug_fixture_support.h"

#define FIXTURE_SOURCE SOURCE_DIR "/tests/fixtures/data_fixture.c"

static const char *const variants[] = {
    "data_fixture_nopie", "data_fixture_pie", "data_fixture_dwarf4", "data_fixture_o2",
    "data_fixture_o2_dwarf4_nopie", "data_fixture_static", "data_fixture_clang",
    "data_fixture_clang_o2_dwarf4",
};
#define VARIANT_COUNT (sizeof variants / sizeof variants[0])

enum { PIE_BIAS = 0x555555554000ull };

/* Addresses no variable has: where planted pointers point ("the heap"). */
enum { FAKE_QUEUE = 0x7000000, FAKE_COUNTER = 0x7100000, FAKE_NODE = 0x7200000 };

static bool is_clang(const char *name) { return strstr(name, "clang") != NULL; }

static debuginfo *load_data_fixture(const char *name)
{
    debuginfo *di = load_fixture(name);
    assert_true(debuginfo_has_dwarf(di));
    return di;
}

static unsigned marker_line(const char *marker) { return source_marker_line(FIXTURE_SOURCE, marker); }

/* ---- a fake memory: the file's sections, with planted pointer values ---- */

struct planted {
    uint64_t addr, value; /* runtime */
};

struct fake_memory {
    const debuginfo *di;
    uint64_t bias;
    struct planted planted[8];
    size_t planted_count;
};

static bool file_byte(const struct fake_memory *m, uint64_t runtime, uint8_t *byte)
{
    for (size_t i = 0; i < m->planted_count; i++) {
        uint64_t off = runtime - m->planted[i].addr;
        if (off < 8) {
            *byte = (uint8_t)(m->planted[i].value >> (8 * off));
            return true;
        }
    }
    const struct elf_section *sections;
    size_t count = elf_image_sections(debuginfo_elf(m->di), &sections);
    uint64_t addr = runtime - m->bias;
    for (size_t i = 0; i < count; i++) {
        const struct elf_section *s = &sections[i];
        if (!s->alloc || strncmp(s->name, ".t", 2) == 0 || addr - s->addr >= s->size)
            continue; /* .tdata/.tbss are templates, not memory */
        *byte = s->data ? s->data[addr - s->addr] : 0;
        return true;
    }
    return false;
}

static bool fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!file_byte(ctx, addr + i, (uint8_t *)buf + i))
            return false;
    return true;
}

/* Behind FAKE_COUNTER lies an allocation of four ints; behind FAKE_QUEUE one queue. */
static uint64_t fake_extent(void *ctx, uint64_t addr)
{
    (void)ctx;
    if (addr >= FAKE_COUNTER && addr < FAKE_COUNTER + 4 * sizeof(int))
        return FAKE_COUNTER + 4 * sizeof(int) - addr;
    if (addr >= FAKE_QUEUE && addr < FAKE_QUEUE + sizeof(struct queue))
        return FAKE_QUEUE + sizeof(struct queue) - addr;
    return 0;
}

static void plant(struct fake_memory *m, const char *pointer, uint64_t value)
{
    m->planted[m->planted_count++] = (struct planted){ symbol_addr(m->di, pointer) + m->bias, value };
}

/* Where "hello" (what greeting points to) is in the file. */
static uint64_t find_rodata_string(const debuginfo *di, const char *text)
{
    const struct elf_section *sections;
    size_t count = elf_image_sections(debuginfo_elf(di), &sections);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(sections[i].name, ".rodata") != 0 || !sections[i].data)
            continue;
        for (uint64_t off = 0; off + strlen(text) < sections[i].size; off++)
            if (memcmp(sections[i].data + off, text, strlen(text) + 1) == 0)
                return sections[i].addr + off;
    }
    fail_msg("no \"%s\" in .rodata", text);
    return 0;
}

struct setup {
    debuginfo *di;
    struct fake_memory memory;
    struct data_reader rd;
};

static void start(struct setup *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->di = load_data_fixture(name);
    s->memory.di = s->di;
    s->memory.bias = elf_image_is_pie(debuginfo_elf(s->di)) ? PIE_BIAS : 0;
    plant(&s->memory, "q", FAKE_QUEUE);
    plant(&s->memory, "counter_ptr", FAKE_COUNTER);
    plant(&s->memory, "list_head", FAKE_NODE);
    plant(&s->memory, "greeting", find_rodata_string(s->di, "hello") + s->memory.bias);
    s->rd = (struct data_reader){ fake_read, &s->memory, s->memory.bias };
}

static uint64_t runtime(const struct setup *s, const char *symbol)
{
    return symbol_addr(s->di, symbol) + s->memory.bias;
}

/* ---- naming ---- */

static void expect_name(const struct setup *s, uint64_t addr, const char *expected, const char *type_name)
{
    char buf[128], tname[128];
    const struct dwarf_type *type = (const void *)1;
    bool found = debuginfo_name_data(s->di, addr, &s->rd, buf, sizeof buf, &type);
    if (!found || strcmp(buf, expected) != 0)
        fail_msg("0x%" PRIx64 ": expected '%s', got '%s'", addr, expected, buf);
    if (!type_name) {
        assert_null(type);
        return;
    }
    assert_non_null(type);
    dwarf_type_name(type, tname, sizeof tname);
    if (strcmp(tname, type_name) != 0)
        fail_msg("%s: expected type '%s', got '%s'", expected, type_name, tname);
}

static void check_names(const char *variant)
{
    struct setup s;
    start(&s, variant);
    uint64_t queue = runtime(&s, "queue"), table = runtime(&s, "table"), pair = runtime(&s, "pair");

    expect_name(&s, runtime(&s, "counter"), "counter", "int");
    expect_name(&s, runtime(&s, "counter") + 2, "counter+2", NULL);
    expect_name(&s, queue, "queue.head", "int");
    expect_name(&s, queue + offsetof(struct queue, buf) + 3 * sizeof(int), "queue.buf[3]", "int");
    expect_name(&s, queue + offsetof(struct queue, buf) + 3 * sizeof(int) + 1, "queue.buf[3]+1", NULL);
    /* The C library's insides (names with "__") are not walked into. */
    expect_name(&s, queue + offsetof(struct queue, lock), "queue.lock", "pthread_mutex_t");
    expect_name(&s, queue + offsetof(struct queue, lock) + 8, "queue.lock+8", NULL);
    expect_name(&s, pair + offsetof(struct pair, b), "pair.b", "int");
    expect_name(&s, pair + 1, "pair+1", NULL); /* padding */
    expect_name(&s, table + (1 * 3 + 2) * sizeof(struct cell) + offsetof(struct cell, count),
                "table[1][2].count", "int");
    expect_name(&s, table + sizeof(struct cell) + offsetof(struct cell, where) + 2, "table[0][1].where.y",
                "short");
    expect_name(&s, runtime(&s, "matrix") + 4 * sizeof(int), "matrix[1][1]", "int");
    expect_name(&s, runtime(&s, "name") + 2, "name[2]", "char");
    expect_name(&s, runtime(&s, "tagged") + offsetof(struct tagged, as_int), "tagged.as_int", "int");
    expect_name(&s, runtime(&s, "number"), "number.i", "int");
    expect_name(&s, runtime(&s, "flags"), "flags", "struct flags"); /* bit fields: the struct */
    expect_name(&s, runtime(&s, "nodes") + sizeof(node_t) + offsetof(node_t, next), "nodes[1].next",
                "struct node *");
    expect_name(&s, runtime(&s, "forks") + 3 * sizeof(pthread_mutex_t), "forks[3]", "pthread_mutex_t");
    expect_name(&s, runtime(&s, "hidden_total"), "hidden_total", "int");
    expect_name(&s, runtime(&s, "cv"), "cv", "const volatile int");
    expect_name(&s, runtime(&s, "const_ptr"), "const_ptr", "int *const");

    /* through pointer variables, into memory no variable covers */
    expect_name(&s, FAKE_QUEUE + offsetof(struct queue, head), "q->head", "int");
    expect_name(&s, FAKE_QUEUE + offsetof(struct queue, buf) + 2 * sizeof(int), "q->buf[2]", "int");
    expect_name(&s, FAKE_QUEUE + offsetof(struct queue, tail) + 1, "q->tail+1", NULL);
    expect_name(&s, FAKE_COUNTER, "*counter_ptr", "int");
    expect_name(&s, FAKE_COUNTER + 3, "(*counter_ptr)+3", NULL);
    expect_name(&s, FAKE_NODE + offsetof(node_t, next), "list_head->next", "struct node *");

    /* an allocation of several objects behind a pointer: indexed */
    s.rd.extent = fake_extent;
    expect_name(&s, FAKE_COUNTER + 2 * sizeof(int), "counter_ptr[2]", "int");
    expect_name(&s, FAKE_COUNTER, "counter_ptr[0]", "int");
    expect_name(&s, FAKE_COUNTER + 2 * sizeof(int) + 1, "counter_ptr[2]+1", NULL);
    expect_name(&s, FAKE_QUEUE + offsetof(struct queue, head), "q->head", "int"); /* one queue: still q-> */
    s.rd.extent = NULL;

    /* a function's static has no DWARF-free name: DWARF says "calls" */
    uint64_t addr;
    char err[128], buf[64];
    assert_true(debuginfo_eval(s.di, "count_calls::calls", &s.rd, &addr, NULL, err, sizeof err));
    expect_name(&s, addr, "calls", "int");

    /* the ELF symbol when DWARF has nothing; nothing at all: false and "" */
    uint64_t completed;
    if (elf_image_symbol_addrs(debuginfo_elf(s.di), "completed.0", &completed, 1) == 1)
        expect_name(&s, completed + s.memory.bias, "completed.0", NULL);
    assert_false(debuginfo_name_data(s.di, 0x10, &s.rd, buf, sizeof buf, NULL));
    assert_string_equal(buf, "");
    assert_false(debuginfo_name_data(s.di, FAKE_QUEUE + sizeof(struct queue), &s.rd, buf, sizeof buf, NULL));
    /* without a reader pointers are not followed */
    assert_false(debuginfo_name_data(s.di, FAKE_QUEUE, NULL, buf, sizeof buf, NULL));
    /* truncation */
    assert_true(debuginfo_name_data(s.di, table + 5 * sizeof(struct cell), &s.rd, buf, 10, NULL));
    assert_string_equal(buf, "table[...");
    /* the ELF-only name of debuginfo_format_data is unchanged */
    debuginfo_format_data(s.di, symbol_addr(s.di, "queue") + 8, buf, sizeof buf);
    assert_string_equal(buf, "queue+8");
    debuginfo_free(s.di);
}

/* ---- types and values ---- */

struct expected_value {
    const char *expr, *type, *value;
    size_t size;
};

static void check_types_and_values(const char *variant)
{
    static const struct expected_value expected[] = {
        { "letter", "char", "'a'", 1 },
        { "small", "signed char", "'\\xfb'", 1 },
        { "byte", "unsigned char", "'\\xc8'", 1 },
        { "shorty", "short", "-300", 2 },
        { "ushorty", "unsigned short", "60000", 2 },
        { "counter", "int", "3", 4 },
        { "ucount", "unsigned int", "4000000000", 4 },
        { "big", "long", "-1234567890123", 8 },
        { "ubig", "unsigned long", "18446744073709551615", 8 },
        { "llong", "long long", "-42", 8 },
        { "flag", "_Bool", "true", 1 },
        { "ratio", "float", "3.5", 4 },
        { "precise", "double", "0.1", 8 },
        { "extended", "long double", "2.5", 16 },
        { "paint", "enum color", "GREEN", 4 },
        { "odd_paint", "enum color", "7", 4 },
        { "dark_paint", "enum color", "BLUE", 4 },
        { "pair", "struct pair", "{a = 'x', b = 42}", sizeof(struct pair) },
        { "table", "struct cell [2][3]",
          "{{{count = 1, where = {x = 2, y = 3}}, {count = 0, where = {x = 0, y = 0}}, "
          "{count = 0, where = {x = 0, y = 0}}}, {{count = 0, where = {x = 0, y = 0}}, "
          "{count = 0, where = {x = 0, y = 0}}, {count = 7, where = {x = 8, y = 9}}}}",
          sizeof(struct cell[2][3]) },
        { "table[1][2]", "struct cell", "{count = 7, where = {x = 8, y = 9}}", sizeof(struct cell) },
        { "q", "struct queue *", "0x7000000", 8 },
        { "name", "char [16]", "\"mdat\"", 16 },
        { "flags", "struct flags", "{ready = 1, mode = 5, level = -3}", sizeof(struct flags) },
        { "matrix", "int [2][3]", "{{1, 2, 3}, {4, 5, 6}}", sizeof(int[2][3]) },
        { "big_array", "int [100]", "{1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...}", 400 },
        { "cv", "const volatile int", "7", 4 },
        { "const_ptr", "int *const", NULL, 8 },
        { "callback", "void (*)(int)", "NULL", 8 },
        { "null_ptr", "int *", "NULL", 8 },
        { "nodes", "node_t [3]", NULL, sizeof(node_t[3]) },
        { "nodes[2]", "node_t", "{value = 3, next = NULL}", sizeof(node_t) },
        { "list_head", "node_t *", "0x7200000", 8 },
        { "unknown_bound", "int [3]", "{5, 6, 7}", 12 },
        { "tagged", "struct tagged", NULL, sizeof(struct tagged) },
        { "lock_a", "pthread_mutex_t", NULL, sizeof(pthread_mutex_t) },
        { "slots", "sem_t", NULL, 32 },
        { "queue.buf", "int [4]", "{10, 20, 30, 40}", 16 },
    };
    struct setup s;
    start(&s, variant);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const struct expected_value *e = &expected[i];
        uint64_t addr;
        const struct dwarf_type *type;
        char err[128], tname[128], value[512];
        if (!debuginfo_eval(s.di, e->expr, &s.rd, &addr, &type, err, sizeof err))
            fail_msg("%s: eval %s: %s", variant, e->expr, err);
        dwarf_type_name(type, tname, sizeof tname);
        if (strcmp(tname, e->type) != 0)
            fail_msg("%s: %s has type '%s', expected '%s'", variant, e->expr, tname, e->type);
        assert_int_equal(dwarf_type_size(type), e->size);
        debuginfo_format_value(s.di, type, addr, &s.rd, value, sizeof value);
        if (e->value && strcmp(value, e->value) != 0)
            fail_msg("%s: %s = '%s', expected '%s'", variant, e->expr, value, e->value);
    }

    /* char * shows the string; anonymous members print without a name */
    uint64_t addr;
    const struct dwarf_type *type;
    char err[128], value[256], expected_text[64];
    assert_true(debuginfo_eval(s.di, "greeting", &s.rd, &addr, &type, err, sizeof err));
    debuginfo_format_value(s.di, type, addr, &s.rd, value, sizeof value);
    snprintf(expected_text, sizeof expected_text, "0x%" PRIx64 " \"hello\"",
             find_rodata_string(s.di, "hello") + s.memory.bias);
    assert_string_equal(value, expected_text);
    assert_true(debuginfo_eval(s.di, "tagged", &s.rd, &addr, &type, err, sizeof err));
    debuginfo_format_value(s.di, type, addr, &s.rd, value, sizeof value);
    assert_memory_equal(value, "{tag = 1, {as_int = 2, as_float = ", 34);

    /* clean truncation */
    assert_true(debuginfo_eval(s.di, "matrix", &s.rd, &addr, &type, err, sizeof err));
    debuginfo_format_value(s.di, type, addr, &s.rd, value, 12);
    assert_string_equal(value, "{{1, 2, ...");
    /* unreadable memory */
    debuginfo_format_value(s.di, type, 0x10, &s.rd, value, sizeof value);
    assert_string_equal(value, "<unreadable>");

    /* values in hand */
    assert_true(debuginfo_eval(s.di, "paint", &s.rd, &addr, &type, err, sizeof err));
    int32_t blue = -1;
    dwarf_format_bytes(type, &blue, sizeof blue, value, sizeof value);
    assert_string_equal(value, "BLUE");
    assert_true(debuginfo_eval(s.di, "pair", &s.rd, &addr, &type, err, sizeof err));
    struct pair p = { 'z', -7 };
    dwarf_format_bytes(type, &p, sizeof p, value, sizeof value);
    assert_string_equal(value, "{a = 'z', b = -7}");
    dwarf_format_bytes(type, &p, 2, value, sizeof value);
    assert_string_equal(value, "{a = 'z', ...}");
    assert_true(debuginfo_eval(s.di, "ratio", &s.rd, &addr, &type, err, sizeof err));
    float quarter = -0.25f;
    dwarf_format_bytes(type, &quarter, sizeof quarter, value, sizeof value);
    assert_string_equal(value, "-0.25");
    debuginfo_free(s.di);
}

/* ---- expressions ---- */

static void expect_eval(const struct setup *s, const char *expr, uint64_t addr, const char *type_name)
{
    uint64_t got;
    const struct dwarf_type *type;
    char err[128], tname[128];
    if (!debuginfo_eval(s->di, expr, &s->rd, &got, &type, err, sizeof err))
        fail_msg("eval %s: %s", expr, err);
    if (got != addr)
        fail_msg("eval %s: 0x%" PRIx64 ", expected 0x%" PRIx64, expr, got, addr);
    dwarf_type_name(type, tname, sizeof tname);
    assert_string_equal(tname, type_name);
}

static void expect_eval_error(const struct setup *s, const char *expr, const char *message)
{
    uint64_t got = 0;
    char err[128];
    if (debuginfo_eval(s->di, expr, &s->rd, &got, NULL, err, sizeof err))
        fail_msg("eval %s succeeded (0x%" PRIx64 "), expected: %s", expr, got, message);
    if (strcmp(err, message) != 0)
        fail_msg("eval %s: '%s', expected '%s'", expr, err, message);
}

static void check_eval(const char *variant)
{
    struct setup s;
    start(&s, variant);
    uint64_t queue = runtime(&s, "queue");
    expect_eval(&s, "counter", runtime(&s, "counter"), "int");
    expect_eval(&s, "queue.buf[3]", queue + offsetof(struct queue, buf) + 12, "int");
    expect_eval(&s, " queue . buf [ 0x3 ] ", queue + offsetof(struct queue, buf) + 12, "int");
    expect_eval(&s, "queue.lock", queue + offsetof(struct queue, lock), "pthread_mutex_t");
    expect_eval(&s, "q->head", FAKE_QUEUE, "int");
    expect_eval(&s, "q->buf[2]", FAKE_QUEUE + offsetof(struct queue, buf) + 8, "int");
    expect_eval(&s, "(*q).tail", FAKE_QUEUE + offsetof(struct queue, tail), "int");
    expect_eval(&s, "*q", FAKE_QUEUE, "struct queue");
    expect_eval(&s, "q[0].tail", FAKE_QUEUE + offsetof(struct queue, tail), "int");
    expect_eval(&s, "*counter_ptr", FAKE_COUNTER, "int");
    expect_eval(&s, "list_head->next", FAKE_NODE + offsetof(node_t, next), "struct node *");
    expect_eval(&s, "table[1][2].count",
                runtime(&s, "table") + 5 * sizeof(struct cell) + offsetof(struct cell, count), "int");
    expect_eval(&s, "table[1]", runtime(&s, "table") + 3 * sizeof(struct cell), "struct cell [3]");
    expect_eval(&s, "*matrix", runtime(&s, "matrix"), "int [3]");
    expect_eval(&s, "tagged.as_float", runtime(&s, "tagged") + offsetof(struct tagged, as_float), "float");
    expect_eval(&s, "rooms[1].lock", runtime(&s, "rooms") + sizeof(struct room) + offsetof(struct room, lock),
                "pthread_mutex_t");
    uint64_t a, b;
    char err[128];
    assert_true(debuginfo_eval(s.di, "count_calls::calls", &s.rd, &a, NULL, err, sizeof err));
    assert_true(debuginfo_eval(s.di, "count_other_calls::calls", &s.rd, &b, NULL, err, sizeof err));
    assert_true(a != b);
    int value = 0;
    assert_true(fake_read(&s.memory, b, &value, sizeof value));
    assert_int_equal(value, 100);

    expect_eval_error(&s, "nope", "no variable named 'nope'");
    expect_eval_error(&s, "main::calls", "no static variable 'calls' in function 'main'");
    expect_eval_error(&s, "counter.x", "'counter' is not a struct");
    expect_eval_error(&s, "queue.nope", "'queue' has no member 'nope'");
    expect_eval_error(&s, "queue.buf[7]", "index 7 out of bounds for 'queue.buf' (size 4)");
    expect_eval_error(&s, "table[1][3]", "index 3 out of bounds for 'table[1]' (size 3)");
    expect_eval_error(&s, "queue.buf[i]", "index of 'queue.buf' must be a constant number");
    expect_eval_error(&s, "counter->x", "'counter' is not a pointer (use '.')");
    expect_eval_error(&s, "*counter", "'counter' is not a pointer");
    expect_eval_error(&s, "counter[1]", "'counter' is not an array or a pointer");
    expect_eval_error(&s, "*null_ptr", "'null_ptr' is NULL");
    expect_eval_error(&s, "flags.mode", "'flags.mode' is a bit field: it has no address of its own");
    expect_eval_error(&s, "queue.head junk", "unexpected 'junk' after 'queue.head'");
    expect_eval_error(&s, "queue.buf[1", "expected ']' at the end of 'queue.buf[1'");
    expect_eval_error(&s, "", "expected a variable name at the end of ''");
    expect_eval_error(&s, "tls_counter", "'tls_counter' is thread-local: say which thread's copy to watch");
    uint64_t got;
    assert_false(debuginfo_eval(s.di, "*q", NULL, &got, NULL, err, sizeof err));
    assert_string_equal(err, "cannot follow pointer 'q' without reading memory");
    debuginfo_free(s.di);
}

/* ---- sync objects ---- */

static void check_sync_globals(const char *variant)
{
    debuginfo *di = load_data_fixture(variant);
    const struct sync_global *list;
    size_t count = debuginfo_sync_globals(di, &list);
    struct {
        const char *name;
        enum sync_kind kind;
        uint64_t addr;
    } expected[] = {
        { "lock_a", SYNC_MUTEX, symbol_addr(di, "lock_a") },
        { "slots", SYNC_SEMAPHORE, symbol_addr(di, "slots") },
        { "ready_cond", SYNC_CONDVAR, symbol_addr(di, "ready_cond") },
        { "barrier", SYNC_BARRIER, symbol_addr(di, "barrier") },
        { "rwlock", SYNC_RWLOCK, symbol_addr(di, "rwlock") },
        { "spin", SYNC_SPINLOCK, symbol_addr(di, "spin") },
        { "hidden_lock", SYNC_MUTEX, symbol_addr(di, "hidden_lock") },
        { "queue.lock", SYNC_MUTEX, symbol_addr(di, "queue") + offsetof(struct queue, lock) },
        { "forks[0]", SYNC_MUTEX, symbol_addr(di, "forks") },
        { "forks[3]", SYNC_MUTEX, symbol_addr(di, "forks") + 3 * sizeof(pthread_mutex_t) },
        { "forks[4]", SYNC_MUTEX, symbol_addr(di, "forks") + 4 * sizeof(pthread_mutex_t) },
        { "rooms[0].lock", SYNC_MUTEX, symbol_addr(di, "rooms") + offsetof(struct room, lock) },
        { "rooms[1].lock", SYNC_MUTEX,
          symbol_addr(di, "rooms") + sizeof(struct room) + offsetof(struct room, lock) },
    };
    assert_int_equal(count, 15); /* the above and forks[1], forks[2] */
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        size_t k = 0;
        while (k < count && strcmp(list[k].name, expected[i].name) != 0)
            k++;
        if (k == count)
            fail_msg("%s: no sync object %s", variant, expected[i].name);
        assert_int_equal(list[k].kind, expected[i].kind);
        assert_int_equal(list[k].addr, expected[i].addr);
    }
    for (size_t k = 1; k < count; k++)
        assert_true(list[k - 1].addr < list[k].addr);
    debuginfo_free(di);
}

/* C++: std::mutex is a class, not a typedef (the e2e target cxx_threads). */
static void test_sync_globals_cxx(void **state)
{
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/cxx_threads", TARGET_DIR);
    if (access(path, R_OK) != 0)
        skip();
    debuginfo *di = debuginfo_load(path, err, sizeof err);
    assert_non_null(di);
    const struct sync_global *list;
    size_t count = debuginfo_sync_globals(di, &list);
    assert_int_equal(count, 1);
    assert_string_equal(list[0].name, "counter_mutex");
    assert_int_equal(list[0].kind, SYNC_MUTEX);
    assert_int_equal(list[0].addr, symbol_addr(di, "counter_mutex"));
    debuginfo_free(di);
}

/* ---- integer expressions (invariants) ---- */

static void expect_int_value(const struct setup *s, const char *expr, int64_t value, const char *terms)
{
    struct data_expr_result r;
    char err[160], got[256] = "";
    if (!debuginfo_eval_value(s->di, expr, &s->rd, &r, err, sizeof err))
        fail_msg("value of %s: %s", expr, err);
    if (r.value != value)
        fail_msg("value of %s: %" PRId64 ", expected %" PRId64, expr, r.value, value);
    for (int i = 0; i < r.n_terms; i++) {
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%s = %" PRId64, i ? ", " : "", r.terms[i].text, r.terms[i].value);
    }
    if (strcmp(got, terms) != 0)
        fail_msg("terms of %s: '%s', expected '%s'", expr, got, terms);
}

static void expect_int_value_error(const struct setup *s, const char *expr, bool with_memory, const char *message)
{
    struct data_expr_result r;
    char err[160];
    if (debuginfo_eval_value(s->di, expr, with_memory ? &s->rd : NULL, &r, err, sizeof err))
        fail_msg("value of %s succeeded (%" PRId64 "), expected: %s", expr, r.value, message);
    if (strcmp(err, message) != 0)
        fail_msg("value of %s: '%s', expected '%s'", expr, err, message);
}

static void check_values(const char *variant)
{
    struct setup s;
    start(&s, variant);
    expect_int_value(&s, "counter + 1", 4, "counter = 3");
    expect_int_value(&s, "counter * 2 - queue.head == 5", 1, "counter = 3, queue.head = 1");
    expect_int_value(&s, "queue.buf[counter] / 10", 4, "counter = 3, queue.buf[counter] = 40");
    expect_int_value(&s, "queue.buf[queue.tail - 1] % 7", 20 % 7, "queue.tail = 2, queue.buf[queue.tail - 1] = 20");
    expect_int_value(&s, "shorty < 0 && small == -5", 1, "shorty = -300, small = -5");
    expect_int_value(&s, "byte + ushorty", 200 + 60000, "byte = 200, ushorty = 60000");
    expect_int_value(&s, "ubig == -1 && ucount > 0", 1, "ubig = -1, ucount = 4000000000");
    expect_int_value(&s, "!flag || counter > 100", 0, "flag = 1, counter = 3");
    expect_int_value(&s, "(counter + 1) * 2 >= 8", 1, "counter = 3");
    expect_int_value(&s, "-counter + +2", -1, "counter = 3");
    expect_int_value(&s, "paint == 5 && dark_paint < 0", 1, "paint = 5, dark_paint = -1");
    expect_int_value(&s, "matrix[1][2] + matrix[0][0] != 7", 0, "matrix[1][2] = 6, matrix[0][0] = 1");
    expect_int_value(&s, "pair.b - pair.a", 42 - 'x', "pair.b = 42, pair.a = 120");
    expect_int_value(&s, "counter+counter<=0x10", 1, "counter = 3");
    expect_int_value(&s, "count_other_calls::calls", 100, "count_other_calls::calls = 100");
    /* The side && and || do not need is not evaluated: no NULL dereference. */
    expect_int_value(&s, "null_ptr && *null_ptr == 3", 0, "null_ptr = 0");
    expect_int_value(&s, "!null_ptr || *null_ptr", 1, "null_ptr = 0");
    expect_int_value(&s, "null_ptr == 0", 1, "null_ptr = 0");

    expect_int_value_error(&s, "counter / (queue.head - 1)", true, "division by zero");
    expect_int_value_error(&s, "*null_ptr == 0", true, "'null_ptr' is NULL");
    expect_int_value_error(&s, "queue", true, "'queue' is not a number (it is struct queue)");
    expect_int_value_error(&s, "ratio > 1", true, "'ratio' is a floating-point number (float): only integers can be compared");
    expect_int_value_error(&s, "nope + 1", true, "no variable named 'nope'");
    expect_int_value_error(&s, "counter +", true, "expected a variable name or a number at the end of 'counter +'");
    expect_int_value_error(&s, "counter 3", true, "unexpected '3' after 'counter '");
    expect_int_value_error(&s, "(counter + 1", true, "expected ')' at the end of '(counter + 1'");
    expect_int_value_error(&s, "counter == 4x", true, "'4x' is not a number");
    expect_int_value_error(&s, "tls_counter == 0", true,
                       "'tls_counter' is thread-local: an invariant is about shared variables");
    expect_int_value_error(&s, "3.x", true, "'3.x' is not a number");
    /* Without memory: checked, not read. */
    struct data_expr_result r;
    char err[160];
    assert_true(debuginfo_eval_value(s.di, "q->head + *counter_ptr <= 4 && *null_ptr == 0", NULL, &r, err, sizeof err));
    assert_int_equal(r.n_terms, 0);
    expect_int_value_error(&s, "queue.buf[7] > 0", false, "index 7 out of bounds for 'queue.buf' (size 4)");
    expect_int_value_error(&s, "queue.tail + name", false, "'name' is not a number (it is char [16])");
    expect_int_value_error(&s, "men_inside <= 4", false, "no variable named 'men_inside'");
    expect_int_value_error(&s, "counter <", false, "expected a variable name or a number at the end of 'counter <'");
    debuginfo_free(s.di);
}

/* ---- TLS (offsets in the block, as DWARF says) ---- */

static void check_tls_names(const char *variant)
{
    struct setup s;
    start(&s, variant);
    uint64_t size, align;
    assert_true(debuginfo_tls_block(s.di, &size, &align));
    if (!elf_image_is_static(debuginfo_elf(s.di))) { /* static: libc's TLS is in the block too */
        assert_int_equal(align, 8);
        assert_int_equal(size, 24); /* tls_pair 8 + tls_hidden 8 + tls_counter 4, rounded to 8 */
    }

    const uint64_t block = 0x7ff000;
    static const struct { const char *expr, *name, *type; } tls[] = {
        { "tls_counter", "tls_counter", "int" },
        { "tls_pair.b", "tls_pair.b", "int" },
        { "tls_hidden", "tls_hidden", "long" },
    };
    for (size_t i = 0; i < sizeof tls / sizeof tls[0]; i++) {
        uint64_t addr;
        const struct dwarf_type *type;
        char err[128], buf[64], tname[64];
        if (!debuginfo_eval_thread(s.di, tls[i].expr, &s.rd, block, &addr, &type, err, sizeof err))
            fail_msg("%s: %s", tls[i].expr, err);
        assert_true(addr >= block && addr < block + size);
        assert_true(debuginfo_name_tls(s.di, addr - block, buf, sizeof buf, &type));
        assert_string_equal(buf, tls[i].name);
        dwarf_type_name(type, tname, sizeof tname);
        assert_string_equal(tname, tls[i].type);
    }
    char buf[64];
    const struct dwarf_type *type;
    uint64_t pair;
    char err[128];
    assert_true(debuginfo_eval_thread(s.di, "tls_pair", &s.rd, block, &pair, NULL, err, sizeof err));
    assert_true(debuginfo_name_tls(s.di, pair - block + 1, buf, sizeof buf, &type));
    assert_string_equal(buf, "tls_pair+1");
    assert_null(type);
    assert_false(debuginfo_name_tls(s.di, size + 64, buf, sizeof buf, &type));
    assert_string_equal(buf, "");
    debuginfo_free(s.di);
}

/* ---- inlined code ---- */

static void check_inlined(const char *variant)
{
    debuginfo *di = load_data_fixture(variant);
    const struct elf_symbol *worker = elf_image_function_at(debuginfo_elf(di), symbol_addr(di, "worker"));
    assert_non_null(worker);
    unsigned helper_line = marker_line("helper-body"), worker_line = marker_line("worker-body");
    bool saw_inlined = false, saw_worker = false;
    for (uint64_t addr = worker->addr; addr < worker->addr + worker->size; addr++) {
        struct src_loc loc;
        if (!debuginfo_code_location(di, addr, &loc))
            continue;
        char buf[128], expected[128];
        debuginfo_format_code(di, addr, buf, sizeof buf);
        if (loc.inlined_into) {
            assert_string_equal(loc.function, "helper");
            assert_string_equal(loc.inlined_into, "worker");
            if (loc.line == helper_line) {
                snprintf(expected, sizeof expected, "data_fixture.c:%u helper (inlined into worker)",
                         helper_line);
                assert_string_equal(buf, expected);
                saw_inlined = true;
            }
        } else {
            assert_string_equal(loc.function, "worker");
            if (loc.line == worker_line) {
                snprintf(expected, sizeof expected, "data_fixture.c:%u worker", worker_line);
                assert_string_equal(buf, expected);
                saw_worker = true;
            }
        }
    }
    assert_true(saw_inlined);
    assert_true(saw_worker);
    debuginfo_free(di);
}

/* ---- the running fixture: real thread pointers and real memory ---- */

struct live {
    pid_t pid;
    int mem_fd;
    uint64_t tp[3];
    struct { int thread; char name[32]; long offset; } tls[8];
    size_t tls_count;
    uint64_t queue;
};

/* Runs the fixture with mode ("tls" or "stop") and reads what it prints.
 * In "stop" mode it is left stopped, its memory open. */
static void run_fixture(const char *variant, const char *mode, struct live *live)
{
    char path[4096];
    assert_true(fixture_path(variant, path, sizeof path));
    memset(live, 0, sizeof *live);
    live->mem_fd = -1;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    live->pid = fork();
    assert_true(live->pid >= 0);
    if (live->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(path, path, mode, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *out = fdopen(fds[0], "r");
    char line[256];
    while (fgets(line, sizeof line, out)) {
        int thread;
        long offset;
        char name[32];
        unsigned long value;
        if (sscanf(line, "thread %d tp 0x%lx", &thread, &value) == 2 && thread >= 1 && thread <= 2)
            live->tp[thread] = value;
        else if (sscanf(line, "tls %d %31s %ld", &thread, name, &offset) == 3 && live->tls_count < 8) {
            live->tls[live->tls_count].thread = thread;
            live->tls[live->tls_count].offset = offset;
            snprintf(live->tls[live->tls_count++].name, 32, "%s", name);
        } else if (sscanf(line, "queue 0x%lx", &value) == 1) {
            live->queue = value;
            break;
        }
    }
    fclose(out);
    int status;
    if (strcmp(mode, "stop") == 0) {
        assert_int_equal(waitpid(live->pid, &status, WUNTRACED), live->pid);
        assert_true(WIFSTOPPED(status));
        char mem[64];
        snprintf(mem, sizeof mem, "/proc/%d/mem", (int)live->pid);
        live->mem_fd = open(mem, O_RDONLY);
        assert_true(live->mem_fd >= 0);
    } else {
        assert_int_equal(waitpid(live->pid, &status, 0), live->pid);
        assert_true(WIFEXITED(status));
    }
}

static void end_fixture(struct live *live)
{
    if (live->mem_fd < 0)
        return;
    close(live->mem_fd);
    kill(live->pid, SIGKILL);
    waitpid(live->pid, NULL, 0);
}

static bool proc_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const struct live *live = ctx;
    return pread(live->mem_fd, buf, n, (off_t)addr) == (ssize_t)n;
}

/* What the program itself says about &tls_var - thread pointer must be what
 * debuginfo computes: block = tp - size, offset in block = DWARF's offset. */
static void check_live_tls(const char *variant)
{
    debuginfo *di = load_data_fixture(variant);
    struct live live;
    run_fixture(variant, "tls", &live);
    assert_int_equal(live.tls_count, 6);
    uint64_t size, align;
    assert_true(debuginfo_tls_block(di, &size, &align));
    for (size_t i = 0; i < live.tls_count; i++) {
        uint64_t tp = live.tp[live.tls[i].thread];
        assert_true(tp != 0);
        uint64_t real = tp + (uint64_t)live.tls[i].offset, addr;
        char buf[64], err[128];
        /* the variable's first byte: the variable, or its first member */
        assert_true(debuginfo_name_tls(di, real - (tp - size), buf, sizeof buf, NULL));
        size_t n = strlen(live.tls[i].name);
        if (strncmp(buf, live.tls[i].name, n) != 0 || (buf[n] && buf[n] != '.'))
            fail_msg("%s: %s at tp%+ld is named %s", variant, live.tls[i].name, live.tls[i].offset, buf);
        assert_true(debuginfo_eval_thread(di, live.tls[i].name, NULL, tp - size, &addr, NULL, err, sizeof err));
        assert_int_equal(addr, real);
    }
    debuginfo_free(di);
}

static void check_live_memory(const char *variant)
{
    debuginfo *di = load_data_fixture(variant);
    struct live live;
    run_fixture(variant, "stop", &live);
    uint64_t bias = live.queue - symbol_addr(di, "queue");
    struct data_reader rd = { proc_read, &live, bias };
    char buf[256], err[128];
    uint64_t addr;
    const struct dwarf_type *type;

    /* q points at queue: the variable's own name wins over the pointer's */
    assert_true(debuginfo_eval(di, "q->buf[3]", &rd, &addr, &type, err, sizeof err));
    assert_int_equal(addr, live.queue + offsetof(struct queue, buf) + 12);
    assert_true(debuginfo_name_data(di, addr, &rd, buf, sizeof buf, NULL));
    assert_string_equal(buf, "queue.buf[3]");
    debuginfo_format_value(di, type, addr, &rd, buf, sizeof buf);
    assert_string_equal(buf, "40");

    assert_true(debuginfo_eval(di, "list_head->next->next->value", &rd, &addr, &type, err, sizeof err));
    assert_true(debuginfo_name_data(di, addr, &rd, buf, sizeof buf, NULL));
    assert_string_equal(buf, "nodes[2].value");
    assert_true(debuginfo_eval(di, "greeting", &rd, &addr, &type, err, sizeof err));
    debuginfo_format_value(di, type, addr, &rd, buf, sizeof buf);
    assert_non_null(strstr(buf, " \"hello\""));
    assert_true(debuginfo_eval(di, "counter", &rd, &addr, &type, err, sizeof err));
    debuginfo_format_value(di, type, addr, &rd, buf, sizeof buf);
    assert_string_equal(buf, "9"); /* 3, then worker(argc = 2) added 6 */

    /* the main thread's TLS, through its real thread pointer */
    uint64_t size, align;
    assert_true(debuginfo_tls_block(di, &size, &align));
    assert_true(debuginfo_eval_thread(di, "tls_pair", &rd, live.tp[1] - size, &addr, &type, err, sizeof err));
    debuginfo_format_value(di, type, addr, &rd, buf, sizeof buf);
    assert_string_equal(buf, "{a = 't', b = 9}");
    end_fixture(&live);
    debuginfo_free(di);
}

/* ---- one cmocka test per check, each over every variant ---- */

static void for_each_variant(void (*check)(const char *))
{
    size_t ran = 0;
    for (size_t i = 0; i < VARIANT_COUNT; i++) {
        char path[4096];
        if (!fixture_path(variants[i], path, sizeof path) && is_clang(variants[i]))
            continue; /* clang was not found when the build was configured */
        check(variants[i]);
        ran++;
    }
    assert_true(ran >= 6);
}

static void test_names(void **state) { for_each_variant(check_names); }
static void test_types_and_values(void **state) { for_each_variant(check_types_and_values); }
static void test_eval(void **state) { for_each_variant(check_eval); }
static void test_values(void **state) { for_each_variant(check_values); }
static void test_sync_globals(void **state) { for_each_variant(check_sync_globals); }
static void test_tls_names(void **state) { for_each_variant(check_tls_names); }
static void test_inlined(void **state) { for_each_variant(check_inlined); }
static void test_live_tls(void **state) { for_each_variant(check_live_tls); }
static void test_live_memory(void **state) { for_each_variant(check_live_memory); }

static void test_no_dwarf(void **state)
{
    char path[4096], err[256], buf[64];
    fixture_path("debug_fixture_stripped", path, sizeof path);
    debuginfo *di = debuginfo_load(path, err, sizeof err);
    assert_non_null(di);
    const struct sync_global *list;
    assert_int_equal(debuginfo_sync_globals(di, &list), 0);
    uint64_t addr;
    assert_false(debuginfo_eval(di, "counter", NULL, &addr, NULL, err, sizeof err));
    assert_string_equal(err, "the program has no debug information (compile it with -g)");
    assert_false(debuginfo_name_tls(di, 0, buf, sizeof buf, NULL));
    assert_false(debuginfo_name_data(di, 0x404000, NULL, buf, sizeof buf, NULL));
    debuginfo_free(di);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_types_and_values),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_sync_globals),
        cmocka_unit_test(test_sync_globals_cxx),
        cmocka_unit_test(test_tls_names),
        cmocka_unit_test(test_inlined),
        cmocka_unit_test(test_live_tls),
        cmocka_unit_test(test_live_memory),
        cmocka_unit_test(test_no_dwarf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
