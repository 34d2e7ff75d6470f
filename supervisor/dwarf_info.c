/* dwarf_info: reads a file's DWARF with libdwarf (the 2021 API) in one pass
 * over its compilation units and turns it into sorted arrays.
 *
 * Per CU: the line program (every row, file names resolved once per file
 * index with dwarf_linesrc, which knows DWARF 5's index-0 rule) and the
 * top-level subprograms (low_pc/high_pc or DW_AT_ranges, names through
 * DW_AT_specification / DW_AT_abstract_origin). libdwarf is closed when
 * loading ends; every string is interned in an arena owned by dwarf_info. */
#include "supervisor/dwarf_info.h"
#include "supervisor/arena.h"
#include "supervisor/error_text.h"
#include "supervisor/range_index.h"

#include <dwarf.h>
#include <fcntl.h>
#include <libdwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the loaded tables ---------------------------------------------------- */

struct line_row {
    uint64_t addr;
    const char *file;
    uint32_t line;
    uint32_t column;
    uint32_t order;        /* emission order: breaks ties between equal addresses */
    bool end_sequence;     /* first address after a sequence: no line here */
};

struct function_range {
    uint64_t lo, hi;
    const char *name;
};

struct dwarf_info {
    struct arena strings;
    struct line_row *rows;
    size_t row_count, row_cap;
    struct function_range *functions;
    size_t function_count, function_cap;
    struct range_index function_index;
    struct addr_range *code_ranges;
    size_t code_range_count, code_range_cap;
    size_t cu_count;
};

#define GROW(array, count, cap)                                                    \
    ((count) < (cap) || grow_array((void **)&(array), &(cap), sizeof *(array)))

static bool grow_array(void **array, size_t *cap, size_t elem_size)
{
    size_t new_cap = *cap ? *cap * 2 : 256;
    void *grown = realloc(*array, new_cap * elem_size);
    if (!grown)
        return false;
    *array = grown;
    *cap = new_cap;
    return true;
}

/* ---- loading ---------------------------------------------------------------- */

/* State of one load: the libdwarf handle, the executable sections that make an
 * address believable, and the current CU. */
struct loader {
    dwarf_info *dw;
    Dwarf_Debug dbg;
    Dwarf_Error error;
    const struct elf_section **code_sections;
    size_t code_section_count;
    Dwarf_Half cu_version;
    Dwarf_Addr cu_base;        /* DW_AT_low_pc of the CU: base of DWARF 4 ranges */
    const char **file_names;   /* this CU's file index -> interned path */
    size_t file_name_cap;
    bool out_of_memory;
    bool unit_list_broken;     /* a CU header could not be read */
};


/* libdwarf allocates a Dwarf_Error for every failure; a failed attribute is
 * not fatal for us, so each one is released and the walk goes on. */
static int checked(struct loader *ld, int rc)
{
    if (rc == DW_DLV_ERROR && ld->error) {
        dwarf_dealloc_error(ld->dbg, ld->error);
        ld->error = NULL;
    }
    return rc;
}

static bool is_code_address(const struct loader *ld, uint64_t addr)
{
    for (size_t i = 0; i < ld->code_section_count; i++) {
        const struct elf_section *sec = ld->code_sections[i];
        if (addr - sec->addr < sec->size)
            return true;
    }
    return false;
}

static const char *file_name_for(struct loader *ld, Dwarf_Line line)
{
    Dwarf_Unsigned index;
    bool cacheable = checked(ld, dwarf_line_srcfileno(line, &index, &ld->error)) == DW_DLV_OK &&
                     index < 65536;
    if (cacheable && index < ld->file_name_cap && ld->file_names[index])
        return ld->file_names[index];

    char *name = NULL;
    if (checked(ld, dwarf_linesrc(line, &name, &ld->error)) != DW_DLV_OK || !name)
        return NULL;
    const char *interned = arena_intern(&ld->dw->strings, name);
    dwarf_dealloc(ld->dbg, name, DW_DLA_STRING);
    if (!interned) {
        ld->out_of_memory = true;
        return NULL;
    }
    if (cacheable) {
        if (index >= ld->file_name_cap) {
            size_t cap = ld->file_name_cap ? ld->file_name_cap : 64;
            while (cap <= index)
                cap *= 2;
            const char **grown = realloc(ld->file_names, cap * sizeof *grown);
            if (!grown)
                return interned;
            memset(grown + ld->file_name_cap, 0, (cap - ld->file_name_cap) * sizeof *grown);
            ld->file_names = grown;
            ld->file_name_cap = cap;
        }
        ld->file_names[index] = interned;
    }
    return interned;
}

static void add_code_range(struct loader *ld, uint64_t lo, uint64_t hi)
{
    dwarf_info *dw = ld->dw;
    if (hi <= lo)
        return;
    if (!GROW(dw->code_ranges, dw->code_range_count, dw->code_range_cap)) {
        ld->out_of_memory = true;
        return;
    }
    dw->code_ranges[dw->code_range_count++] = (struct addr_range){ lo, hi };
}

/* Appends one CU's line rows. Rows are buffered per sequence because whether
 * a sequence is kept depends on its first address (discarded code sits at 0). */
static void read_line_table(struct loader *ld, Dwarf_Die cu_die)
{
    Dwarf_Unsigned version;
    Dwarf_Small table_count;
    Dwarf_Line_Context context;
    if (checked(ld, dwarf_srclines_b(cu_die, &version, &table_count, &context, &ld->error)) !=
        DW_DLV_OK)
        return;
    Dwarf_Line *lines = NULL;
    Dwarf_Signed line_count = 0;
    if (table_count == 0 ||
        checked(ld, dwarf_srclines_from_linecontext(context, &lines, &line_count, &ld->error)) !=
            DW_DLV_OK)
        line_count = 0;

    if (ld->file_names) /* file indexes are per CU */
        memset(ld->file_names, 0, ld->file_name_cap * sizeof *ld->file_names);
    dwarf_info *dw = ld->dw;
    size_t sequence_start = dw->row_count;
    for (Dwarf_Signed i = 0; i < line_count && !ld->out_of_memory; i++) {
        Dwarf_Addr addr;
        Dwarf_Unsigned lineno = 0, column = 0;
        Dwarf_Bool end_sequence = 0;
        if (checked(ld, dwarf_lineaddr(lines[i], &addr, &ld->error)) != DW_DLV_OK)
            continue;
        checked(ld, dwarf_lineendsequence(lines[i], &end_sequence, &ld->error));
        checked(ld, dwarf_lineno(lines[i], &lineno, &ld->error));
        checked(ld, dwarf_lineoff_b(lines[i], &column, &ld->error));
        if (!GROW(dw->rows, dw->row_count, dw->row_cap)) {
            ld->out_of_memory = true;
            break;
        }
        size_t index = dw->row_count++;
        dw->rows[index] = (struct line_row){
            .addr = addr,
            .file = end_sequence ? NULL : file_name_for(ld, lines[i]),
            .line = (uint32_t)lineno,
            .column = (uint32_t)column,
            .order = (uint32_t)index,
            .end_sequence = end_sequence,
        };
        if (end_sequence) {
            uint64_t first = dw->rows[sequence_start].addr;
            if (is_code_address(ld, first) && addr > first) {
                add_code_range(ld, first, addr);
                sequence_start = dw->row_count;
            } else {
                dw->row_count = sequence_start;
            }
        }
    }
    /* A sequence without its end row is truncated DWARF: drop it. */
    dw->row_count = sequence_start;
    dwarf_srclines_dealloc_b(context);
}

static void add_function_range(struct loader *ld, const char *name, uint64_t lo, uint64_t hi)
{
    dwarf_info *dw = ld->dw;
    if (hi <= lo || !is_code_address(ld, lo))
        return;
    if (!GROW(dw->functions, dw->function_count, dw->function_cap)) {
        ld->out_of_memory = true;
        return;
    }
    dw->functions[dw->function_count++] = (struct function_range){ lo, hi, name };
}

/* DWARF 5 DW_AT_ranges: .debug_rnglists, either an offset or an index. */
static void add_rnglists(struct loader *ld, Dwarf_Attribute attr, Dwarf_Half form, const char *name)
{
    Dwarf_Unsigned value = 0;
    if (form == DW_FORM_rnglistx) {
        if (checked(ld, dwarf_formudata(attr, &value, &ld->error)) != DW_DLV_OK)
            return;
    } else {
        Dwarf_Off offset;
        if (checked(ld, dwarf_global_formref(attr, &offset, &ld->error)) != DW_DLV_OK)
            return;
        value = offset;
    }
    Dwarf_Rnglists_Head head;
    Dwarf_Unsigned entry_count = 0, set_offset;
    if (checked(ld, dwarf_rnglists_get_rle_head(attr, form, value, &head, &entry_count, &set_offset,
                                                &ld->error)) != DW_DLV_OK)
        return;
    for (Dwarf_Unsigned i = 0; i < entry_count; i++) {
        unsigned entry_len, kind;
        Dwarf_Unsigned raw1, raw2, lo, hi;
        Dwarf_Bool unavailable = 0;
        if (checked(ld, dwarf_get_rnglists_entry_fields_a(head, i, &entry_len, &kind, &raw1, &raw2,
                                                          &unavailable, &lo, &hi, &ld->error)) !=
            DW_DLV_OK)
            break;
        if (kind == DW_RLE_end_of_list)
            break;
        if (kind == DW_RLE_base_address || kind == DW_RLE_base_addressx || unavailable)
            continue;
        add_function_range(ld, name, lo, hi); /* "cooked": base already applied */
    }
    dwarf_dealloc_rnglists_head(head);
}

/* DWARF 2-4 DW_AT_ranges: .debug_ranges, offsets relative to the CU base. */
static void add_debug_ranges(struct loader *ld, Dwarf_Die die, Dwarf_Attribute attr, const char *name)
{
    Dwarf_Off offset, real_offset;
    if (checked(ld, dwarf_global_formref(attr, &offset, &ld->error)) != DW_DLV_OK) {
        Dwarf_Unsigned udata;
        if (checked(ld, dwarf_formudata(attr, &udata, &ld->error)) != DW_DLV_OK)
            return;
        offset = udata;
    }
    Dwarf_Ranges *ranges;
    Dwarf_Signed count;
    Dwarf_Unsigned byte_count;
    if (checked(ld, dwarf_get_ranges_b(ld->dbg, offset, die, &real_offset, &ranges, &count,
                                       &byte_count, &ld->error)) != DW_DLV_OK)
        return;
    uint64_t base = ld->cu_base;
    for (Dwarf_Signed i = 0; i < count; i++) {
        if (ranges[i].dwr_type == DW_RANGES_END)
            break;
        if (ranges[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
            base = ranges[i].dwr_addr2;
        else
            add_function_range(ld, name, base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2);
    }
    dwarf_ranges_dealloc(ld->dbg, ranges, count);
}

static bool die_pc_range(struct loader *ld, Dwarf_Die die, uint64_t *lo, uint64_t *hi)
{
    Dwarf_Addr low, high;
    Dwarf_Half form;
    enum Dwarf_Form_Class form_class;
    if (checked(ld, dwarf_lowpc(die, &low, &ld->error)) != DW_DLV_OK ||
        checked(ld, dwarf_highpc_b(die, &high, &form, &form_class, &ld->error)) != DW_DLV_OK)
        return false;
    /* Since DWARF 4, a constant-class high_pc is the length, not an address. */
    if (form_class == DW_FORM_CLASS_CONSTANT)
        high += low;
    *lo = low;
    *hi = high;
    return true;
}

/* Out-of-line instances of inlined functions and C++ member definitions carry
 * no DW_AT_name of their own; it is on the DIE they point to. */
static const char *subprogram_name(struct loader *ld, Dwarf_Die die)
{
    Dwarf_Die current = die;
    const char *result = NULL;
    for (int hop = 0; hop < 4 && !result; hop++) {
        char *name = NULL;
        if (checked(ld, dwarf_diename(current, &name, &ld->error)) == DW_DLV_OK && name) {
            result = arena_intern(&ld->dw->strings, name);
            if (!result)
                ld->out_of_memory = true;
            break;
        }
        static const Dwarf_Half links[] = { DW_AT_abstract_origin, DW_AT_specification };
        Dwarf_Die target = NULL;
        for (size_t k = 0; k < sizeof links / sizeof links[0] && !target; k++) {
            Dwarf_Attribute attr;
            if (checked(ld, dwarf_attr(current, links[k], &attr, &ld->error)) != DW_DLV_OK)
                continue;
            Dwarf_Off offset;
            if (checked(ld, dwarf_global_formref(attr, &offset, &ld->error)) == DW_DLV_OK &&
                checked(ld, dwarf_offdie_b(ld->dbg, offset, 1, &target, &ld->error)) != DW_DLV_OK)
                target = NULL;
            dwarf_dealloc_attribute(attr);
        }
        if (current != die)
            dwarf_dealloc_die(current);
        current = target;
        if (!current)
            break;
    }
    if (current && current != die)
        dwarf_dealloc_die(current);
    return result;
}

static void read_subprogram(struct loader *ld, Dwarf_Die die)
{
    uint64_t lo, hi;
    bool contiguous = die_pc_range(ld, die, &lo, &hi);
    Dwarf_Attribute ranges_attr = NULL;
    if (!contiguous &&
        checked(ld, dwarf_attr(die, DW_AT_ranges, &ranges_attr, &ld->error)) != DW_DLV_OK)
        return; /* a declaration or an abstract instance: no code of its own */

    const char *name = subprogram_name(ld, die);
    if (name) {
        if (contiguous) {
            add_function_range(ld, name, lo, hi);
        } else {
            Dwarf_Half form = 0;
            checked(ld, dwarf_whatform(ranges_attr, &form, &ld->error));
            if (ld->cu_version >= 5)
                add_rnglists(ld, ranges_attr, form, name);
            else
                add_debug_ranges(ld, die, ranges_attr, name);
        }
    }
    if (ranges_attr)
        dwarf_dealloc_attribute(ranges_attr);
}

/* Subprograms with code are children of the CU, or of namespaces in C++.
 * Their own children (locals, blocks, inlined copies) are not walked: that is
 * most of .debug_info and adds nothing to "which function is this". */
static void read_functions(struct loader *ld, Dwarf_Die parent, int depth)
{
    Dwarf_Die child = NULL;
    if (checked(ld, dwarf_child(parent, &child, &ld->error)) != DW_DLV_OK)
        return;
    while (child && !ld->out_of_memory) {
        Dwarf_Half tag = 0;
        if (checked(ld, dwarf_tag(child, &tag, &ld->error)) == DW_DLV_OK) {
            if (tag == DW_TAG_subprogram)
                read_subprogram(ld, child);
            else if (tag == DW_TAG_namespace && depth < 16)
                read_functions(ld, child, depth + 1);
        }
        Dwarf_Die sibling = NULL;
        int rc = checked(ld, dwarf_siblingof_b(ld->dbg, child, 1, &sibling, &ld->error));
        dwarf_dealloc_die(child);
        child = rc == DW_DLV_OK ? sibling : NULL;
    }
}

static void read_compilation_units(struct loader *ld)
{
    for (;;) {
        Dwarf_Unsigned header_length, type_offset, next_offset;
        Dwarf_Half version, address_size, length_size, extension_size, unit_type;
        Dwarf_Off abbrev_offset;
        Dwarf_Sig8 signature;
        int rc = checked(ld, dwarf_next_cu_header_d(ld->dbg, 1, &header_length, &version,
                                                    &abbrev_offset, &address_size, &length_size,
                                                    &extension_size, &signature, &type_offset,
                                                    &next_offset, &unit_type, &ld->error));
        /* After an error libdwarf cannot find the next header: stop with what
         * the earlier units gave. */
        if (rc == DW_DLV_ERROR)
            ld->unit_list_broken = true;
        if (rc != DW_DLV_OK || ld->out_of_memory)
            return;
        Dwarf_Die cu_die = NULL;
        if (checked(ld, dwarf_siblingof_b(ld->dbg, NULL, 1, &cu_die, &ld->error)) != DW_DLV_OK)
            continue;
        ld->dw->cu_count++;
        ld->cu_version = version;
        Dwarf_Addr base = 0;
        ld->cu_base = checked(ld, dwarf_lowpc(cu_die, &base, &ld->error)) == DW_DLV_OK ? base : 0;
        read_line_table(ld, cu_die);
        read_functions(ld, cu_die, 0);
        dwarf_dealloc_die(cu_die);
    }
}

/* ---- turning what was read into lookup tables -------------------------------- */

static int compare_rows(const void *a, const void *b)
{
    const struct line_row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->end_sequence != y->end_sequence)
        return x->end_sequence ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Leaves one row per address. Several rows at one address are views of an
 * empty range except the last, which is the one the instruction there belongs
 * to; a sequence's end row yields to a sequence that starts at that address. */
static void compact_rows(dwarf_info *dw)
{
    if (dw->row_count > 0) /* qsort's base must not be NULL, even for 0 items */
        qsort(dw->rows, dw->row_count, sizeof *dw->rows, compare_rows);
    size_t kept = 0;
    for (size_t i = 0; i < dw->row_count; i++) {
        if (kept > 0 && dw->rows[kept - 1].addr == dw->rows[i].addr)
            dw->rows[kept - 1] = dw->rows[i];
        else
            dw->rows[kept++] = dw->rows[i];
    }
    dw->row_count = kept;
}

static int compare_ranges(const void *a, const void *b)
{
    const struct addr_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

static void merge_code_ranges(dwarf_info *dw)
{
    if (dw->code_range_count > 0)
        qsort(dw->code_ranges, dw->code_range_count, sizeof *dw->code_ranges, compare_ranges);
    size_t kept = 0;
    for (size_t i = 0; i < dw->code_range_count; i++) {
        struct addr_range r = dw->code_ranges[i];
        if (kept > 0 && r.lo <= dw->code_ranges[kept - 1].hi) {
            if (r.hi > dw->code_ranges[kept - 1].hi)
                dw->code_ranges[kept - 1].hi = r.hi;
        } else {
            dw->code_ranges[kept++] = r;
        }
    }
    dw->code_range_count = kept;
}

static bool index_functions(dwarf_info *dw)
{
    struct range_entry *entries = calloc(dw->function_count ? dw->function_count : 1, sizeof *entries);
    if (!entries)
        return false;
    for (size_t i = 0; i < dw->function_count; i++)
        entries[i] = (struct range_entry){ dw->functions[i].lo, dw->functions[i].hi, i };
    return range_index_build(&dw->function_index, entries, dw->function_count);
}

dwarf_info *dwarf_info_load(const elf_image *img, char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    const char *path = elf_image_path(img);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error_text(err, errlen, "cannot open %s", path);
        return NULL;
    }

    /* libdwarf normally records every allocation in a search tree so that
     * dwarf_finish can free what callers forgot; that bookkeeping is two
     * thirds of the load time of a large binary. Everything taken here is
     * released explicitly, and mdat is the process's only libdwarf user, so
     * the (process-wide) tracking is switched off for good. */
    dwarf_set_de_alloc_flag(0);
    struct loader ld = { 0 };
    int rc = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &ld.dbg, &ld.error);
    if (rc != DW_DLV_OK) {
        if (rc == DW_DLV_ERROR) {
            error_text(err, errlen, "unreadable DWARF (%s)", ld.error ? dwarf_errmsg(ld.error) : "?");
            if (ld.error)
                dwarf_dealloc_error(ld.dbg, ld.error);
        } else {
            error_text(err, errlen, "no DWARF");
        }
        close(fd);
        return NULL;
    }

    const struct elf_section *sections;
    size_t section_count = elf_image_sections(img, &sections);
    ld.code_sections = calloc(section_count ? section_count : 1, sizeof *ld.code_sections);
    ld.dw = calloc(1, sizeof *ld.dw);
    if (ld.code_sections && ld.dw) {
        for (size_t i = 0; i < section_count; i++)
            if (sections[i].alloc && sections[i].exec && sections[i].size > 0)
                ld.code_sections[ld.code_section_count++] = &sections[i];
        read_compilation_units(&ld);
    } else {
        ld.out_of_memory = true;
    }

    dwarf_finish(ld.dbg, &ld.error);
    if (ld.error)
        dwarf_dealloc_error(NULL, ld.error);
    close(fd);
    free(ld.code_sections);
    free(ld.file_names);

    dwarf_info *dw = ld.dw;
    if (!ld.out_of_memory && dw) {
        compact_rows(dw);
        merge_code_ranges(dw);
        ld.out_of_memory = !index_functions(dw);
    }
    if (ld.out_of_memory) {
        error_text(err, errlen, "out of memory reading DWARF");
        dwarf_info_free(dw);
        return NULL;
    }
    if (dw->row_count == 0 && dw->function_count == 0) {
        error_text(err, errlen, "%s",
                  ld.unit_list_broken  ? "unreadable DWARF (bad compilation unit header)"
                  : dw->cu_count ? "DWARF describes no code of this file"
                                 : "no DWARF");
        dwarf_info_free(dw);
        return NULL;
    }
    return dw;
}

void dwarf_info_free(dwarf_info *dw)
{
    if (!dw)
        return;
    arena_free(&dw->strings);
    free(dw->rows);
    free(dw->functions);
    range_index_free(&dw->function_index);
    free(dw->code_ranges);
    free(dw);
}

/* ---- lookups ------------------------------------------------------------------ */

bool dwarf_info_line_at(const dwarf_info *dw, uint64_t addr, struct dwarf_line *out)
{
    size_t lo = 0, hi = dw->row_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dw->rows[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || dw->rows[lo - 1].end_sequence)
        return false;
    const struct line_row *row = &dw->rows[lo - 1];
    *out = (struct dwarf_line){ .file = row->file, .line = row->line, .column = row->column };
    return true;
}

const char *dwarf_info_function_at(const dwarf_info *dw, uint64_t addr, uint64_t *start)
{
    const struct range_entry *entry = range_index_containing(&dw->function_index, addr, NULL);
    if (!entry)
        return NULL;
    if (start)
        *start = entry->lo;
    return dw->functions[entry->item].name;
}

size_t dwarf_info_code_ranges(const dwarf_info *dw, const struct addr_range **out)
{
    *out = dw->code_ranges;
    return dw->code_range_count;
}

size_t dwarf_info_cu_count(const dwarf_info *dw) { return dw->cu_count; }
size_t dwarf_info_row_count(const dwarf_info *dw) { return dw->row_count; }
size_t dwarf_info_function_count(const dwarf_info *dw) { return dw->function_count; }
