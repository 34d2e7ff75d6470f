/* value_format: typed bytes -> C-like text. */
#include "supervisor/debuginfo/value_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/cxx_values.h"
#include "supervisor/debuginfo/text_out.h"

enum {
    ARRAY_ELEMENT_LIMIT = 16,   /* elements shown before "..." */
    STRING_LIMIT = 64,          /* characters of a string shown before "..." */
    READ_LIMIT = 4096,          /* bytes of an object read for formatting */
    NESTING_LIMIT = 8,
};

struct formatter {
    struct text_out *out;
    const struct data_reader *rd;   /* NULL: do not follow char pointers */
};

static uint64_t load_unsigned(const uint8_t *bytes, size_t n)
{
    uint64_t value = 0;
    for (size_t i = n < 8 ? n : 8; i-- > 0;)
        value = value << 8 | bytes[i];
    return value;
}

static int64_t sign_extend(uint64_t value, unsigned bits)
{
    if (bits == 0 || bits >= 64)
        return (int64_t)value;
    uint64_t sign = (uint64_t)1 << (bits - 1);
    value &= (sign << 1) - 1;
    return (int64_t)((value ^ sign) - sign);
}

static bool is_char_type(const struct dwarf_type *t)
{
    t = dwarf_type_strip(t);
    return t && t->kind == DWARF_TYPE_BASE && t->size == 1 &&
           (t->encoding == DWARF_ENC_SIGNED_CHAR || t->encoding == DWARF_ENC_UNSIGNED_CHAR);
}

/* One character as it would appear between quotes in C source. */
static void put_char_escaped(struct text_out *out, unsigned char c, char quote)
{
    switch (c) {
    case '\n': text_out_puts(out, "\\n"); return;
    case '\t': text_out_puts(out, "\\t"); return;
    case '\r': text_out_puts(out, "\\r"); return;
    case '\0': text_out_puts(out, "\\0"); return;
    case '\\': text_out_puts(out, "\\\\"); return;
    default: break;
    }
    if (c == (unsigned char)quote)
        text_out_printf(out, "\\%c", quote);
    else if (c >= 0x20 && c < 0x7f)
        text_out_putc(out, (char)c);
    else
        text_out_printf(out, "\\x%02x", c);
}

/* Characters up to a NUL or max, quoted; "..." inside the quotes when the
 * string goes on past what is shown. */
static void put_string(struct text_out *out, const uint8_t *chars, size_t n, bool more)
{
    text_out_putc(out, '"');
    size_t i = 0;
    for (; i < n && chars[i] && i < STRING_LIMIT; i++)
        put_char_escaped(out, chars[i], '"');
    if ((i == n && more) || (i < n && chars[i] && i == STRING_LIMIT))
        text_out_puts(out, "...");
    text_out_putc(out, '"');
}

/* The shortest text that reads back as the same floating-point value. */
static void put_float(struct text_out *out, const uint8_t *bytes, size_t size)
{
    char text[64];
    if (size == 4) {
        float f;
        memcpy(&f, bytes, 4);
        for (int precision = 1; precision <= 9; precision++) {
            snprintf(text, sizeof text, "%.*g", precision, (double)f);
            if (strtof(text, NULL) == f)
                break;
        }
    } else if (size == 8) {
        double d;
        memcpy(&d, bytes, 8);
        for (int precision = 1; precision <= 17; precision++) {
            snprintf(text, sizeof text, "%.*g", precision, d);
            if (strtod(text, NULL) == d)
                break;
        }
    } else if (size == 16 || size == 10) {
        long double ld = 0; /* x87 extended: 10 significant bytes, padded to 16 */
        memcpy(&ld, bytes, 10);
        for (int precision = 1; precision <= 21; precision++) {
            snprintf(text, sizeof text, "%.*Lg", precision, ld);
            if (strtold(text, NULL) == ld)
                break;
        }
    } else {
        snprintf(text, sizeof text, "?");
    }
    text_out_puts(out, text);
}

static void put_integer(struct text_out *out, uint64_t value, size_t size, bool is_signed)
{
    if (is_signed)
        text_out_printf(out, "%" PRId64, sign_extend(value, (unsigned)(size * 8)));
    else
        text_out_printf(out, "%" PRIu64, value);
}

static void put_base(struct text_out *out, const struct dwarf_type *t, const uint8_t *bytes)
{
    size_t size = (size_t)t->size;
    uint64_t value = load_unsigned(bytes, size);
    switch (t->encoding) {
    case DWARF_ENC_BOOL:
        if (value <= 1)
            text_out_puts(out, value ? "true" : "false");
        else
            put_integer(out, value, size, false);
        return;
    case DWARF_ENC_SIGNED_CHAR:
    case DWARF_ENC_UNSIGNED_CHAR:
        if (size == 1) {
            text_out_putc(out, '\'');
            put_char_escaped(out, (unsigned char)value, '\'');
            text_out_putc(out, '\'');
        } else {
            put_integer(out, value, size, t->encoding == DWARF_ENC_SIGNED_CHAR);
        }
        return;
    case DWARF_ENC_FLOAT:
        put_float(out, bytes, size);
        return;
    case DWARF_ENC_SIGNED:
    case DWARF_ENC_UNSIGNED:
        if (size <= 8) {
            put_integer(out, value, size, t->encoding == DWARF_ENC_SIGNED);
            return;
        }
        break;
    default:
        break;
    }
    text_out_puts(out, "0x"); /* no C spelling: the bytes, most significant first */
    for (size_t i = size; i-- > 0;)
        text_out_printf(out, "%02x", bytes[i]);
}

static void put_enum(struct text_out *out, const struct dwarf_type *t, const uint8_t *bytes)
{
    size_t size = (size_t)t->size;
    uint64_t value = load_unsigned(bytes, size);
    uint64_t mask = size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (size * 8)) - 1;
    for (size_t i = 0; i < t->enumerator_count; i++) {
        if (((uint64_t)t->enumerators[i].value & mask) == (value & mask)) {
            text_out_puts(out, t->enumerators[i].name ? t->enumerators[i].name : "?");
            return;
        }
    }
    put_integer(out, value, size, t->encoding == DWARF_ENC_SIGNED);
}

static void put_pointer(struct formatter *f, const struct dwarf_type *t, const uint8_t *bytes)
{
    uint64_t value = load_unsigned(bytes, 8);
    if (value == 0) {
        text_out_puts(f->out, "NULL");
        return;
    }
    text_out_printf(f->out, "0x%" PRIx64, value);
    if (!f->rd || !is_char_type(t->target))
        return;
    /* Read the string in small pieces: it may end just before unmapped memory. */
    uint8_t chars[STRING_LIMIT + 1];
    size_t got = 0;
    while (got < sizeof chars) {
        size_t piece = sizeof chars - got < 16 ? sizeof chars - got : 16;
        if (!f->rd->read(f->rd->ctx, value + got, chars + got, piece))
            break;
        got += piece;
        if (memchr(chars + got - piece, 0, piece))
            break;
    }
    if (got == 0)
        return;
    text_out_putc(f->out, ' ');
    put_string(f->out, chars, got, got == sizeof chars && !memchr(chars, 0, got));
}

static void put_value(struct formatter *f, const struct dwarf_type *t, const uint8_t *bytes, size_t n,
                      int depth);

static void put_array(struct formatter *f, const struct dwarf_type *t, const uint8_t *bytes, size_t n,
                      int depth)
{
    size_t element_size = dwarf_type_size(t->target);
    if (!t->count_known || element_size == 0) {
        text_out_puts(f->out, "{...}");
        return;
    }
    if (is_char_type(t->target)) {
        size_t shown = n < t->count ? n : (size_t)t->count;
        put_string(f->out, bytes, shown, shown < t->count);
        return;
    }
    text_out_putc(f->out, '{');
    for (uint64_t i = 0; i < t->count && !f->out->truncated; i++) {
        if (i > 0)
            text_out_puts(f->out, ", ");
        if (i == ARRAY_ELEMENT_LIMIT || (i + 1) * element_size > n) {
            text_out_puts(f->out, "...");
            break;
        }
        put_value(f, t->target, bytes + i * element_size, element_size, depth + 1);
    }
    text_out_putc(f->out, '}');
}

static void put_bit_field(struct text_out *out, const struct dwarf_member *m, const uint8_t *bytes,
                          size_t n)
{
    uint64_t extent = dwarf_member_extent(m);
    if (m->offset + extent > n || extent > 8) {
        text_out_puts(out, "?");
        return;
    }
    uint64_t raw = load_unsigned(bytes + m->offset, (size_t)extent) >> m->bit_offset;
    raw &= m->bit_size >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << m->bit_size) - 1;
    const struct dwarf_type *base = dwarf_type_strip(m->type);
    bool is_signed = base && (base->encoding == DWARF_ENC_SIGNED || base->encoding == DWARF_ENC_SIGNED_CHAR);
    if (base && base->kind == DWARF_TYPE_BASE && base->encoding == DWARF_ENC_BOOL && raw <= 1)
        text_out_puts(out, raw ? "true" : "false");
    else if (is_signed)
        text_out_printf(out, "%" PRId64, sign_extend(raw, m->bit_size));
    else
        text_out_printf(out, "%" PRIu64, raw);
}

/* The C++ library's atomics hold their value in one member, under a base
 * or two (std::atomic<bool> is {_M_base = {_M_i = false}}), and so do its
 * counters, std::latch (_M_a) and std::counting_semaphore ({_M_sem =
 * {_M_counter = 2}}): a person reads them as the value, "ready = false",
 * "start_line = 2". */
static bool is_atomic_wrapper(const struct dwarf_type *t)
{
    if (t->member_count != 1 || !t->name)
        return false;
    return dwarf_type_is_atomic_class(t->name) || strcmp(t->name, "latch") == 0 ||
           strncmp(t->name, "counting_semaphore<", 19) == 0 || strcmp(t->name, "__atomic_semaphore") == 0;
}

/* A pointee or element of a C++ library object, for cxx_values.c. */
struct library_part {
    struct formatter *f;
    int depth;
};

static void put_library_part(void *ctx, const struct dwarf_type *t, const uint8_t *bytes, size_t n)
{
    const struct library_part *part = ctx;
    put_value(part->f, t, bytes, n, part->depth + 1);
}

static void put_record(struct formatter *f, const struct dwarf_type *t, const uint8_t *bytes, size_t n,
                       int depth)
{
    struct library_part part = { f, depth };
    struct cxx_value_sink sink = { f->out, f->rd ? f->rd->read : NULL, f->rd ? f->rd->ctx : NULL, put_library_part,
                                   &part, f->rd ? f->rd->after_exit : NULL };
    if (cxx_value_put(t, bytes, n, &sink))
        return;
    if (is_atomic_wrapper(t) && !t->members[0].bit_size &&
        t->members[0].offset + dwarf_type_size(t->members[0].type) <= n) {
        const struct dwarf_member *m = &t->members[0];
        put_value(f, m->type, bytes + m->offset, dwarf_type_size(m->type), depth + 1);
        return;
    }
    text_out_putc(f->out, '{');
    for (size_t i = 0; i < t->member_count && !f->out->truncated; i++) {
        const struct dwarf_member *m = &t->members[i];
        if (i > 0)
            text_out_puts(f->out, ", ");
        size_t size = m->bit_size ? (size_t)dwarf_member_extent(m) : dwarf_type_size(m->type);
        if (m->offset + size > n) {
            text_out_puts(f->out, "...");
            break;
        }
        if (m->name)
            text_out_printf(f->out, "%s = ", m->name);
        if (m->bit_size)
            put_bit_field(f->out, m, bytes, n);
        else
            put_value(f, m->type, bytes + m->offset, size, depth + 1);
    }
    text_out_putc(f->out, '}');
}

static void put_value(struct formatter *f, const struct dwarf_type *declared, const uint8_t *bytes,
                      size_t n, int depth)
{
    const struct dwarf_type *t = dwarf_type_strip(declared);
    if (!t || depth > NESTING_LIMIT) {
        text_out_puts(f->out, "...");
        return;
    }
    bool aggregate = t->kind == DWARF_TYPE_ARRAY || dwarf_type_is_record(t);
    if (cxx_value_size(t) == 0 || (!aggregate && n < t->size)) {
        text_out_puts(f->out, "?");
        return;
    }
    switch (t->kind) {
    case DWARF_TYPE_BASE: put_base(f->out, t, bytes); break;
    case DWARF_TYPE_ENUM: put_enum(f->out, t, bytes); break;
    case DWARF_TYPE_POINTER: put_pointer(f, t, bytes); break;
    case DWARF_TYPE_ARRAY: put_array(f, t, bytes, n, depth); break;
    case DWARF_TYPE_STRUCT:
    case DWARF_TYPE_UNION:
    case DWARF_TYPE_CLASS: put_record(f, t, bytes, n, depth); break;
    default: text_out_puts(f->out, "?"); break;
    }
}

void dwarf_format_bytes(const struct dwarf_type *t, const void *bytes, size_t n, char *buf, size_t len)
{
    struct text_out out = text_out_start(buf, len);
    struct formatter f = { &out, NULL };
    put_value(&f, t, bytes, n, 0);
    text_out_finish(&out);
}

void value_format_at(const struct dwarf_type *t, uint64_t addr, const struct data_reader *rd,
                     char *buf, size_t len)
{
    struct text_out out = text_out_start(buf, len);
    size_t size = cxx_value_size(t);
    size_t n = size < READ_LIMIT ? size : READ_LIMIT;
    uint8_t *bytes = n ? malloc(n) : NULL;
    if (!bytes || !rd || !rd->read || !rd->read(rd->ctx, addr, bytes, n)) {
        text_out_puts(&out, n ? "<unreadable>" : "?");
    } else {
        struct formatter f = { &out, rd };
        put_value(&f, t, bytes, n, 0);
    }
    free(bytes);
    text_out_finish(&out);
}
