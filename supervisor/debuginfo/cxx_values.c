/* cxx_values: std::unique_ptr, std::shared_ptr, std::string and
 * std::vector read as values (libstdc++'s layout, gcc and clang alike). */
#include "supervisor/debuginfo/cxx_values.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


enum {
    ELEMENT_LIMIT = 16,     /* a vector's elements shown before "..." */
    CHAR_LIMIT = 64,        /* a string's characters shown before "..." */
    ELEMENT_BYTES_LIMIT = 512,
    SEARCH_DEPTH = 10,      /* members and bases walked to the pointer a class holds */
};

/* libstdc++'s _Sp_counted_base: a vtable pointer, then _M_use_count. */
enum { USE_COUNT_OFFSET = 8 };

enum cxx_class { CXX_OTHER, CXX_UNIQUE_PTR, CXX_SHARED_PTR, CXX_STRING, CXX_VECTOR, CXX_FUTURE, CXX_STOP };

/* libstdc++'s __atomic_futex_unsigned keeps a waiter bit above the value;
 * a shared state's _Status is __not_ready (0) or __ready (1). */
enum { FUTEX_WAITER_BIT = 0x80000000u, STATUS_READY = 1, STOP_REQUESTED_BIT = 1 };

static enum cxx_class class_of(const struct dwarf_type *t)
{
    static const struct { const char *prefix; enum cxx_class cls; } classes[] = {
        { "unique_ptr<", CXX_UNIQUE_PTR }, { "shared_ptr<", CXX_SHARED_PTR },
        { "basic_string<char,", CXX_STRING }, { "basic_string<char>", CXX_STRING },
        { "vector<", CXX_VECTOR },
        { "future<", CXX_FUTURE }, { "shared_future<", CXX_FUTURE }, { "promise<", CXX_FUTURE },
        { "stop_token", CXX_STOP }, { "stop_source", CXX_STOP }, { "jthread", CXX_STOP },
    };
    if (!t->name)
        return CXX_OTHER;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (strncmp(t->name, classes[i].prefix, strlen(classes[i].prefix)) == 0)
            return classes[i].cls;
    return CXX_OTHER;
}

/* The type of the pointer member at byte offset of an object of type t,
 * found through members and base classes (a unique_ptr's is five classes
 * down: __uniq_ptr_data, __uniq_ptr_impl, tuple, _Tuple_impl, _Head_base). */
static const struct dwarf_type *pointer_at(const struct dwarf_type *t, uint64_t offset, int depth)
{
    t = dwarf_type_strip(t);
    if (!t || depth > SEARCH_DEPTH)
        return NULL;
    if (t->kind == DWARF_TYPE_POINTER)
        return offset == 0 ? t : NULL;
    if (!dwarf_type_is_record(t))
        return NULL;
    for (size_t i = 0; i < t->member_count; i++) {
        const struct dwarf_member *m = &t->members[i];
        uint64_t size = dwarf_type_size(m->type);
        if (m->bit_size || offset < m->offset || (size && offset >= m->offset + size))
            continue;
        const struct dwarf_type *found = pointer_at(m->type, offset - m->offset, depth + 1);
        if (found)
            return found;
    }
    return NULL;
}

static uint64_t word_at(const uint8_t *bytes, size_t n, uint64_t offset)
{
    uint64_t v = 0;
    if (offset + sizeof v <= n)
        memcpy(&v, bytes + offset, sizeof v);
    return v;
}

/* What a pointer of type ptr points to, read through the reader: false
 * when it cannot be read (then nothing is written). */
static bool put_pointee(const struct cxx_value_sink *sink, const struct dwarf_type *ptr, uint64_t addr)
{
    const struct dwarf_type *pointee = ptr ? ptr->target : NULL;
    size_t size = pointee ? dwarf_type_size(pointee) : 0;
    if (!sink->read || !size || size > ELEMENT_BYTES_LIMIT)
        return false;
    uint8_t *bytes = malloc(size);
    bool ok = bytes && sink->read(sink->read_ctx, addr, bytes, size);
    if (ok)
        sink->put(sink->ctx, pointee, bytes, size);
    free(bytes);
    return ok;
}

static void put_handle(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink,
                       bool shared)
{
    uint64_t p = word_at(bytes, n, 0);
    if (!p) {
        text_out_puts(sink->out, "nullptr");
        return;
    }
    text_out_puts(sink->out, "points to ");
    if (!put_pointee(sink, pointer_at(t, 0, 0), p))
        text_out_printf(sink->out, "0x%" PRIx64, p);
    uint64_t control = shared ? word_at(bytes, n, 8) : 0;
    int32_t uses;
    if (control && sink->read &&
        sink->read(sink->read_ctx, control + USE_COUNT_OFFSET, &uses, sizeof uses))
        text_out_printf(sink->out, ", use_count %d", uses);
}

/* _M_dataplus._M_p, then _M_string_length. */
static void put_std_string(const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink)
{
    uint64_t data = word_at(bytes, n, 0), length = word_at(bytes, n, 8);
    size_t shown = length < CHAR_LIMIT ? (size_t)length : CHAR_LIMIT;
    char chars[CHAR_LIMIT];
    if (!sink->read || (shown && !sink->read(sink->read_ctx, data, chars, shown))) {
        text_out_printf(sink->out, "size %" PRIu64, length);
        return;
    }
    text_out_putc(sink->out, '"');
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)chars[i];
        if (c == '"' || c == '\\')
            text_out_printf(sink->out, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            text_out_putc(sink->out, (char)c);
        else
            text_out_printf(sink->out, "\\x%02x", c);
    }
    text_out_puts(sink->out, shown < length ? "...\"" : "\"");
}

/* _M_start, _M_finish (and _M_end_of_storage): the elements between. */
static void put_vector(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink)
{
    const struct dwarf_type *ptr = pointer_at(t, 0, 0);
    size_t size = ptr && ptr->target ? dwarf_type_size(ptr->target) : 0;
    uint64_t start = word_at(bytes, n, 0), finish = word_at(bytes, n, 8);
    if (!size || finish < start) {
        text_out_puts(sink->out, "?");
        return;
    }
    uint64_t count = (finish - start) / size;
    text_out_printf(sink->out, "size %" PRIu64, count);
    if (!count || !sink->read || size > ELEMENT_BYTES_LIMIT)
        return;
    text_out_puts(sink->out, " {");
    uint8_t element[ELEMENT_BYTES_LIMIT];
    for (uint64_t i = 0; i < count && !sink->out->truncated; i++) {
        if (i == ELEMENT_LIMIT) {
            text_out_puts(sink->out, ", ...");
            break;
        }
        if (i > 0)
            text_out_puts(sink->out, ", ");
        if (sink->read(sink->read_ctx, start + i * size, element, size))
            sink->put(sink->ctx, ptr->target, element, size);
        else
            text_out_puts(sink->out, "?");
    }
    text_out_putc(sink->out, '}');
}

size_t cxx_value_size(const struct dwarf_type *t)
{
    size_t size = dwarf_type_size(t);
    const struct dwarf_type *s = dwarf_type_strip(t);
    if (size || !s || !dwarf_type_is_record(s))
        return size;
    /* _M_dataplus, _M_string_length, a 16-byte local buffer. */
    return class_of(s) == CXX_STRING ? 32 : 0;
}

/* The 32-bit member called name of the record the pointer of type ptr
 * points to (at addr), through the reader. */
static bool read_pointee_u32(const struct cxx_value_sink *sink, const struct dwarf_type *ptr, uint64_t addr,
                             const char *name, uint32_t *value)
{
    const struct dwarf_type *target = ptr ? dwarf_type_strip(ptr->target) : NULL;
    uint64_t offset;
    const struct dwarf_member *m = target ? dwarf_type_find_member(target, name, &offset) : NULL;
    return m && sink->read && sink->read(sink->read_ctx, addr + offset, value, sizeof *value);
}

/* A scalar a future can hold, by the name its template argument has in
 * the future's type name (gcc spells "long int", clang "long"). */
struct future_scalar {
    const char *name;
    unsigned size;
    enum { FS_SIGNED, FS_UNSIGNED, FS_BOOL, FS_FLOAT } how;
};

static const struct future_scalar *future_scalar_of(const char *type_name)
{
    static const struct future_scalar scalars[] = {
        { "int", 4, FS_SIGNED }, { "unsigned int", 4, FS_UNSIGNED }, { "unsigned", 4, FS_UNSIGNED },
        { "long", 8, FS_SIGNED }, { "long int", 8, FS_SIGNED }, { "unsigned long", 8, FS_UNSIGNED },
        { "long unsigned int", 8, FS_UNSIGNED }, { "long long", 8, FS_SIGNED }, { "long long int", 8, FS_SIGNED },
        { "unsigned long long", 8, FS_UNSIGNED }, { "long long unsigned int", 8, FS_UNSIGNED },
        { "short", 2, FS_SIGNED }, { "short int", 2, FS_SIGNED }, { "unsigned short", 2, FS_UNSIGNED },
        { "short unsigned int", 2, FS_UNSIGNED }, { "char", 1, FS_SIGNED }, { "signed char", 1, FS_SIGNED },
        { "unsigned char", 1, FS_UNSIGNED }, { "bool", 1, FS_BOOL }, { "double", 8, FS_FLOAT },
        { "float", 4, FS_FLOAT },
    };
    const char *open = type_name ? strchr(type_name, '<') : NULL;
    const char *close = open ? strrchr(open, '>') : NULL;
    if (!close)
        return NULL;
    size_t len = (size_t)(close - open - 1);
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (strlen(scalars[i].name) == len && strncmp(open + 1, scalars[i].name, len) == 0)
            return &scalars[i];
    return NULL;
}

/* libstdc++'s _Result<T>: a _Result_base (vtable pointer, exception_ptr
 * _M_error), then T's storage, then bool _M_initialized; scalars align to
 * at most 8, so the storage is at 16. */
enum { RESULT_ERROR_OFFSET = 8, RESULT_STORAGE_OFFSET = 16 };

/* ", value 42" or ", exception" for the result the shared state at state
 * (its pointer type ptr) holds; nothing when it cannot be told. */
static void put_future_result(const struct dwarf_type *t, const struct dwarf_type *ptr, uint64_t state,
                              const struct cxx_value_sink *sink)
{
    const struct future_scalar *scalar = future_scalar_of(t->name);
    const struct dwarf_type *target = ptr ? dwarf_type_strip(ptr->target) : NULL;
    uint64_t offset, result;
    if (!scalar || !target || !dwarf_type_find_member(target, "_M_result", &offset) ||
        !sink->read(sink->read_ctx, state + offset, &result, sizeof result) || !result)
        return;
    uint8_t bytes[RESULT_STORAGE_OFFSET + 8 + 1];
    size_t n = RESULT_STORAGE_OFFSET + scalar->size + 1;
    if (!sink->read(sink->read_ctx, result, bytes, n))
        return;
    if (word_at(bytes, n, RESULT_ERROR_OFFSET)) {
        text_out_puts(sink->out, ", exception");
        return;
    }
    if (!bytes[RESULT_STORAGE_OFFSET + scalar->size])
        return;     /* not initialized: no value (yet) */
    uint64_t raw = 0;
    memcpy(&raw, bytes + RESULT_STORAGE_OFFSET, scalar->size);
    switch (scalar->how) {
    case FS_SIGNED: {
        unsigned shift = 64 - 8 * scalar->size;
        text_out_printf(sink->out, ", value %" PRId64, (int64_t)(raw << shift) >> shift);
        break;
    }
    case FS_UNSIGNED:
        text_out_printf(sink->out, ", value %" PRIu64, raw);
        break;
    case FS_BOOL:
        text_out_puts(sink->out, raw ? ", value true" : ", value false");
        break;
    case FS_FLOAT: {
        double d;
        if (scalar->size == 4) {
            float f;
            memcpy(&f, &raw, sizeof f);
            d = f;
        } else {
            memcpy(&d, &raw, sizeof d);
        }
        text_out_printf(sink->out, ", value %g", d);
        break;
    }
    }
}

/* A future, shared_future or promise: whether its shared state holds a
 * result yet (the state's _M_status), and the result when it is a scalar
 * ("ready, value 42"). */
static void put_future(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink)
{
    uint64_t state = word_at(bytes, n, 0);
    const struct dwarf_type *ptr = pointer_at(t, 0, 0);
    uint32_t status;
    if (!state)
        text_out_puts(sink->out, "no shared state");
    else if (!read_pointee_u32(sink, ptr, state, "_M_status", &status))
        text_out_printf(sink->out, "shared state 0x%" PRIx64, state);     /* bytes in hand only */
    else if ((status & ~FUTEX_WAITER_BIT) != STATUS_READY)
        text_out_puts(sink->out, "not ready");
    else {
        text_out_puts(sink->out, "ready");
        put_future_result(dwarf_type_strip(t), ptr, state, sink);
    }
}

/* A stop_token, stop_source or jthread: whether a stop was requested (bit
 * 0 of its stop state's _M_value). */
static void put_stop(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink)
{
    uint64_t state = word_at(bytes, n, 0);
    uint32_t value;
    if (!state)
        text_out_puts(sink->out, "no stop state");
    else if (!read_pointee_u32(sink, pointer_at(t, 0, 0), state, "_M_value", &value))
        text_out_printf(sink->out, "stop state 0x%" PRIx64, state);       /* bytes in hand only */
    else
        text_out_puts(sink->out, value & STOP_REQUESTED_BIT ? "stop requested" : "stop not requested");
}

/* Each of these classes holds what it points to at its start (a
 * shared_ptr its control block next). Once exit() has run its
 * destructor, that memory is free and holds what the allocator left
 * (`use_count -896324164`): the worse of what is known of the two. */
static enum after_exit held_after_exit(enum cxx_class cls, const uint8_t *bytes, size_t n,
                                       const struct cxx_value_sink *sink)
{
    if (!sink->after_exit)
        return AFTER_EXIT_INTACT;
    uint64_t held[2] = {word_at(bytes, n, 0), cls == CXX_SHARED_PTR ? word_at(bytes, n, 8) : 0};
    enum after_exit worst = AFTER_EXIT_INTACT;
    for (int i = 0; i < 2; i++) {
        enum after_exit e = held[i] ? sink->after_exit(sink->read_ctx, held[i]) : AFTER_EXIT_INTACT;
        if (e == AFTER_EXIT_FREED || (e == AFTER_EXIT_UNKNOWN && worst == AFTER_EXIT_INTACT))
            worst = e;
    }
    return worst;
}

bool cxx_value_put(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink)
{
    enum cxx_class cls = class_of(t);
    switch (cls == CXX_OTHER ? AFTER_EXIT_INTACT : held_after_exit(cls, bytes, n, sink)) {
    case AFTER_EXIT_FREED:
        text_out_puts(sink->out, "destroyed (exit() freed what it held)");
        return true;
    case AFTER_EXIT_UNKNOWN:
        text_out_puts(sink->out, "not read after exit() (may be freed)");
        return true;
    case AFTER_EXIT_INTACT:
        break;
    }
    switch (cls) {
    case CXX_UNIQUE_PTR:
        put_handle(t, bytes, n, sink, false);
        return true;
    case CXX_SHARED_PTR:
        put_handle(t, bytes, n, sink, true);
        return true;
    case CXX_STRING:
        put_std_string(bytes, n, sink);
        return true;
    case CXX_VECTOR:
        put_vector(t, bytes, n, sink);
        return true;
    case CXX_FUTURE:
        put_future(t, bytes, n, sink);
        return true;
    case CXX_STOP:
        put_stop(t, bytes, n, sink);
        return true;
    default:
        return false;
    }
}
