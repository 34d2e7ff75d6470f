/* line_program: see line_program.h. A reader of DWARF 2-5 line program
 * headers only as far as the program needs (opcode_base and the operand
 * counts of the standard opcodes), then of the program's opcodes only as far
 * as the file register and the row count need. */
#include "supervisor/debuginfo/line_program.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
    const uint8_t *at, *end;
    bool bad;
};

static uint64_t read_fixed(struct cursor *c, unsigned bytes)
{
    if ((size_t)(c->end - c->at) < bytes) {
        c->bad = true;
        c->at = c->end;
        return 0;
    }
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++)
        value |= (uint64_t)c->at[i] << (8 * i);
    c->at += bytes;
    return value;
}

static uint64_t read_uleb(struct cursor *c)
{
    uint64_t value = 0;
    for (unsigned shift = 0; c->at < c->end; shift += 7) {
        uint8_t byte = *c->at++;
        if (shift < 64)
            value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return value;
    }
    c->bad = true;
    return 0;
}

static void skip(struct cursor *c, uint64_t bytes)
{
    if ((uint64_t)(c->end - c->at) < bytes) {
        c->bad = true;
        c->at = c->end;
    } else {
        c->at += bytes;
    }
}

struct header {
    unsigned version;
    uint8_t opcode_base;
    const uint8_t *operand_counts;  /* standard_opcode_lengths[opcode_base - 1] */
    struct cursor program;
};

static bool read_header(const uint8_t *section, size_t size, uint64_t offset, struct header *h)
{
    if (offset >= size)
        return false;
    struct cursor c = { section + offset, section + size, false };
    uint64_t unit_length = read_fixed(&c, 4);
    unsigned offset_size = 4;
    if (unit_length == 0xffffffffu) {
        unit_length = read_fixed(&c, 8);
        offset_size = 8;
    }
    if (c.bad || unit_length > (uint64_t)(c.end - c.at))
        return false;
    const uint8_t *unit_end = c.at + unit_length;
    c.end = unit_end;
    h->version = (unsigned)read_fixed(&c, 2);
    if (h->version < 2 || h->version > 5)
        return false;
    if (h->version >= 5)
        skip(&c, 2);                        /* address_size, segment_selector_size */
    uint64_t header_length = read_fixed(&c, offset_size);
    if (c.bad || header_length > (uint64_t)(c.end - c.at))
        return false;
    const uint8_t *program = c.at + header_length;
    skip(&c, h->version >= 4 ? 5 : 4);      /* min_inst_length, [max_ops], default_is_stmt, line_base, line_range */
    h->opcode_base = (uint8_t)read_fixed(&c, 1);
    h->operand_counts = c.at;
    skip(&c, h->opcode_base ? h->opcode_base - 1u : 0);
    if (c.bad || h->opcode_base == 0 || c.at > program)
        return false;
    h->program = (struct cursor){ program, unit_end, false };
    return true;
}

static bool append_row(struct line_program_files *out, size_t *cap, uint32_t file)
{
    if (out->row_count == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 256;
        uint32_t *grown = realloc(out->file, grown_cap * sizeof *grown);
        if (!grown)
            return false;
        out->file = grown;
        *cap = grown_cap;
    }
    out->file[out->row_count++] = file;
    return true;
}

/* One extended opcode; true when it ended a sequence (a row). */
static bool extended_ends_sequence(struct cursor *c)
{
    uint64_t length = read_uleb(c);
    if (length == 0 || c->bad)
        return false;
    uint8_t sub = (uint8_t)read_fixed(c, 1);
    skip(c, length - 1);
    return sub == 1;                        /* DW_LNE_end_sequence */
}

bool line_program_files_read(const uint8_t *section, size_t size, uint64_t offset,
                             struct line_program_files *out)
{
    memset(out, 0, sizeof *out);
    struct header h;
    if (!section || !read_header(section, size, offset, &h))
        return false;
    out->version = h.version;
    struct cursor *c = &h.program;
    size_t cap = 0;
    uint32_t file = 1;                      /* every version starts at 1 */
    while (c->at < c->end && !c->bad) {
        uint8_t op = *c->at++;
        bool row = false, ends = false;
        if (op >= h.opcode_base) {
            row = true;                     /* special opcode */
        } else if (op == 0) {
            row = ends = extended_ends_sequence(c);
        } else if (op == 1) {
            row = true;                     /* DW_LNS_copy */
        } else if (op == 4) {
            file = (uint32_t)read_uleb(c);  /* DW_LNS_set_file */
        } else if (op == 9) {
            skip(c, 2);                     /* DW_LNS_fixed_advance_pc: a uhalf */
        } else {
            for (uint8_t i = 0; i < h.operand_counts[op - 1]; i++)
                read_uleb(c);               /* advance_line's sleb reads the same */
        }
        if (row && !c->bad && !append_row(out, &cap, file)) {
            line_program_files_free(out);
            return false;
        }
        if (ends)
            file = 1;
    }
    if (c->bad) {
        line_program_files_free(out);
        return false;
    }
    return true;
}

void line_program_files_free(struct line_program_files *files)
{
    free(files->file);
    memset(files, 0, sizeof *files);
}
