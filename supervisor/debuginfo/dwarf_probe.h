/* dwarf_probe: whether the system's libdwarf survives a file's DWARF.
 *
 * libdwarf 20210528 (Debian 12) frees memory twice on some malformed
 * sections (.debug_rnglists among them, found by tests/fuzz's ELF target):
 * it aborts the process that reads them. Before dwarf_info.c reads a file
 * in mdat, a child process reads the parts where that happens; when the
 * child dies, the file's DWARF is corrupt and mdat goes on without it.
 * What the child reads is this file's; what the DWARF means, dwarf_info.c's. */
#ifndef MDAT_DEBUGINFO_DWARF_PROBE_H
#define MDAT_DEBUGINFO_DWARF_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* true when libdwarf reads path's unit headers and range and location
 * lists without dying (or the probe could not be made: the caller's own
 * reading decides then); false with why in err. */
bool dwarf_probe_survives(const char *path, char *err, size_t errlen);

#endif
