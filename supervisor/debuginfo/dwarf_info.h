/* dwarf_info: the DWARF of one ELF file, read once with libdwarf and kept as
 * plain sorted arrays (internal to debuginfo).
 *
 * Owns the address->line table (rows of every CU's line program), the ranges
 * of DW_TAG_subprogram entries (address->function name) and of inlined
 * subroutines (address->inlined callee), the code ranges covered by DWARF
 * (from line-table sequences), and the variables with a static address or a
 * TLS offset with their types. Works for DWARF 4 and 5. All strings and types
 * are owned by the dwarf_info; libdwarf is closed after loading, so nothing
 * here refers back to the file. */
#ifndef MDAT_SUPERVISOR_DWARF_INFO_H
#define MDAT_SUPERVISOR_DWARF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/range_index.h"
#include "supervisor/debuginfo/dwarf_types.h"
#include "supervisor/debuginfo/elf_image.h"

struct dwarf_line {
    const char *file;       /* path as the line program names it (often absolute) */
    unsigned line, column;  /* line 0: compiler-generated code with no source line */
};

/* A variable that lives as long as the program or a thread: a global, a
 * file or function static, or a thread-local variable. */
struct dwarf_variable {
    const char *name;
    const char *function;           /* the function a function-local static is declared in, else NULL */
    const struct dwarf_type *type;  /* NULL or DWARF_TYPE_UNKNOWN when DWARF does not say */
    uint64_t addr;                  /* file virtual address; TLS: offset in the module's TLS block */
    uint64_t size;                  /* bytes, at least 1 (type size, else ELF symbol size) */
    bool tls;
    bool external;                  /* visible to other files (not static) */
};

typedef struct dwarf_info dwarf_info;

/* Reads the DWARF of img's file. Code that the linker discarded is still
 * described in DWARF at address 0 (or a tombstone); only sequences and
 * functions that start inside one of img's executable sections are kept.
 * Returns NULL when the file has no usable DWARF (none at all, broken, or
 * nothing left after filtering), with the reason in err. *corrupt: there is
 * DWARF, but libdwarf could not read (all or part of) it: err is then
 * libdwarf's complaint (also with a result; else err is ""). */
dwarf_info *dwarf_info_load(const elf_image *img, bool *corrupt, char *err, size_t errlen);
void dwarf_info_free(dwarf_info *dw);

/* Line row covering addr: the row with the greatest address <= addr inside
 * the same sequence. False between sequences and outside any. */
bool dwarf_info_line_at(const dwarf_info *dw, uint64_t addr, struct dwarf_line *out);

/* Name of the subprogram whose code contains addr, or NULL; *start (if not
 * NULL) receives the start of that piece of the function's code. */
const char *dwarf_info_function_at(const dwarf_info *dw, uint64_t addr, uint64_t *start);

/* The innermost inlined subroutine whose code contains addr (its callee's
 * name), or NULL when addr is not in inlined code. */
const char *dwarf_info_inlined_at(const dwarf_info *dw, uint64_t addr);

/* The call site of the innermost inlined subroutine containing addr whose
 * caller's file does not start with prefix ("/usr/": the user's line that
 * a std::mutex::lock inlined from a system header stands for). False when
 * addr is in no such inlined code. */
bool dwarf_info_inlined_call_outside(const dwarf_info *dw, uint64_t addr, const char *prefix, struct dwarf_line *out);
/* One inlined call whose code contains an address: the callee, and where
 * its caller called it (call_file NULL when DWARF does not say). */
struct dwarf_inline_call {
    const char *callee;
    const char *call_file;
    unsigned call_line;
};
/* The inlined calls containing addr, innermost first (at most max);
 * returns how many were written. */
size_t dwarf_info_inline_chain(const dwarf_info *dw, uint64_t addr, struct dwarf_inline_call *out, size_t max);

/* Every variable: non-TLS ones sorted by address, then TLS ones by offset. */
size_t dwarf_info_variables(const dwarf_info *dw, const struct dwarf_variable **out);
/* The innermost variable whose [addr, addr + size) contains addr, among the
 * TLS variables (addr an offset in the TLS block) or the others. */
const struct dwarf_variable *dwarf_info_variable_at(const dwarf_info *dw, uint64_t addr, bool tls);
/* The variables called name, external ones first. Returns how many there
 * are; writes at most max. */
size_t dwarf_info_variables_named(const dwarf_info *dw, const char *name,
                                  const struct dwarf_variable **out, size_t max);
/* Non-TLS variables of pointer type whose pointee has a known size, by address. */
size_t dwarf_info_pointer_variables(const dwarf_info *dw, const struct dwarf_variable *const **out);

/* An OpenMP outlined function ("main._omp_fn.0") and the type of its one
 * parameter: (a pointer or reference to) the struct that carries the
 * region's shared variables, its members named after them. */
struct dwarf_omp_fn {
    uint64_t entry;
    const struct dwarf_type *data_type;
};
/* The parameter type of the outlined function starting at entry, NULL when
 * entry is not one (or DWARF does not say). */
const struct dwarf_type *dwarf_info_omp_data_type(const dwarf_info *dw, uint64_t entry);

/* The lowest address in [lo, hi) whose line row names a file that does not
 * start with prefix ("/usr/": the user's code among the C++ library's
 * templates inlined around it). */
bool dwarf_info_first_line_outside(const dwarf_info *dw, uint64_t lo, uint64_t hi, const char *prefix,
                                   uint64_t *addr);

/* Sorted, merged [lo, hi) ranges of code that has line information. */
size_t dwarf_info_code_ranges(const dwarf_info *dw, const struct addr_range **out);

/* Counts for diagnostics and tests. */
size_t dwarf_info_cu_count(const dwarf_info *dw);
/* Units built with -gsplit-dwarf (skeletons: lines and ranges only; the
 * rest lies in .dwo files, which are not read). */
size_t dwarf_info_split_cu_count(const dwarf_info *dw);
/* What mdat says of such a program, in one line. */
#define DWARF_SPLIT_TEXT                                                                                           \
    "its debug information is in split DWARF .dwo files, which mdat does not read; build without -gsplit-dwarf"
size_t dwarf_info_row_count(const dwarf_info *dw);
size_t dwarf_info_function_count(const dwarf_info *dw);
size_t dwarf_info_type_count(const dwarf_info *dw);

#endif
