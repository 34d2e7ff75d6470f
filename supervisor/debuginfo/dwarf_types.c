/* dwarf_types: sizes, C names and member lookup over the type model. */
#include "supervisor/debuginfo/dwarf_types.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/debuginfo/text_out.h"

/* Guards every walk down a chain of types: well-formed DWARF never nests
 * this deep, broken DWARF must not loop. */
enum { TYPE_CHAIN_LIMIT = 64 };

static bool is_qualifier(enum dwarf_type_kind kind)
{
    return kind == DWARF_TYPE_CONST || kind == DWARF_TYPE_VOLATILE ||
           kind == DWARF_TYPE_RESTRICT || kind == DWARF_TYPE_ATOMIC;
}

const struct dwarf_type *dwarf_type_strip(const struct dwarf_type *t)
{
    for (int hop = 0; t && hop < TYPE_CHAIN_LIMIT; hop++) {
        if (t->kind != DWARF_TYPE_TYPEDEF && !is_qualifier(t->kind))
            return t;
        t = t->target;
    }
    return t;
}

size_t dwarf_type_size(const struct dwarf_type *t) { return t ? (size_t)t->size : 0; }

bool dwarf_type_is_record(const struct dwarf_type *t)
{
    t = dwarf_type_strip(t);
    return t && (t->kind == DWARF_TYPE_STRUCT || t->kind == DWARF_TYPE_UNION ||
                 t->kind == DWARF_TYPE_CLASS);
}

uint64_t dwarf_member_extent(const struct dwarf_member *m)
{
    if (m->bit_size)
        return ((uint64_t)m->bit_offset + m->bit_size + 7) / 8;
    return dwarf_type_size(m->type);
}

static const struct dwarf_member *find_member(const struct dwarf_type *t, const char *name,
                                              uint64_t *offset, int depth)
{
    t = dwarf_type_strip(t);
    if (!dwarf_type_is_record(t) || depth > TYPE_CHAIN_LIMIT)
        return NULL;
    for (size_t i = 0; i < t->member_count; i++) {
        const struct dwarf_member *m = &t->members[i];
        if (m->name && strcmp(m->name, name) == 0) {
            *offset = m->offset;
            return m;
        }
    }
    /* C11 anonymous structs/unions and C++ base classes lend their members. */
    for (size_t i = 0; i < t->member_count; i++) {
        const struct dwarf_member *m = &t->members[i];
        uint64_t inner;
        const struct dwarf_member *found;
        if (!m->name && (found = find_member(m->type, name, &inner, depth + 1))) {
            *offset = m->offset + inner;
            return found;
        }
    }
    return NULL;
}

const struct dwarf_member *dwarf_type_find_member(const struct dwarf_type *t, const char *name,
                                                  uint64_t *offset)
{
    return find_member(t, name, offset, 0);
}

/* ---- names --------------------------------------------------------------- */

/* The declarator part of a C type name ("*", "(*)[4]", "*const"), grown at
 * both ends from the middle of a buffer as the type is walked outside in. */
struct declarator {
    char text[384];
    size_t lo, hi;
    bool overflow;
};

static void prepend(struct declarator *d, const char *s)
{
    size_t n = strlen(s);
    if (n > d->lo) {
        d->overflow = true;
        return;
    }
    d->lo -= n;
    memcpy(d->text + d->lo, s, n);
}

static void append(struct declarator *d, const char *s)
{
    size_t n = strlen(s);
    if (d->hi + n >= sizeof d->text) {
        d->overflow = true;
        return;
    }
    memcpy(d->text + d->hi, s, n);
    d->hi += n;
}

static const char *qualifier_word(enum dwarf_type_kind kind)
{
    switch (kind) {
    case DWARF_TYPE_CONST: return "const";
    case DWARF_TYPE_VOLATILE: return "volatile";
    case DWARF_TYPE_RESTRICT: return "restrict";
    default: return "_Atomic";
    }
}

static void write_type_name(struct text_out *out, const struct dwarf_type *t, int depth);

static void append_parameters(struct declarator *d, const struct dwarf_type *fn, int depth)
{
    append(d, "(");
    for (size_t i = 0; i < fn->member_count; i++) {
        char param[128];
        struct text_out out = text_out_start(param, sizeof param);
        write_type_name(&out, fn->members[i].type, depth + 1);
        if (i > 0)
            append(d, ", ");
        append(d, param);
    }
    if (fn->variadic)
        append(d, fn->member_count ? ", ..." : "...");
    else if (fn->member_count == 0)
        append(d, "void");
    append(d, ")");
}

static void write_leaf(struct text_out *out, const struct dwarf_type *t)
{
    static const char *const keyword[] = {
        [DWARF_TYPE_ENUM] = "enum", [DWARF_TYPE_STRUCT] = "struct",
        [DWARF_TYPE_UNION] = "union", [DWARF_TYPE_CLASS] = "class",
    };
    if (!t) {
        text_out_puts(out, "void");
    } else if (t->kind < sizeof keyword / sizeof keyword[0] && keyword[t->kind]) {
        text_out_printf(out, "%s %s", keyword[t->kind], t->name ? t->name : "{...}");
    } else {
        text_out_puts(out, t->name ? t->name : "?");
    }
}

/* Walks from the outermost type constructor to the leaf type, building the
 * declarator around an empty name: pointers go on the left (parenthesised
 * before an array or function suffix), array bounds and parameter lists on
 * the right, and qualifiers of a pointer stay next to its "*". */
static void write_type_name(struct text_out *out, const struct dwarf_type *t, int depth)
{
    struct declarator d = { .lo = sizeof d.text / 2, .hi = sizeof d.text / 2 };
    char leaf_qualifiers[64] = "";
    for (int hop = 0; t && hop < TYPE_CHAIN_LIMIT && depth < 8; hop++) {
        const struct dwarf_type *next = t->target;
        if (t->kind == DWARF_TYPE_POINTER) {
            prepend(&d, "*");
            if (next && (next->kind == DWARF_TYPE_ARRAY || next->kind == DWARF_TYPE_FUNCTION)) {
                prepend(&d, "(");
                append(&d, ")");
            }
        } else if (is_qualifier(t->kind)) {
            if (next && next->kind == DWARF_TYPE_POINTER) {
                prepend(&d, d.lo == d.hi ? "" : " ");
                prepend(&d, qualifier_word(t->kind));
            } else if (strlen(leaf_qualifiers) + 10 < sizeof leaf_qualifiers) {
                strcat(leaf_qualifiers, qualifier_word(t->kind));
                strcat(leaf_qualifiers, " ");
            }
        } else if (t->kind == DWARF_TYPE_ARRAY) {
            char bound[32] = "[]";
            if (t->count_known)
                snprintf(bound, sizeof bound, "[%" PRIu64 "]", t->count);
            append(&d, bound);
        } else if (t->kind == DWARF_TYPE_FUNCTION) {
            append_parameters(&d, t, depth);
        } else {
            break;
        }
        t = next;
    }
    text_out_puts(out, leaf_qualifiers);
    write_leaf(out, t);
    if (d.hi > d.lo) {
        d.text[d.hi] = '\0';
        text_out_putc(out, ' ');
        text_out_puts(out, d.text + d.lo);
    }
    if (d.overflow)
        out->truncated = true;
}

void dwarf_type_name(const struct dwarf_type *t, char *buf, size_t len)
{
    struct text_out out = text_out_start(buf, len);
    write_type_name(&out, t, 0);
    text_out_finish(&out);
}

/* The C++ library's atomic classes: std::atomic<T> and the bases and
 * helpers that hold its value (libstdc++ names, without "std::"). */
bool dwarf_type_is_atomic_class(const char *name)
{
    static const char *const prefixes[] = {"atomic<", "__atomic_base<", "__atomic_float<", "__atomic_ref<",
                                           "__atomic_impl", "atomic_flag", "__atomic_flag_base"};
    if (!name)
        return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

bool dwarf_type_atomic_at(const struct dwarf_type *t, uint64_t offset)
{
    for (int hop = 0; t && hop < TYPE_CHAIN_LIMIT; hop++) {
        switch (t->kind) {
        case DWARF_TYPE_ATOMIC:
            return true;
        case DWARF_TYPE_TYPEDEF: case DWARF_TYPE_CONST: case DWARF_TYPE_VOLATILE: case DWARF_TYPE_RESTRICT:
            t = t->target;
            break;
        case DWARF_TYPE_ARRAY: {
            uint64_t element = dwarf_type_size(t->target);
            if (element == 0)
                return false;
            offset %= element;
            t = t->target;
            break;
        }
        case DWARF_TYPE_STRUCT: case DWARF_TYPE_CLASS: case DWARF_TYPE_UNION: {
            if (dwarf_type_is_atomic_class(t->name))
                return true;
            const struct dwarf_type *inner = NULL;
            for (size_t i = 0; i < t->member_count && !inner; i++) {
                const struct dwarf_member *m = &t->members[i];
                if (offset >= m->offset && offset < m->offset + dwarf_member_extent(m)) {
                    inner = m->type;
                    offset -= m->offset;
                }
            }
            t = inner;
            break;
        }
        default:
            return false;
        }
    }
    return false;
}
