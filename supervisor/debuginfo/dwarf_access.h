/* dwarf_access: the few libdwarf idioms every DWARF reader in mdat repeats,
 * each answering one question about a DIE with a plain C value.
 *
 * Owns error handling (a libdwarf error is released at once: for mdat a
 * failed attribute only means "not known"), following the reference
 * attributes that carry a DIE's name and type elsewhere (DW_AT_specification,
 * DW_AT_abstract_origin), and decoding short location expressions. */
#ifndef MDAT_SUPERVISOR_DWARF_ACCESS_H
#define MDAT_SUPERVISOR_DWARF_ACCESS_H

#include <libdwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Releases *error when rc is DW_DLV_ERROR; returns rc. */
int dw_checked(Dwarf_Debug dbg, Dwarf_Error *error, int rc);

/* The global .debug_info offset a reference attribute points to (any
 * DW_FORM_ref*, including DW_FORM_ref_addr). */
bool dw_attr_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum, Dwarf_Off *offset);
bool dw_attr_unsigned(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum, uint64_t *value);
bool dw_has_attr(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum);
/* The DIE at a global .debug_info offset, NULL if unreadable. */
Dwarf_Die dw_die_at(Dwarf_Debug dbg, Dwarf_Off offset);

/* die itself when it has attrnum, else the DIE its DW_AT_specification or
 * DW_AT_abstract_origin leads to (a few hops at most) that has it; NULL when
 * none has. A result other than die must be released with dwarf_dealloc_die. */
Dwarf_Die dw_owner_of(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum);
/* DW_AT_name through those links, as libdwarf's string (valid until
 * dwarf_finish: intern it), or NULL. */
const char *dw_name(Dwarf_Debug dbg, Dwarf_Die die);
/* DW_AT_linkage_name (or DW_AT_MIPS_linkage_name) through the same links:
 * a C++ function's mangled name, as libdwarf's string, or NULL (C). */
const char *dw_linkage_name(Dwarf_Debug dbg, Dwarf_Die die);

/* One operation of a location expression with its first operand, cooked by
 * libdwarf (an address for DW_OP_addrx). */
struct dw_op {
    uint8_t atom;
    uint64_t operand;
};
/* Decodes attr when it is a single location expression (not a location
 * list). Returns the number of operations (0 when it is not an expression or
 * cannot be read); writes at most max of them. */
size_t dw_expression(Dwarf_Debug dbg, Dwarf_Attribute attr, struct dw_op *ops, size_t max);

#endif
