/* debuginfo: what an address of the traced executable means in source terms.
 *
 * Combines elf_image (symbols) and DWARF (line tables, functions, CU ranges, read
 * with libdwarf) for one executable file. Loaded once per batch and shared by
 * every execution. Degrades: DWARF line -> symbol+offset -> hex address.
 * Addresses are file virtual addresses (the caller subtracts the load bias). */
#ifndef MDAT_SUPERVISOR_DEBUGINFO_H
#define MDAT_SUPERVISOR_DEBUGINFO_H

#include "supervisor/elf_image.h"

struct src_loc {
    const char *file;       /* as recorded in DWARF (may be absolute), NULL if unknown */
    const char *basename;   /* last path component of file */
    unsigned line, column;  /* 0 if unknown */
    const char *function;   /* DWARF subprogram name, else ELF symbol, else NULL */
};

struct addr_range { uint64_t lo, hi; }; /* [lo, hi) */

typedef struct debuginfo debuginfo;

/* Opens path with elf_image_open (same error contract) and reads its DWARF if
 * there is any; a missing or unreadable .debug_info is not an error. */
debuginfo *debuginfo_load(const char *path, char *err, size_t errlen);
void debuginfo_free(debuginfo *di);

const elf_image *debuginfo_elf(const debuginfo *di);
bool debuginfo_has_dwarf(const debuginfo *di);

/* Code address ranges of the compilation units that carry DWARF: the user's
 * own code, as opposed to libc pieces linked into a static binary. Sorted,
 * merged. Zero when there is no DWARF. */
size_t debuginfo_cu_ranges(const debuginfo *di, const struct addr_range **out);

/* Source location of a code address. Returns false (out zeroed) when nothing
 * at all is known; otherwise fills what is known. */
bool debuginfo_code_location(const debuginfo *di, uint64_t addr, struct src_loc *out);

/* "lost_update.c:14 worker", "worker+0x1a", or "0x401136". */
void debuginfo_format_code(const debuginfo *di, uint64_t addr, char *buf, size_t len);
/* "file.c:14" or "" when there is no line information. */
void debuginfo_format_line(const debuginfo *di, uint64_t addr, char *buf, size_t len);
/* A name for a data address: "counter", "queue+8", or "" when no symbol
 * contains it (the caller prints the address). */
void debuginfo_format_data(const debuginfo *di, uint64_t addr, char *buf, size_t len);

#endif
