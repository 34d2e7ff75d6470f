/* dwarf_names: what a function with code is called in traces, from its
 * DWARF entry (internal to debuginfo).
 *
 * Owns the choice between DW_AT_name ("deposit", "operator()") and the
 * qualified name C++ has in its linkage name ("Account::deposit"), and the
 * name of a lambda's body ("lambda in main": the DW_TAG_subprogram of an
 * anonymous class inside a function). The text rules themselves are
 * cxx_names'. */
#ifndef MDAT_SUPERVISOR_DWARF_NAMES_H
#define MDAT_SUPERVISOR_DWARF_NAMES_H

#include <libdwarf.h>
#include <stdbool.h>
#include <stddef.h>

/* The name of the subprogram die, whose DW_AT_name is name, into buf.
 * lambda_scope: the name of the function whose anonymous class die
 * belongs to (a lambda's closure type), else NULL. False (buf untouched)
 * when name itself is the answer: C, templates of the C++ library, names
 * too long to read. */
bool dwarf_function_display(Dwarf_Debug dbg, Dwarf_Die die, const char *name, const char *lambda_scope, char *buf,
                            size_t len);

/* A function of the C++ library as the user called it, for code inlined
 * from a system header into the user's: its qualified name
 * ("std::atomic<bool>::store", "std::thread::join"), without template
 * arguments when they make it too long to read. False (buf untouched) when
 * the entry has no qualified C++ name. */
bool dwarf_library_call_display(Dwarf_Debug dbg, Dwarf_Die die, char *buf, size_t len);

#endif
