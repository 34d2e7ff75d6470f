/* object_path: the C expression for the innermost part of a typed object
 * that contains a byte offset: "queue.buf[3]", "table[1][2].count",
 * "q->head", "(*pa)[2]", "counter+2", "pair+1" (padding).
 *
 * Owns the walk down struct members (through anonymous ones) and array
 * elements, and where it stops: at a scalar, at bit fields (they have no
 * address of their own, so their storage is named by the struct), at
 * padding, and at the C++ library's insides, named by what they are
 * ("v.size()", "name[3]", "slot (control block)"). */
#ifndef MDAT_SUPERVISOR_OBJECT_PATH_H
#define MDAT_SUPERVISOR_OBJECT_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/debuginfo/dwarf_types.h"
#include "supervisor/debuginfo/text_out.h"

/* Writes the name of the part of an object of type t at offset. The object
 * is base itself, or *base when through_pointer (base is then a pointer
 * variable and the object what it points to). Returns the type of exactly
 * the named part when offset is where it starts, else NULL ("x+3"). */
const struct dwarf_type *object_path_write(struct text_out *out, const char *base, bool through_pointer,
                                           const struct dwarf_type *t, uint64_t offset);

#endif
