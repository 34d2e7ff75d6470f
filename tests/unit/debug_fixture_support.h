/* Helpers the test_debug_* tests share: finding and loading the compiled
 * fixtures of tests/fixtures, the line of a MARK: comment in a fixture's
 * source, and a symbol's address. Include after cmocka.h. */
#ifndef MDAT_TESTS_DEBUG_FIXTURE_SUPPORT_H
#define MDAT_TESTS_DEBUG_FIXTURE_SUPPORT_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/debuginfo/debuginfo.h"

/* Writes the fixture's path; true when the file is there. */
static inline bool fixture_path(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", FIXTURE_DIR, name);
    return access(path, R_OK) == 0;
}

static inline debuginfo *load_fixture(const char *name)
{
    char path[4096], err[256];
    if (!fixture_path(name, path, sizeof path))
        fail_msg("fixture %s is missing: build the debug_fixtures target", path);
    debuginfo *di = debuginfo_load(path, err, sizeof err);
    if (!di)
        fail_msg("cannot load %s: %s", name, err);
    return di;
}

/* The line of source that carries "MARK:<marker>". */
static inline unsigned source_marker_line(const char *source, const char *marker)
{
    FILE *f = fopen(source, "r");
    if (!f)
        fail_msg("cannot read %s", source);
    char needle[128], text[512];
    snprintf(needle, sizeof needle, "MARK:%s ", marker);
    unsigned line = 0, found = 0;
    while (fgets(text, sizeof text, f)) {
        line++;
        if (strstr(text, needle))
            found = line;
    }
    fclose(f);
    if (!found)
        fail_msg("marker %s not in %s", marker, source);
    return found;
}

static inline uint64_t symbol_addr(const debuginfo *di, const char *name)
{
    uint64_t addr = 0;
    if (elf_image_symbol_addrs(debuginfo_elf(di), name, &addr, 1) != 1)
        fail_msg("expected exactly one symbol %s", name);
    return addr;
}

#endif
