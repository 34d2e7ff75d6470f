/* debuginfo: source-level names for addresses of one executable.
 *
 * Owns the pairing of an elf_image with its dwarf_info and the fallback order
 * of every answer: DWARF line, subprogram and inlined callee, then ELF symbol
 * + offset, then the bare address; for data: a variable's member or element,
 * then an object reached through a pointer variable, then an ELF symbol.
 * Also owns the text formats the trace and UI print, the TLS block geometry
 * and the list of statically declared sync objects (built at load). */
#include "supervisor/debuginfo/debuginfo.h"
#include "supervisor/debuginfo/elf_plt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/arena.h"
#include "supervisor/debuginfo/cxx_names.h"
#include "supervisor/debuginfo/data_expr.h"
#include "supervisor/debuginfo/dwarf_info.h"
#include "supervisor/debuginfo/object_path.h"
#include "supervisor/debuginfo/symbol_names.h"
#include "supervisor/debuginfo/sync_globals.h"
#include "supervisor/debuginfo/text_out.h"

struct debuginfo {
    elf_image *elf;
    dwarf_info *dwarf; /* NULL without usable DWARF */
    struct arena names; /* sync-object names */
    struct sync_global *sync;
    size_t sync_count;
    struct symbol_names *symbols; /* demangled C++ symbols, made when first shown */
    elf_plt *plt;                 /* the PLT stubs and the functions they call */
    bool dwarf_corrupt;           /* there is DWARF libdwarf could not read (all or part) */
    char dwarf_trouble[128];      /* why there is none, or what part was skipped */
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
    di->symbols = symbol_names_new();
    di->plt = elf_plt_build(elf);
    /* Missing or broken DWARF only costs precision: the reason is not an
     * error, but kept for whoever tells the user. */
    di->dwarf = dwarf_info_load(elf, &di->dwarf_corrupt, di->dwarf_trouble, sizeof di->dwarf_trouble);
    if (di->dwarf)
        di->sync_count = sync_globals_collect(di->dwarf, &di->names, &di->sync);
    return di;
}

void debuginfo_free(debuginfo *di)
{
    if (!di)
        return;
    dwarf_info_free(di->dwarf);
    elf_image_close(di->elf);
    symbol_names_free(di->symbols);
    elf_plt_free(di->plt);
    free(di->sync);
    arena_free(&di->names);
    free(di);
}

const elf_image *debuginfo_elf(const debuginfo *di) { return di->elf; }
bool debuginfo_has_dwarf(const debuginfo *di) { return di->dwarf != NULL; }
bool debuginfo_split_dwarf(const debuginfo *di) { return di->dwarf && dwarf_info_split_cu_count(di->dwarf) > 0; }

enum debuginfo_dwarf_state debuginfo_dwarf_state(const debuginfo *di, const char **why)
{
    *why = di->dwarf_trouble;
    return di->dwarf_corrupt ? DEBUGINFO_DWARF_CORRUPT : di->dwarf ? DEBUGINFO_DWARF_WHOLE : DEBUGINFO_DWARF_NONE;
}

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
    return symbol_names_get(di->symbols, sym);
}

/* Code from the C/C++ runtime's headers (std::thread, std::atomic, ...),
 * compiled into the user's binary. */
static bool is_system_file(const char *path)
{
    return path && strncmp(path, "/usr/", 5) == 0;
}

enum { INLINE_DEPTH_MAX = 32 };

/* A function of the C++ library's (std::, __gnu_cxx::) or its reserved
 * helpers' (_M_acquire, __atomic_wait_address_bare): never the user's own,
 * such as a lambda a library algorithm calls. */
static bool is_library_name(const char *name)
{
    return name && (strncmp(name, "std::", 5) == 0 || strncmp(name, "__gnu_cxx::", 11) == 0 || name[0] == '_');
}

/* Code inlined from a system header, called (through any number of other
 * inlined library calls) from the user's own source: the user's line is
 * the call site, the user's function the one that made the call, and the
 * library function the call that leaves the user's code. False when the
 * line is the user's already, or no user call site is on the chain. */
static bool user_call_site(const debuginfo *di, uint64_t addr, const char *line_file, struct src_loc *out)
{
    if (!di->dwarf || !line_file)
        return false;
    struct dwarf_inline_call chain[INLINE_DEPTH_MAX];
    size_t n = dwarf_info_inline_chain(di->dwarf, addr, chain, INLINE_DEPTH_MAX);
    if (!is_system_file(line_file)) {
        /* clang gives the first instructions of an inlined library call
         * the caller's line, however deep the library's own inlined calls
         * go (acquire, then _M_acquire inside it): the user's line already,
         * the call that leaves the user's source beside, the function that
         * makes it the user's. */
        size_t k = 0;
        while (k < n && is_library_name(chain[k].callee) && (!chain[k].call_file || is_system_file(chain[k].call_file)))
            k++;
        if (k == n || !chain[k].call_file || is_system_file(chain[k].call_file) || !is_library_name(chain[k].callee))
            return false;
        out->library_function = chain[k].callee;
        if (k + 1 < n) {
            out->inlined_into = out->function;
            out->function = chain[k + 1].callee;
        }
        return true;
    }
    for (size_t k = 0; k < n; k++) {
        if (!chain[k].call_file || !chain[k].call_line || is_system_file(chain[k].call_file))
            continue;
        out->file = chain[k].call_file;
        out->basename = path_basename(chain[k].call_file);
        out->line = chain[k].call_line;
        out->column = 0;
        out->library_function = chain[k].callee;
        if (k + 1 < n) {
            out->inlined_into = out->function;
            out->function = chain[k + 1].callee;
        }
        return true;
    }
    return false;
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
    if (out->function && user_call_site(di, addr, out->file, out))
        return true;
    const char *callee = di->dwarf ? dwarf_info_inlined_at(di->dwarf, addr) : NULL;
    if (callee && out->function) {
        out->inlined_into = out->function;
        out->function = callee;
    }
    return out->file || out->function;
}

bool debuginfo_user_call_site(const debuginfo *di, uint64_t addr, struct src_loc *out)
{
    struct dwarf_line line;
    memset(out, 0, sizeof *out);
    if (!di->dwarf || !dwarf_info_inlined_call_outside(di->dwarf, addr, "/usr/", &line))
        return false;
    uint64_t start;
    out->file = line.file;
    out->basename = path_basename(line.file);
    out->line = line.line;
    out->function = function_at(di, addr, &start);
    return true;
}

static bool is_std_name(const char *name)
{
    return name && (strncmp(name, "std::", 5) == 0 || strncmp(name, "__gnu_cxx::", 11) == 0);
}

bool debuginfo_library_callee(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *mangled = debuginfo_plt_name(di, addr);
    if (!mangled) {
        /* A template's own copy: its code's lines are the header's. */
        const struct elf_symbol *sym = elf_image_function_at(di->elf, addr);
        struct dwarf_line line;
        if (!sym || sym->addr != addr || !di->dwarf || !dwarf_info_line_at(di->dwarf, addr, &line) ||
            !is_system_file(line.file))
            return false;
        mangled = sym->name;
    }
    return cxx_library_call_name(mangled, buf, len) && is_std_name(buf);
}

void debuginfo_format_code(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    if (len == 0)
        return;
    struct src_loc loc;
    uint64_t start = 0;
    const char *function = function_at(di, addr, &start);
    if (debuginfo_code_location(di, addr, &loc) && loc.file && loc.line) {
        struct text_out out = text_out_start(buf, len);
        text_out_printf(&out, "%s:%u", loc.basename, loc.line);
        if (loc.function)
            text_out_printf(&out, " %s", loc.function);
        if (loc.library_function)
            text_out_printf(&out, " (in %s)", loc.library_function);
        else if (loc.inlined_into)
            text_out_printf(&out, " (inlined into %s)", loc.inlined_into);
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
    struct src_loc loc;
    if (debuginfo_code_location(di, addr, &loc) && loc.file && loc.line)
        snprintf(buf, len, "%s:%u", loc.basename, loc.line);
    else
        buf[0] = '\0';
}

/* "sym" or "sym+8" from the ELF symbol containing a file address. */
static bool format_symbol(const debuginfo *di, uint64_t addr, struct text_out *out)
{
    const struct elf_symbol *sym = elf_image_object_at(di->elf, addr);
    if (!sym)
        return false;
    const char *name = symbol_names_get(di->symbols, sym);
    if (addr == sym->addr)
        text_out_puts(out, name);
    else
        text_out_printf(out, "%s+%" PRIu64, name, addr - sym->addr);
    return true;
}

void debuginfo_format_data(const debuginfo *di, uint64_t addr, char *buf, size_t len)
{
    struct text_out out = text_out_start(buf, len);
    format_symbol(di, addr, &out);
}

/* ---- C++ and OpenMP code ---- */

uint64_t debuginfo_cxx_function(const debuginfo *di, const char *name)
{
    return symbol_names_find_function(di->symbols, di->elf, name);
}

bool debuginfo_first_user_line(const debuginfo *di, uint64_t lo, uint64_t hi, uint64_t *addr)
{
    return di->dwarf && dwarf_info_first_line_outside(di->dwarf, lo, hi, "/usr/", addr);
}

bool debuginfo_in_cxx_atomics(const debuginfo *di, uint64_t addr)
{
    static const char *const headers[] = {"atomic_base.h", "atomic", "atomic_wait.h", "atomic_timed_wait.h"};
    struct dwarf_line line;
    if (!di->dwarf || !dwarf_info_line_at(di->dwarf, addr, &line) || !line.file || !strstr(line.file, "/c++/"))
        return false;
    const char *base = path_basename(line.file);
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        if (strcmp(base, headers[i]) == 0)
            return true;
    return false;
}


const struct dwarf_type *debuginfo_omp_data_type(const debuginfo *di, uint64_t entry)
{
    return di->dwarf ? dwarf_info_omp_data_type(di->dwarf, entry) : NULL;
}

const struct dwarf_type *debuginfo_name_part(const char *base, const struct dwarf_type *t, uint64_t offset,
                                             char *buf, size_t len)
{
    struct text_out out = text_out_start(buf, len);
    const struct dwarf_type *named = object_path_write(&out, base, false, t, offset);
    text_out_finish(&out);
    return named;
}

enum { POINTER_BATCH_BYTES = 4096 };

/* An object some pointer variable points at: the pointer variables are read
 * in batches of neighbours (one read for a page of them, not one each), and
 * the first, by address, whose pointee contains addr names it. */
static bool name_through_pointer(const debuginfo *di, uint64_t addr, const struct data_reader *rd,
                                 struct text_out *out, const struct dwarf_type **type)
{
    const struct dwarf_variable *const *pointers;
    size_t count = dwarf_info_pointer_variables(di->dwarf, &pointers);
    uint8_t batch[POINTER_BATCH_BYTES];
    for (size_t first = 0; first < count;) {
        uint64_t start = pointers[first]->addr;
        size_t end = first + 1;
        while (end < count && pointers[end]->addr + 8 - start <= sizeof batch)
            end++;
        size_t span = (size_t)(pointers[end - 1]->addr + 8 - start);
        bool batch_read = rd->read(rd->ctx, start + rd->bias, batch, span);
        for (size_t i = first; i < end; i++) {
            const struct dwarf_variable *v = pointers[i];
            uint64_t value;
            if (batch_read)
                memcpy(&value, batch + (v->addr - start), sizeof value);
            else if (!rd->read(rd->ctx, v->addr + rd->bias, &value, sizeof value))
                continue;
            const struct dwarf_type *pointee = dwarf_type_strip(v->type)->target;
            uint64_t size = dwarf_type_size(pointee), offset = addr - value;
            if (!value || size == 0)
                continue;
            /* A pointer to the start of an allocation of several objects
             * is an array: counts[2], not *counts+8. */
            uint64_t extent = rd->extent ? rd->extent(rd->ctx, value) : 0;
            if (extent >= 2 * size && offset < extent) {
                char base[160];
                snprintf(base, sizeof base, "%s[%" PRIu64 "]", v->name, offset / size);
                *type = object_path_write(out, base, false, pointee, offset % size);
                return true;
            }
            if (offset < size) {
                *type = object_path_write(out, v->name, true, pointee, offset);
                return true;
            }
        }
        first = end;
    }
    return false;
}

bool debuginfo_name_data(const debuginfo *di, uint64_t addr, const struct data_reader *rd, char *buf,
                         size_t len, const struct dwarf_type **type)
{
    const struct dwarf_type *named = NULL;
    struct text_out out = text_out_start(buf, len);
    uint64_t file_addr = addr - (rd ? rd->bias : 0);
    const struct dwarf_variable *v = di->dwarf ? dwarf_info_variable_at(di->dwarf, file_addr, false) : NULL;
    bool found = true;
    if (v)
        named = object_path_write(&out, v->name, false, v->type, file_addr - v->addr);
    else if (!(di->dwarf && rd && rd->read && name_through_pointer(di, addr, rd, &out, &named)))
        found = format_symbol(di, file_addr, &out);
    text_out_finish(&out);
    if (type)
        *type = named;
    return found;
}

bool debuginfo_tls_block(const debuginfo *di, uint64_t *size, uint64_t *align)
{
    uint64_t vaddr, memsz, alignment;
    if (!elf_image_tls_segment(di->elf, &vaddr, &memsz, &alignment))
        return false;
    if (alignment == 0)
        alignment = 1;
    /* glibc places the executable's block at tp - roundup(memsz, align). */
    *size = (memsz + alignment - 1) / alignment * alignment;
    *align = alignment;
    return true;
}

bool debuginfo_name_tls(const debuginfo *di, uint64_t offset, char *buf, size_t len,
                        const struct dwarf_type **type)
{
    const struct dwarf_type *named = NULL;
    struct text_out out = text_out_start(buf, len);
    const struct dwarf_variable *v = di->dwarf ? dwarf_info_variable_at(di->dwarf, offset, true) : NULL;
    if (v) {
        named = object_path_write(&out, v->name, false, v->type, offset - v->addr);
        text_out_finish(&out);
    }
    if (type)
        *type = named;
    return v != NULL;
}

void debuginfo_format_value(const debuginfo *di, const struct dwarf_type *t, uint64_t addr,
                            const struct data_reader *rd, char *buf, size_t len)
{
    value_format_at(t, addr, rd, buf, len);
}

/* An expression without DWARF: the evaluator says "compile it with -g";
 * when the program was, but its DWARF is corrupt, that is what to say.
 * Always false (the evaluation failed). */
static bool no_dwarf_said(const debuginfo *di, char *err, size_t errlen)
{
    if (!di->dwarf && di->dwarf_corrupt && errlen)
        snprintf(err, errlen, "the program's debug information is corrupt: %s", di->dwarf_trouble);
    return false;
}

bool debuginfo_eval(const debuginfo *di, const char *expr, const struct data_reader *rd, uint64_t *addr,
                    const struct dwarf_type **type, char *err, size_t errlen)
{
    return data_expr_eval(di->dwarf, expr, rd, NULL, addr, type, err, errlen) || no_dwarf_said(di, err, errlen);
}

bool debuginfo_check_object(const debuginfo *di, const char *expr, char *err, size_t errlen)
{
    return data_expr_check_object(di->dwarf, expr, err, errlen) || no_dwarf_said(di, err, errlen);
}

bool debuginfo_eval_thread(const debuginfo *di, const char *expr, const struct data_reader *rd,
                           uint64_t tls_block, uint64_t *addr, const struct dwarf_type **type, char *err,
                           size_t errlen)
{
    return data_expr_eval(di->dwarf, expr, rd, &tls_block, addr, type, err, errlen) || no_dwarf_said(di, err, errlen);
}

bool debuginfo_eval_value(const debuginfo *di, const char *expr, const struct data_reader *rd,
                          struct data_expr_result *out, char *err, size_t errlen)
{
    return data_expr_value(di->dwarf, expr, rd, out, err, errlen) || no_dwarf_said(di, err, errlen);
}

bool debuginfo_is_atomic_object(const debuginfo *di, uint64_t file_addr)
{
    const struct dwarf_variable *v = di->dwarf ? dwarf_info_variable_at(di->dwarf, file_addr, false) : NULL;
    return v && dwarf_type_atomic_at(v->type, file_addr - v->addr);
}

size_t debuginfo_sync_globals(const debuginfo *di, const struct sync_global **out)
{
    *out = di->sync;
    return di->sync_count;
}

const char *debuginfo_plt_name(const debuginfo *di, uint64_t addr)
{
    return di->plt ? elf_plt_name_at(di->plt, addr) : NULL;
}

size_t debuginfo_plt_stubs(const debuginfo *di, const struct elf_symbol **out)
{
    *out = NULL;
    return di->plt ? elf_plt_stubs(di->plt, out) : 0;
}

bool debuginfo_imports_unstubbed(const debuginfo *di, const char *name)
{
    return di->plt && elf_plt_imports_unstubbed(di->plt, name);
}

bool debuginfo_imports(const debuginfo *di, const char *name)
{
    return di->plt && elf_plt_imports(di->plt, name);
}
