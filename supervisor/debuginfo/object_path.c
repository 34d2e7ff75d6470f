/* object_path: offset inside a typed object -> member/element path. */
#include "supervisor/debuginfo/object_path.h"

#include <inttypes.h>
#include <string.h>

enum { PATH_DEPTH_LIMIT = 32 };

/* How the next piece attaches to what is written so far. Only the first
 * piece can meet a pending dereference: "q->head", "(*pa)[2]", "*p", "(*p)+2". */
enum piece { PIECE_MEMBER, PIECE_INDEX, PIECE_OFFSET, PIECE_END };

struct path {
    struct text_out *out;
    const char *base;
    bool deref;             /* the object is *base */
    bool base_written;
};

/* Writes the base before the first piece, and the member operator before
 * every member. */
static void attach(struct path *p, enum piece piece)
{
    if (p->base_written) {
        if (piece == PIECE_MEMBER)
            text_out_putc(p->out, '.');
        return;
    }
    p->base_written = true;
    if (!p->deref) {
        text_out_puts(p->out, p->base);
        if (piece == PIECE_MEMBER)
            text_out_putc(p->out, '.');
    } else if (piece == PIECE_MEMBER) {
        text_out_printf(p->out, "%s->", p->base);
    } else if (piece == PIECE_END) {
        text_out_printf(p->out, "*%s", p->base);
    } else {
        text_out_printf(p->out, "(*%s)", p->base);
    }
}

/* C and C++ reserve "__x" and "_X" for the implementation. */
static bool is_reserved_name(const char *name)
{
    return name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

/* The C++ library's smart pointers, vectors and strings keep their state
 * in members with reserved names; a person knows those parts by what they
 * are ("name.size()", "name[3]", "slot" for the pointer a shared_ptr
 * holds). A vector's second and third words are pointers, not counts: the
 * value a step reads or writes there is an address ("v (end) := heap#6+4"),
 * which "v.size()" would misstate.
 * Named by libstdc++'s layout on x86-64, which its ABI keeps, and only
 * where the walk meets a reserved member (a class of the user's own
 * called vector keeps its members' names). */
struct library_part {
    const char *class_prefix;
    uint64_t offset, size;
    const char *suffix;     /* after the base; NULL: an index, "[i]" */
};

static const struct library_part library_parts[] = {
    {"__shared_ptr<", 0, 8, ""},
    {"__shared_ptr<", 8, 8, " (control block)"},
    {"__weak_ptr<", 0, 8, ""},
    {"__weak_ptr<", 8, 8, " (control block)"},
    {"unique_ptr<", 0, 8, ""},
    {"_Vector_base<", 0, 8, ".data()"},
    {"_Vector_base<", 8, 8, " (end)"},
    {"_Vector_base<", 16, 8, " (end of storage)"},
    {"basic_string<", 0, 8, ".data()"},
    {"basic_string<", 8, 8, ".size()"},
    {"basic_string<", 16, 16, NULL},    /* the characters of a short string, in place */
};

/* std::barrier keeps its state in a __tree_barrier (_M_b) whose members'
 * offsets depend on the completion function: its parts are named by the
 * member, "sync_point (phase)". */
static const char *barrier_part_at(const struct dwarf_type *record, const struct dwarf_member *m, uint64_t offset)
{
    static const struct { const char *member, *suffix; } parts[] = {
        {"_M_phase", " (phase)"},
        {"_M_expected", " (expected)"},
        {"_M_expected_adjustment", " (expected adjustment)"},
        {"_M_state", " (arrival tree)"},
    };
    if (!record->name || strncmp(record->name, "barrier<", 8) != 0 || !m || !m->name || strcmp(m->name, "_M_b") != 0)
        return NULL;
    const struct dwarf_type *impl = dwarf_type_strip(m->type);
    if (!dwarf_type_is_record(impl))
        return NULL;
    uint64_t at = offset - m->offset;
    for (size_t i = 0; i < impl->member_count; i++) {
        const struct dwarf_member *inner = &impl->members[i];
        if (!inner->name || at < inner->offset || at - inner->offset >= dwarf_member_extent(inner))
            continue;
        for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++)
            if (strcmp(inner->name, parts[j].member) == 0)
                return parts[j].suffix;
    }
    return NULL;
}

static const struct library_part *library_part_at(const struct dwarf_type *record, uint64_t offset)
{
    if (!record->name)
        return NULL;
    for (size_t i = 0; i < sizeof library_parts / sizeof library_parts[0]; i++) {
        const struct library_part *p = &library_parts[i];
        if (strncmp(record->name, p->class_prefix, strlen(p->class_prefix)) == 0 && offset >= p->offset &&
            offset < p->offset + p->size)
            return p;
    }
    return NULL;
}

/* The member whose bytes hold offset; an anonymous struct/union member is
 * returned as such (the caller walks into it without writing a name). */
static const struct dwarf_member *member_at(const struct dwarf_type *record, uint64_t offset)
{
    for (size_t i = 0; i < record->member_count; i++) {
        const struct dwarf_member *m = &record->members[i];
        if (offset >= m->offset && offset - m->offset < dwarf_member_extent(m))
            return m;
    }
    return NULL;
}

const struct dwarf_type *object_path_write(struct text_out *out, const char *base, bool through_pointer,
                                           const struct dwarf_type *t, uint64_t offset)
{
    struct path p = { out, base, through_pointer, false };
    /* The record an anonymous member or a base class was entered from,
     * and the offset in it: a string's characters sit in an unnamed union. */
    const struct dwarf_type *outer = NULL;
    uint64_t outer_offset = 0;
    for (int depth = 0; depth < PATH_DEPTH_LIMIT; depth++) {
        const struct dwarf_type *s = dwarf_type_strip(t);
        if (dwarf_type_is_record(s)) {
            const struct dwarf_member *m = member_at(s, offset);
            /* Reserved names ("__data" of a pthread_mutex_t, "_M_mutex" of a
             * std::mutex) are the library's insides: the object is what the
             * student declared, not its implementation. */
            /* A reserved member, or no members at all: clang describes
             * std::string by its declaration only (libstdc++ instantiates
             * it in its own library). */
            const char *barrier_part = barrier_part_at(s, m, offset);
            if (barrier_part) {
                attach(&p, PIECE_END);
                text_out_puts(out, barrier_part);
                return NULL;
            }
            if ((m && m->name && is_reserved_name(m->name)) || (!m && s->member_count == 0)) {
                uint64_t at = offset;
                const struct library_part *part = library_part_at(s, at);
                if (!part && outer && (part = library_part_at(outer, outer_offset)))
                    at = outer_offset;
                if (part) {
                    attach(&p, PIECE_END);
                    if (part->suffix)
                        text_out_puts(out, part->suffix);
                    else
                        text_out_printf(out, "[%" PRIu64 "]", at - part->offset);
                    return NULL;
                }
            }
            if (!m || m->bit_size || (m->name && is_reserved_name(m->name)))
                break;
            if (m->name) {
                attach(&p, PIECE_MEMBER);
                text_out_puts(out, m->name);
                outer = NULL;
            } else if (!outer) {
                outer = s;
                outer_offset = offset;
            }
            offset -= m->offset;
            t = m->type;
            continue;
        }
        uint64_t element_size = s && s->kind == DWARF_TYPE_ARRAY ? dwarf_type_size(s->target) : 0;
        if (element_size == 0 || (s->count_known && offset / element_size >= s->count))
            break;
        attach(&p, PIECE_INDEX);
        text_out_printf(out, "[%" PRIu64 "]", offset / element_size);
        offset %= element_size;
        t = s->target;
    }
    if (offset == 0) {
        attach(&p, PIECE_END);
        return t;
    }
    attach(&p, PIECE_OFFSET);
    text_out_printf(out, "+%" PRIu64, offset);
    return NULL;
}
