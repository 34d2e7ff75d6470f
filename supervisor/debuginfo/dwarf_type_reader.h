/* dwarf_type_reader: turns DWARF type DIEs into the dwarf_types model while
 * dwarf_info loads (libdwarf is open only then).
 *
 * Owns the DIE-offset -> type table that makes each DIE one type however often
 * it is referred to (so self-referring structs through pointers end), the
 * decoding of every type DIE mdat models, and sizes that DWARF leaves to be
 * derived (arrays, typedefs, qualifiers). Types live in the caller's arena;
 * only types reachable from what is asked for are read. */
#ifndef MDAT_SUPERVISOR_DWARF_TYPE_READER_H
#define MDAT_SUPERVISOR_DWARF_TYPE_READER_H

#include <libdwarf.h>
#include <stdbool.h>

#include "supervisor/debuginfo/arena.h"
#include "supervisor/debuginfo/dwarf_types.h"

struct type_reader;

struct type_reader *type_reader_new(Dwarf_Debug dbg, struct arena *arena);
/* Frees the reader, not the types (they belong to the arena). */
void type_reader_free(struct type_reader *tr);

/* The type of a DIE's DW_AT_type (through DW_AT_specification and
 * DW_AT_abstract_origin), read completely with every type it refers to.
 * NULL for void (no DW_AT_type); a DWARF_TYPE_UNKNOWN type when it cannot be
 * read (type units, broken references). */
const struct dwarf_type *type_reader_type_of(struct type_reader *tr, Dwarf_Die die);

bool type_reader_out_of_memory(const struct type_reader *tr);
size_t type_reader_type_count(const struct type_reader *tr);

#endif
