/* eh_frame: where functions start, from the unwind table every x86-64
 * binary keeps (.eh_frame_hdr), even stripped of its symbols.
 *
 * The engine needs function boundaries to know which functions use rbp as
 * a frame pointer (so that rbp-relative accesses are the thread's own
 * stack); without .symtab this is the only place that says. */
#ifndef MDAT_DEBUGINFO_EH_FRAME_H
#define MDAT_DEBUGINFO_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/elf_image.h"

/* The start addresses (file vaddrs) of every function the unwind table
 * describes, sorted; *out malloc'd (NULL when none). Returns the count. */
size_t eh_frame_function_starts(const elf_image *img, uint64_t **out);

#endif
