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
    for (int depth = 0; depth < PATH_DEPTH_LIMIT; depth++) {
        const struct dwarf_type *s = dwarf_type_strip(t);
        if (dwarf_type_is_record(s)) {
            const struct dwarf_member *m = member_at(s, offset);
            /* Reserved names ("__data" of a pthread_mutex_t, "_M_mutex" of a
             * std::mutex) are the library's insides: the object is what the
             * student declared, not its implementation. */
            if (!m || m->bit_size || (m->name && is_reserved_name(m->name)))
                break;
            if (m->name) {
                attach(&p, PIECE_MEMBER);
                text_out_puts(out, m->name);
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
