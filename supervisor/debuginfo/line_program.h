/* line_program: the file register of every row of one DWARF line program,
 * replayed from the .debug_line bytes.
 *
 * libdwarf 20210528 starts each DWARF 5 sequence with file 0, where the
 * standard says 1; gcc 12 relies on the default, so code inlined from the
 * header that is file 1 (std_thread.h) was named after file 0 (the CU's own
 * source) with the header's line numbers. This file only follows the opcodes
 * that set the file register and counts the rows; addresses, lines and file
 * names stay libdwarf's (dwarf_info). */
#ifndef MDAT_DEBUGINFO_LINE_PROGRAM_H
#define MDAT_DEBUGINFO_LINE_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct line_program_files {
    uint32_t *file;     /* file register of row i, in emission order (malloc'd) */
    size_t row_count;   /* every row, end_sequence rows included */
    unsigned version;   /* the line table's own version (2..5) */
};

/* Replays the line program at offset in section (the bytes of .debug_line).
 * False when the bytes cannot be followed (truncated, compressed, an unknown
 * version): the caller then keeps libdwarf's file indexes. */
bool line_program_files_read(const uint8_t *section, size_t size, uint64_t offset,
                             struct line_program_files *out);
void line_program_files_free(struct line_program_files *files);

#endif
