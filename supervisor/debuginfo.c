/* debuginfo: source-level names for addresses of one executable.
 *
 * Owns the pairing of an elf_image with its dwarf_info and the fallback order
 * of every answer: DWARF line and subprogram, then ELF symbol + offset, then
 * the bare address. Also owns the text formats the trace and UI print. */
#include "supervisor/debuginfo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/dwarf_info.h"

struct debuginfo {
    elf_image *elf;
    dwarf_info *dwarf; /* NULL without usable DWARF */
};

debuginfo *debuginfo_load(const char *path, char *err, size_t errlen)
{
    elf_image *elf = elf_image_open(path, err, errlen);
    if (!elf)
        return NULL;
    debuginfo *di = calloc(1, sizeof *di);
    if (!di) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        elf_image_close(elf);
        return NULL;
    }
    di->elf = elf;
    /* Missing or broken DWARF only costs precision: the reason is not an error. */
    char why_no_dwarf[128];
    di->dwarf = dwarf_info_load(elf, why_no_dwarf, sizeof why_no_dwarf);
    return di;
}

void debuginfo_free(debuginfo *di)
{
    if (!di)
        return;
    dwarf_info_free(di->dwarf);
    elf_image_close(di->elf);
    free(di);
}

const elf_image *debuginfo_elf(const debuginfo *di) { return di->elf; }
bool debuginfo_has_dwarf(const debuginfo *di) { return di->dwarf != NULL; }

size_t debuginfo_cu_ranges(const debuginfo *di, const struct addr_range **out)
{
    if (!di->dwarf) {
        *out = NULL;
        return 0;
    }
    return dwarf_info_code_ranges(di->dwarf, out);
}

static const char *path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The function containing addr and where it starts: DWARF first, because it
 * names static functions of stripped-symtab builds and split .cold parts by
 * their source name; the ELF symbol otherwise. */
static const char *function_at(const debuginfo *di, uint64_t addr, uint64_t *start)
{
    if (di->dwarf) {
        const char *name = dwarf_info_function_at(di->dwarf, addr, start);
        if (name)
            return name;
    }
    const struct elf_symbol *sym = elf_image_function_at(di->elf, addr);
    if (!sym)
        return NULL;
    *start = sym->addr;
    return sym->name;
}

bool debuginfo_code_location(const debuginfo *di, uint64_t addr, struct src_loc *out)
{
    memset(out, 0, sizeof *out);
    struct dwarf_line line;
    if (di->dwarf && dwarf_info_line_at(di->dwarf, addr, &line) && line.file) {
        out->file = line.file;
        out->basename = path_basename(line.file);
        out->line = line.line;
        out->column = line.line ? line.column : 0;
    }
    uint64_t start;
    out->function = function_at(di, addr, &start);
    return out->file || out->function;
}

void debuginfo_format_code(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    if (len == 0)
        return;
    struct dwarf_line line;
    uint64_t start = 0;
    const char *function = function_at(di, addr, &start);
    if (di->dwarf && dwarf_info_line_at(di->dwarf, addr, &line) && line.file && line.line) {
        if (function)
            snprintf(buf, len, "%s:%u %s", path_basename(line.file), line.line, function);
        else
            snprintf(buf, len, "%s:%u", path_basename(line.file), line.line);
    } else if (function && addr > start) {
        snprintf(buf, len, "%s+0x%" PRIx64, function, addr - start);
    } else if (function) {
        snprintf(buf, len, "%s", function);
    } else {
        snprintf(buf, len, "0x%" PRIx64, addr);
    }
}

void debuginfo_format_line(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    if (len == 0)
        return;
    struct dwarf_line line;
    if (di->dwarf && dwarf_info_line_at(di->dwarf, addr, &line) && line.file && line.line)
        snprintf(buf, len, "%s:%u", path_basename(line.file), line.line);
    else
        buf[0] = '\0';
}

void debuginfo_format_data(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    if (len == 0)
        return;
    const struct elf_symbol *sym = elf_image_object_at(di->elf, addr);
    if (!sym)
        buf[0] = '\0';
    else if (addr == sym->addr)
        snprintf(buf, len, "%s", sym->name);
    else
        snprintf(buf, len, "%s+%" PRIu64, sym->name, addr - sym->addr);
}
