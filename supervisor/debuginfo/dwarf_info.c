/* dwarf_info: reads a file's DWARF with libdwarf (the 2021 API) in one pass
 * over its compilation units and turns it into sorted arrays.
 *
 * Per CU: the line program (every row; its file from the file register
 * replayed by line_program, since libdwarf starts DWARF 5 sequences at file
 * 0 rather than 1, named from the CU's file table), then one walk
 * over the DIE tree: subprograms (low_pc/high_pc or DW_AT_ranges, names
 * through DW_AT_specification / DW_AT_abstract_origin), the inlined
 * subroutines inside them, and every variable with a static address or a TLS
 * offset, at file level or inside a function, with its type (read by
 * dwarf_type_reader). libdwarf is closed when loading ends; every string and
 * type lives in an arena owned by dwarf_info. */
#include "supervisor/debuginfo/dwarf_info.h"
#include "supervisor/debuginfo/arena.h"
#include "supervisor/debuginfo/dwarf_access.h"
#include "supervisor/debuginfo/dwarf_names.h"
#include "supervisor/debuginfo/dwarf_probe.h"
#include "supervisor/debuginfo/dwarf_type_reader.h"
#include "supervisor/debuginfo/error_text.h"
#include "supervisor/debuginfo/line_program.h"
#include "supervisor/debuginfo/range_index.h"

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

/* Code ranges with a name: subprograms, or inlined subroutines (the callee). */
struct named_range {
    uint64_t lo, hi;
    const char *name;
    const char *call_file;  /* inlined code: where its caller called it (else NULL) */
    uint32_t call_line;
};

struct named_ranges {
    struct named_range *items;
    size_t count, cap;
    struct range_index index;
};

struct dwarf_info {
    struct arena strings;     /* strings, types and the arrays types point to */
    struct line_row *rows;
    size_t row_count, row_cap;
    struct named_ranges functions;
    struct named_ranges inlined;
    struct addr_range *code_ranges;
    size_t code_range_count, code_range_cap;
    size_t cu_count;
    size_t split_cu_count;    /* skeleton units: the rest is in a .dwo file, not read */

    struct dwarf_variable *variables; /* sorted: globals by address, then TLS by offset */
    size_t variable_count, variable_cap;
    size_t tls_start;                 /* index of the first TLS variable */
    struct range_index global_index, tls_index;
    const struct dwarf_variable **by_name;
    const struct dwarf_variable **pointers;
    size_t pointer_count;
    size_t type_count;
    struct dwarf_omp_fn *omp_fns;     /* OpenMP outlined functions, in DIE order */
    size_t omp_fn_count, omp_fn_cap;
};

/* ---- loading ---------------------------------------------------------------- */

/* State of one load: the libdwarf handle, the executable sections that make an
 * address believable, and the current CU. */
struct loader {
    dwarf_info *dw;
    Dwarf_Debug dbg;
    Dwarf_Error error;
    const elf_image *img;
    const struct elf_section **code_sections;
    size_t code_section_count;
    struct type_reader *types;
    Dwarf_Half cu_version;
    bool cu_is_cxx;            /* C++ functions have qualified names (dwarf_names) */
    Dwarf_Addr cu_base;        /* DW_AT_low_pc of the CU: base of DWARF 4 ranges */
    const char **file_names;   /* this CU's file table, in order (interned paths) */
    size_t file_name_cap;
    size_t file_count;
    size_t file_base;          /* the index of file_names[0]: 0 in DWARF 5, else 1 */
    const char *call_file;     /* the inlined subroutine being read: its call site */
    uint32_t call_line;
    bool out_of_memory;
    bool unit_list_broken;     /* a CU header could not be read */
    unsigned read_errors;      /* libdwarf calls that failed on malformed data */
    char first_error[200];     /* the first one's message */
};


/* libdwarf allocates a Dwarf_Error for every failure; a failed attribute is
 * not fatal for us, so each one is released and the walk goes on. */
static int checked(struct loader *ld, int rc)
{
    if (rc == DW_DLV_ERROR && ld->read_errors++ == 0 && ld->error) {
        snprintf(ld->first_error, sizeof ld->first_error, "%s", dwarf_errmsg(ld->error));
        ld->first_error[strcspn(ld->first_error, "\n")] = '\0';
        size_t n = strlen(ld->first_error);
        if (n > 0 && ld->first_error[n - 1] == '.')
            ld->first_error[n - 1] = '\0';     /* it goes inside a sentence */
    }
    return dw_checked(ld->dbg, &ld->error, rc);
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

/* Every file name of the CU's line table, by the index the line program,
 * DW_AT_call_file and DW_AT_decl_file use: from 0 in DWARF 5, from 1 before
 * (file_base). dwarf_srcfiles gives the entries in table order with their
 * directories joined. */
static void read_file_names(struct loader *ld, Dwarf_Die cu_die, Dwarf_Line_Context context)
{
    ld->file_count = 0;
    Dwarf_Signed base = 1, count = 0, end = 0;
    if (context && checked(ld, dwarf_srclines_files_indexes(context, &base, &count, &end, &ld->error)) !=
                       DW_DLV_OK)
        base = ld->cu_version >= 5 ? 0 : 1;
    ld->file_base = base < 0 ? 0 : (size_t)base;
    char **names = NULL;
    Dwarf_Signed name_count = 0;
    if (checked(ld, dwarf_srcfiles(cu_die, &names, &name_count, &ld->error)) != DW_DLV_OK)
        return;
    if ((size_t)name_count > ld->file_name_cap) {
        const char **grown = realloc(ld->file_names, (size_t)name_count * sizeof *grown);
        if (grown) {
            ld->file_names = grown;
            ld->file_name_cap = (size_t)name_count;
        } else {
            ld->out_of_memory = true;
        }
    }
    for (Dwarf_Signed i = 0; i < name_count; i++) {
        if ((size_t)i < ld->file_name_cap && !ld->out_of_memory) {
            ld->file_names[i] = arena_intern(&ld->dw->strings, names[i]);
            ld->out_of_memory |= ld->file_names[i] == NULL;
        }
        dwarf_dealloc(ld->dbg, names[i], DW_DLA_STRING);
    }
    dwarf_dealloc(ld->dbg, names, DW_DLA_LIST);
    if (!ld->out_of_memory)
        ld->file_count = (size_t)name_count;
}

/* The file a line-table index, DW_AT_call_file or DW_AT_decl_file names;
 * NULL for an index outside the table. */
static const char *file_name_at(const struct loader *ld, uint64_t index)
{
    if (index < ld->file_base || index - ld->file_base >= ld->file_count)
        return NULL;
    return ld->file_names[index - ld->file_base];
}

/* The CU's line program replayed from the section bytes (line_program.h):
 * the file register of each row where libdwarf's own is wrong. */
static bool replay_file_register(struct loader *ld, Dwarf_Die cu_die, struct line_program_files *files)
{
    Dwarf_Attribute attr = NULL;
    if (checked(ld, dwarf_attr(cu_die, DW_AT_stmt_list, &attr, &ld->error)) != DW_DLV_OK)
        return false;
    Dwarf_Off offset = 0;
    bool have_offset = checked(ld, dwarf_global_formref(attr, &offset, &ld->error)) == DW_DLV_OK;
    dwarf_dealloc_attribute(attr);
    if (!have_offset)
        return false;
    const struct elf_section *sections;
    size_t count = elf_image_sections(ld->img, &sections);
    for (size_t i = 0; i < count; i++)
        if (strcmp(sections[i].name, ".debug_line") == 0 && !sections[i].compressed)
            return line_program_files_read(sections[i].data, sections[i].size, offset, files);
    return false;
}

static const char *row_file_name(struct loader *ld, Dwarf_Line line, const struct line_program_files *replayed,
                                 Dwarf_Signed row)
{
    if (replayed && (size_t)row < replayed->row_count)
        return file_name_at(ld, replayed->file[row]);
    Dwarf_Unsigned index;
    if (checked(ld, dwarf_line_srcfileno(line, &index, &ld->error)) != DW_DLV_OK)
        return NULL;
    return file_name_at(ld, index);
}

static void add_code_range(struct loader *ld, uint64_t lo, uint64_t hi)
{
    dwarf_info *dw = ld->dw;
    if (hi <= lo)
        return;
    if (!ARRAY_ROOM(dw->code_ranges, dw->code_range_count, dw->code_range_cap)) {
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

    read_file_names(ld, cu_die, context);
    struct line_program_files replay;
    /* Rows are matched by position: a program that yields another number
     * of rows than libdwarf listed is not the one it read. */
    bool replayed = replay_file_register(ld, cu_die, &replay);
    if (replayed && replay.row_count != (size_t)line_count) {
        line_program_files_free(&replay);
        replayed = false;
    }
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
        if (!ARRAY_ROOM(dw->rows, dw->row_count, dw->row_cap)) {
            ld->out_of_memory = true;
            break;
        }
        size_t index = dw->row_count++;
        dw->rows[index] = (struct line_row){
            .addr = addr,
            .file = end_sequence ? NULL : row_file_name(ld, lines[i], replayed ? &replay : NULL, i),
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
    if (replayed)
        line_program_files_free(&replay);
    dwarf_srclines_dealloc_b(context);
}

/* Where the pieces of code of a subprogram or an inlined subroutine go. */
typedef void (*range_sink)(struct loader *ld, const char *name, uint64_t lo, uint64_t hi);

/* Code the linker discarded is described at address 0 (or a tombstone):
 * only ranges that start in one of the file's executable sections count. */
static void add_named_range(struct loader *ld, struct named_ranges *list, const char *name, uint64_t lo,
                            uint64_t hi)
{
    if (hi <= lo || !is_code_address(ld, lo))
        return;
    if (!ARRAY_ROOM(list->items, list->count, list->cap)) {
        ld->out_of_memory = true;
        return;
    }
    list->items[list->count++] = (struct named_range){ .lo = lo, .hi = hi, .name = name };
}

static void add_function_range(struct loader *ld, const char *name, uint64_t lo, uint64_t hi)
{
    add_named_range(ld, &ld->dw->functions, name, lo, hi);
}

static void add_inlined_range(struct loader *ld, const char *callee, uint64_t lo, uint64_t hi)
{
    struct named_ranges *list = &ld->dw->inlined;
    size_t before = list->count;
    add_named_range(ld, list, callee, lo, hi);
    if (list->count > before) {
        list->items[before].call_file = ld->call_file;
        list->items[before].call_line = ld->call_line;
    }
}

/* DW_AT_call_file and DW_AT_call_line of an inlined subroutine: indexes
 * into the same file table as the line program (from 0 in DWARF 5). */
static void read_call_site(struct loader *ld, Dwarf_Die die)
{
    uint64_t file = 0, line = 0;
    bool known = dw_attr_unsigned(ld->dbg, die, DW_AT_call_file, &file) &&
                 dw_attr_unsigned(ld->dbg, die, DW_AT_call_line, &line);
    ld->call_file = known ? file_name_at(ld, file) : NULL;
    ld->call_line = ld->call_file && line <= UINT32_MAX ? (uint32_t)line : 0;
}

/* DWARF 5 DW_AT_ranges: .debug_rnglists, either an offset or an index. */
static void add_rnglists(struct loader *ld, Dwarf_Attribute attr, Dwarf_Half form, const char *name,
                         range_sink sink)
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
        sink(ld, name, lo, hi); /* "cooked": base already applied */
    }
    dwarf_dealloc_rnglists_head(head);
}

/* DWARF 2-4 DW_AT_ranges: .debug_ranges, offsets relative to the CU base. */
static void add_debug_ranges(struct loader *ld, Dwarf_Die die, Dwarf_Attribute attr, const char *name,
                             range_sink sink)
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
            sink(ld, name, base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2);
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

/* Out-of-line instances of inlined functions, inlined copies and C++ member
 * definitions carry no DW_AT_name of their own; it is on the DIE they point to. */
static const char *interned_name(struct loader *ld, Dwarf_Die die)
{
    const char *name = dw_name(ld->dbg, die);
    if (!name)
        return NULL;
    const char *copy = arena_intern(&ld->dw->strings, name);
    if (!copy)
        ld->out_of_memory = true;
    return copy;
}

/* Gives each piece of code die covers to sink. False when it covers none
 * (a declaration or an abstract instance). */
static bool read_code_ranges(struct loader *ld, Dwarf_Die die, const char *name, range_sink sink)
{
    uint64_t lo, hi;
    if (die_pc_range(ld, die, &lo, &hi)) {
        sink(ld, name, lo, hi);
        return true;
    }
    Dwarf_Attribute ranges_attr = NULL;
    if (checked(ld, dwarf_attr(die, DW_AT_ranges, &ranges_attr, &ld->error)) != DW_DLV_OK)
        return false;
    Dwarf_Half form = 0;
    checked(ld, dwarf_whatform(ranges_attr, &form, &ld->error));
    if (ld->cu_version >= 5)
        add_rnglists(ld, ranges_attr, form, name, sink);
    else
        add_debug_ranges(ld, die, ranges_attr, name, sink);
    dwarf_dealloc_attribute(ranges_attr);
    return true;
}

static bool has_code(struct loader *ld, Dwarf_Die die)
{
    return dw_has_attr(ld->dbg, die, DW_AT_low_pc) || dw_has_attr(ld->dbg, die, DW_AT_ranges);
}

/* The function a DIE sits in, named only when something inside needs it
 * (most functions have no statics and nothing inlined). */
struct scope {
    Dwarf_Die function;
    const char *name;
    bool named;
    const char *display;        /* the function's name in traces (C++: qualified) */
    bool in_anonymous_class;    /* a lambda's closure type inside that function */
};

static const char *scope_name(struct loader *ld, struct scope *scope)
{
    if (scope && scope->function && !scope->named) {
        scope->name = interned_name(ld, scope->function);
        scope->named = true;
    }
    return scope ? scope->name : NULL;
}

/* What a variable's location says: a static address (DW_OP_addr or
 * DW_OP_addrx) or an offset in
 * the module's TLS block (an unsigned constant, then DW_OP_GNU_push_tls_address
 * or DW_OP_form_tls_address). Locals on the stack or in registers: false. */
static bool static_location(struct loader *ld, Dwarf_Die die, uint64_t *addr, bool *tls)
{
    Dwarf_Attribute attr = NULL;
    if (checked(ld, dwarf_attr(die, DW_AT_location, &attr, &ld->error)) != DW_DLV_OK)
        return false;
    /* Location lists describe registers and stack slots, never a static
     * address: only a single expression can be one. */
    Dwarf_Half form = 0;
    checked(ld, dwarf_whatform(attr, &form, &ld->error));
    struct dw_op ops[3];
    size_t count = 0;
    if (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block2 ||
        form == DW_FORM_block4 || form == DW_FORM_block)
        count = dw_expression(ld->dbg, attr, ops, 3);
    dwarf_dealloc_attribute(attr);
    if (count == 1 && ops[0].atom == DW_OP_addr) {
        *addr = ops[0].operand;
        *tls = false;
        return true;
    }
    /* clang's DWARF 5: the operand is an index into .debug_addr. */
    Dwarf_Addr indexed;
    if (count == 1 && (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
        checked(ld, dwarf_debug_addr_index_to_addr(die, ops[0].operand, &indexed, &ld->error)) ==
            DW_DLV_OK) {
        *addr = indexed;
        *tls = false;
        return true;
    }
    if (count == 2 && (ops[1].atom == DW_OP_GNU_push_tls_address ||
                       ops[1].atom == DW_OP_form_tls_address)) {
        switch (ops[0].atom) {
        case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
        case DW_OP_constu:
            *addr = ops[0].operand;
            *tls = true;
            return true;
        }
    }
    return false;
}

/* Discarded definitions (a COMDAT copy the linker dropped) keep a location
 * of 0 or a tombstone: a global must lie in a section that is loaded. */
static bool is_loaded_address(const struct loader *ld, uint64_t addr)
{
    const struct elf_section *sections;
    size_t count = elf_image_sections(ld->img, &sections);
    for (size_t i = 0; i < count; i++)
        if (sections[i].alloc && addr - sections[i].addr < sections[i].size)
            return true;
    return false;
}

static void read_variable(struct loader *ld, Dwarf_Die die, struct scope *scope)
{
    uint64_t addr;
    bool tls;
    if (!static_location(ld, die, &addr, &tls) || (!tls && !is_loaded_address(ld, addr)))
        return;
    const char *name = interned_name(ld, die);
    if (!name)
        return;
    dwarf_info *dw = ld->dw;
    if (!ARRAY_ROOM(dw->variables, dw->variable_count, dw->variable_cap)) {
        ld->out_of_memory = true;
        return;
    }
    Dwarf_Die external = dw_owner_of(ld->dbg, die, DW_AT_external);
    if (external && external != die)
        dwarf_dealloc_die(external);
    dw->variables[dw->variable_count++] = (struct dwarf_variable){
        .name = name,
        .function = scope_name(ld, scope),
        .type = type_reader_type_of(ld->types, die),
        .addr = addr,
        .tls = tls,
        .external = external != NULL,
    };
    ld->out_of_memory |= type_reader_out_of_memory(ld->types);
}

/* The name a function's code gets in traces: DW_AT_name, or in C++ the
 * qualified or lambda name dwarf_names gives. */
static const char *display_name(struct loader *ld, Dwarf_Die die, const char *name, const struct scope *scope)
{
    if (!name || !ld->cu_is_cxx)
        return name;
    const char *lambda_scope = scope && scope->in_anonymous_class ? scope->display : NULL;
    char text[256];
    if (!dwarf_function_display(ld->dbg, die, name, lambda_scope, text, sizeof text))
        return name;
    const char *copy = arena_intern(&ld->dw->strings, text);
    if (!copy)
        ld->out_of_memory = true;
    return copy;
}

/* The name of inlined code: the library's own function called from the
 * user's source by its qualified name (it is shown beside the user's line:
 * "prog.cpp:25 main (in std::thread::join)"), others as display_name says. */
static const char *inlined_name(struct loader *ld, Dwarf_Die die)
{
    char text[256];
    bool from_user = ld->call_file && strncmp(ld->call_file, "/usr/", 5) != 0;
    if (!ld->cu_is_cxx || !from_user || !dwarf_library_call_display(ld->dbg, die, text, sizeof text))
        return display_name(ld, die, interned_name(ld, die), NULL);
    if (strncmp(text, "std::", 5) != 0 && strncmp(text, "__gnu_cxx::", 11) != 0)
        return display_name(ld, die, interned_name(ld, die), NULL);
    const char *copy = arena_intern(&ld->dw->strings, text);
    if (!copy)
        ld->out_of_memory = true;
    return copy;
}

/* An OpenMP outlined function (main._omp_fn.0): the type of its one
 * parameter, the struct through which the region's shared variables reach
 * it. */
static void read_omp_data_type(struct loader *ld, Dwarf_Die die)
{
    uint64_t lo, hi;
    if (!die_pc_range(ld, die, &lo, &hi))
        return;
    Dwarf_Die child = NULL;
    if (checked(ld, dwarf_child(die, &child, &ld->error)) != DW_DLV_OK)
        return;
    while (child) {
        Dwarf_Half tag = 0;
        checked(ld, dwarf_tag(child, &tag, &ld->error));
        if (tag == DW_TAG_formal_parameter) {
            dwarf_info *dw = ld->dw;
            if (ARRAY_ROOM(dw->omp_fns, dw->omp_fn_count, dw->omp_fn_cap))
                dw->omp_fns[dw->omp_fn_count++] =
                    (struct dwarf_omp_fn){ lo, type_reader_type_of(ld->types, child) };
            else
                ld->out_of_memory = true;
            dwarf_dealloc_die(child);
            return;
        }
        Dwarf_Die sibling = NULL;
        int rc = checked(ld, dwarf_siblingof_b(ld->dbg, child, 1, &sibling, &ld->error));
        dwarf_dealloc_die(child);
        child = rc == DW_DLV_OK ? sibling : NULL;
    }
}

/* One walk over a CU's DIE tree for everything with an address: functions
 * and the inlined code in them, and variables at file level, in functions
 * and in their blocks. Types are read only when a variable refers to them. */
static void read_scope(struct loader *ld, Dwarf_Die parent, struct scope *scope, int depth)
{
    Dwarf_Die child = NULL;
    if (depth > 64 || checked(ld, dwarf_child(parent, &child, &ld->error)) != DW_DLV_OK)
        return;
    while (child && !ld->out_of_memory) {
        Dwarf_Half tag = 0;
        checked(ld, dwarf_tag(child, &tag, &ld->error));
        switch (tag) {
        case DW_TAG_subprogram: {
            struct scope inner = { .function = child };
            if (has_code(ld, child)) {
                inner.display = display_name(ld, child, scope_name(ld, &inner), scope);
                read_code_ranges(ld, child, inner.display, add_function_range);
                if (inner.display && strstr(inner.display, "._omp_fn."))
                    read_omp_data_type(ld, child);
            }
            read_scope(ld, child, &inner, depth + 1);
            break;
        }
        case DW_TAG_inlined_subroutine:
            read_call_site(ld, child);
            read_code_ranges(ld, child, inlined_name(ld, child), add_inlined_range);
            read_scope(ld, child, scope, depth + 1);
            break;
        case DW_TAG_structure_type:
        case DW_TAG_class_type:
        case DW_TAG_union_type:
            /* A class local to a function (a lambda's closure type): its
             * member functions' code is described inside it. */
            if (scope && scope->function) {
                struct scope local = *scope;
                local.in_anonymous_class = !dw_has_attr(ld->dbg, child, DW_AT_name);
                read_scope(ld, child, &local, depth + 1);
            }
            break;
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
            read_scope(ld, child, scope, depth + 1);
            break;
        case DW_TAG_variable:
            read_variable(ld, child, scope);
            break;
        default:
            break;
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
        /* -gsplit-dwarf: the executable keeps a skeleton of the unit (its
         * line table, its ranges); its functions, inlined calls, variables
         * and types are in a .dwo file of their own. */
        Dwarf_Bool dwo = 0, gnu_dwo = 0;
        if (unit_type == DW_UT_skeleton ||
            (checked(ld, dwarf_hasattr(cu_die, DW_AT_dwo_name, &dwo, &ld->error)) == DW_DLV_OK && dwo) ||
            (checked(ld, dwarf_hasattr(cu_die, DW_AT_GNU_dwo_name, &gnu_dwo, &ld->error)) == DW_DLV_OK && gnu_dwo))
            ld->dw->split_cu_count++;
        Dwarf_Unsigned language = 0;
        ld->cu_is_cxx = checked(ld, dwarf_srclang(cu_die, &language, &ld->error)) == DW_DLV_OK &&
                        (language == DW_LANG_C_plus_plus || language == DW_LANG_C_plus_plus_03 ||
                         language == DW_LANG_C_plus_plus_11 || language == DW_LANG_C_plus_plus_14);
        Dwarf_Addr base = 0;
        ld->cu_base = checked(ld, dwarf_lowpc(cu_die, &base, &ld->error)) == DW_DLV_OK ? base : 0;
        ld->file_count = 0;
        read_line_table(ld, cu_die);
        read_scope(ld, cu_die, NULL, 0);
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

/* Items in walk order: a callee inlined into an inlined callee comes later,
 * so among equal ranges the innermost has the highest item and is found first. */
static bool index_named_ranges(struct named_ranges *list)
{
    struct range_entry *entries = calloc(list->count ? list->count : 1, sizeof *entries);
    if (!entries)
        return false;
    for (size_t i = 0; i < list->count; i++)
        entries[i] = (struct range_entry){ list->items[i].lo, list->items[i].hi, i };
    return range_index_build(&list->index, entries, list->count);
}

static const struct named_range *named_range_at(const struct named_ranges *list, uint64_t addr)
{
    const struct range_entry *entry = range_index_containing(&list->index, addr, NULL);
    return entry ? &list->items[entry->item] : NULL;
}

static int compare_variables(const void *a, const void *b)
{
    const struct dwarf_variable *x = a, *y = b;
    if (x->tls != y->tls)
        return x->tls ? 1 : -1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* External first, so "counter" means the global when a function also has a
 * static called counter; then by address, so the answer is stable. */
static int compare_by_name(const void *a, const void *b)
{
    const struct dwarf_variable *x = *(const struct dwarf_variable *const *)a;
    const struct dwarf_variable *y = *(const struct dwarf_variable *const *)b;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    if (x->external != y->external)
        return x->external ? -1 : 1;
    if (x->tls != y->tls)
        return x->tls ? 1 : -1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static bool index_variable_range(const dwarf_info *dw, size_t from, size_t to, struct range_index *index)
{
    struct range_entry *entries = calloc(to > from ? to - from : 1, sizeof *entries);
    if (!entries)
        return false;
    for (size_t i = from; i < to; i++)
        entries[i - from] = (struct range_entry){
            dw->variables[i].addr, dw->variables[i].addr + dw->variables[i].size, i
        };
    return range_index_build(index, entries, to - from);
}

/* A pointer worth following when nothing else names an address: its
 * pointee has a size, so [p, p + size) is an object. */
static bool is_followable_pointer(const struct dwarf_variable *v)
{
    const struct dwarf_type *t = dwarf_type_strip(v->type);
    return !v->tls && t && t->kind == DWARF_TYPE_POINTER && dwarf_type_size(t->target) > 0;
}

/* Sorts and deduplicates the variables (one definition can be described in
 * several places: an abstract instance and its concrete copies), sizes them
 * and builds the address, TLS, name and pointer indexes. */
static bool index_variables(dwarf_info *dw, const elf_image *img)
{
    if (dw->variable_count > 0)
        qsort(dw->variables, dw->variable_count, sizeof *dw->variables, compare_variables);
    size_t kept = 0;
    for (size_t i = 0; i < dw->variable_count; i++) {
        struct dwarf_variable *v = &dw->variables[i];
        if (kept > 0 && compare_variables(&dw->variables[kept - 1], v) == 0)
            continue;
        v->size = dwarf_type_size(v->type);
        if (v->size == 0 && !v->tls) {
            const struct elf_symbol *sym = elf_image_object_at(img, v->addr);
            v->size = sym && sym->addr == v->addr ? sym->size : 0;
        }
        if (v->size == 0)
            v->size = 1; /* still names its own address */
        dw->variables[kept++] = *v;
    }
    dw->variable_count = kept;
    dw->tls_start = kept;
    while (dw->tls_start > 0 && dw->variables[dw->tls_start - 1].tls)
        dw->tls_start--;

    dw->by_name = calloc(kept ? kept : 1, sizeof *dw->by_name);
    dw->pointers = calloc(kept ? kept : 1, sizeof *dw->pointers);
    if (!dw->by_name || !dw->pointers)
        return false;
    for (size_t i = 0; i < kept; i++) {
        dw->by_name[i] = &dw->variables[i];
        if (is_followable_pointer(&dw->variables[i]))
            dw->pointers[dw->pointer_count++] = &dw->variables[i];
    }
    if (kept > 0)
        qsort(dw->by_name, kept, sizeof *dw->by_name, compare_by_name);
    return index_variable_range(dw, 0, dw->tls_start, &dw->global_index) &&
           index_variable_range(dw, dw->tls_start, kept, &dw->tls_index);
}

/* libdwarf's message without its error number and code ("DW_DLE_...
 * (48)"), which tell a user nothing. */
static const char *plain_errmsg(const char *msg)
{
    if (strncmp(msg, "DW_DLE_", 7) != 0)
        return msg;
    const char *text = msg + strcspn(msg, " :(");
    text += strspn(text, " :");
    if (*text == '(' && strchr(text, ')'))
        text = strchr(text, ')') + 1;
    text += strspn(text, " :");
    return *text ? text : msg;
}

dwarf_info *dwarf_info_load(const elf_image *img, bool *corrupt, char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    *corrupt = false;
    const char *path = elf_image_path(img);
    /* The system's libdwarf may die on malformed sections: a child reads
     * them first (dwarf_probe.c). */
    if (!dwarf_probe_survives(path, err, errlen)) {
        *corrupt = true;
        return NULL;
    }
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
            *corrupt = true;
            error_text(err, errlen, "%s", ld.error ? plain_errmsg(dwarf_errmsg(ld.error)) : "libdwarf cannot read it");
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
    ld.img = img;
    ld.code_sections = calloc(section_count ? section_count : 1, sizeof *ld.code_sections);
    ld.dw = calloc(1, sizeof *ld.dw);
    ld.types = ld.dw ? type_reader_new(ld.dbg, &ld.dw->strings) : NULL;
    if (ld.code_sections && ld.dw && ld.types) {
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
    if (ld.types && ld.dw)
        ld.dw->type_count = type_reader_type_count(ld.types);
    type_reader_free(ld.types);

    dwarf_info *dw = ld.dw;
    if (!ld.out_of_memory && dw) {
        compact_rows(dw);
        merge_code_ranges(dw);
        ld.out_of_memory = !index_named_ranges(&dw->functions) || !index_named_ranges(&dw->inlined) || !index_variables(dw, img);
    }
    if (ld.out_of_memory) {
        error_text(err, errlen, "out of memory reading DWARF");
        dwarf_info_free(dw);
        return NULL;
    }
    *corrupt = ld.unit_list_broken || ld.read_errors > 0;
    const char *why = ld.read_errors ? plain_errmsg(ld.first_error) : "a bad compilation unit header";
    if (dw->row_count == 0 && dw->functions.count == 0 && dw->variable_count == 0) {
        if (*corrupt)
            error_text(err, errlen, "%s", why);
        else
            error_text(err, errlen, "%s", dw->cu_count ? "DWARF describes no code of this file" : "no DWARF");
        dwarf_info_free(dw);
        return NULL;
    }
    if (*corrupt)
        error_text(err, errlen, "%s%s", why,
                   ld.unit_list_broken ? "; the compilation units after it were skipped" : "");
    return dw;
}

void dwarf_info_free(dwarf_info *dw)
{
    if (!dw)
        return;
    arena_free(&dw->strings);
    free(dw->rows);
    free(dw->functions.items);
    range_index_free(&dw->functions.index);
    free(dw->inlined.items);
    range_index_free(&dw->inlined.index);
    free(dw->code_ranges);
    free(dw->variables);
    range_index_free(&dw->global_index);
    range_index_free(&dw->tls_index);
    free(dw->by_name);
    free(dw->pointers);
    free(dw->omp_fns);
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
    const struct named_range *fn = named_range_at(&dw->functions, addr);
    if (fn && start)
        *start = fn->lo;
    return fn ? fn->name : NULL;
}

size_t dwarf_info_code_ranges(const dwarf_info *dw, const struct addr_range **out)
{
    *out = dw->code_ranges;
    return dw->code_range_count;
}

const char *dwarf_info_inlined_at(const dwarf_info *dw, uint64_t addr)
{
    const struct named_range *inlined = named_range_at(&dw->inlined, addr);
    return inlined ? inlined->name : NULL;
}

bool dwarf_info_inlined_call_outside(const dwarf_info *dw, uint64_t addr, const char *prefix, struct dwarf_line *out)
{
    /* Items are in walk order, an inlined callee after its caller: from the
     * last one that contains addr outward. A linear search: only reports
     * ask, a few times each. */
    size_t plen = strlen(prefix);
    for (size_t i = dw->inlined.count; i-- > 0;) {
        const struct named_range *r = &dw->inlined.items[i];
        if (addr < r->lo || addr >= r->hi || !r->call_file || strncmp(r->call_file, prefix, plen) == 0)
            continue;
        *out = (struct dwarf_line){ r->call_file, r->call_line, 0 };
        return true;
    }
    return false;
}

size_t dwarf_info_inline_chain(const dwarf_info *dw, uint64_t addr, struct dwarf_inline_call *out, size_t max)
{
    size_t count = 0;
    for (const struct range_entry *e = range_index_containing(&dw->inlined.index, addr, NULL);
         e && count < max; e = range_index_containing(&dw->inlined.index, addr, e)) {
        const struct named_range *r = &dw->inlined.items[e->item];
        out[count++] = (struct dwarf_inline_call){ r->name, r->call_file, r->call_line };
    }
    return count;
}

size_t dwarf_info_variables(const dwarf_info *dw, const struct dwarf_variable **out)
{
    *out = dw->variables;
    return dw->variable_count;
}

const struct dwarf_variable *dwarf_info_variable_at(const dwarf_info *dw, uint64_t addr, bool tls)
{
    const struct range_entry *entry =
        range_index_containing(tls ? &dw->tls_index : &dw->global_index, addr, NULL);
    return entry ? &dw->variables[entry->item] : NULL;
}

size_t dwarf_info_variables_named(const dwarf_info *dw, const char *name,
                                  const struct dwarf_variable **out, size_t max)
{
    size_t lo = 0, hi = dw->variable_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(dw->by_name[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t found = 0;
    for (size_t i = lo; i < dw->variable_count && strcmp(dw->by_name[i]->name, name) == 0; i++) {
        if (found < max)
            out[found] = dw->by_name[i];
        found++;
    }
    return found;
}

size_t dwarf_info_pointer_variables(const dwarf_info *dw, const struct dwarf_variable *const **out)
{
    *out = dw->pointers;
    return dw->pointer_count;
}

const struct dwarf_type *dwarf_info_omp_data_type(const dwarf_info *dw, uint64_t entry)
{
    for (size_t i = 0; i < dw->omp_fn_count; i++)
        if (dw->omp_fns[i].entry == entry)
            return dw->omp_fns[i].data_type;
    return NULL;
}

bool dwarf_info_first_line_outside(const dwarf_info *dw, uint64_t lo, uint64_t hi, const char *prefix,
                                   uint64_t *addr)
{
    size_t first = 0, last = dw->row_count;
    while (first < last) {
        size_t mid = first + (last - first) / 2;
        if (dw->rows[mid].addr < lo)
            first = mid + 1;
        else
            last = mid;
    }
    size_t plen = strlen(prefix);
    for (size_t i = first; i < dw->row_count && dw->rows[i].addr < hi; i++) {
        const struct line_row *r = &dw->rows[i];
        if (!r->end_sequence && r->file && r->line && strncmp(r->file, prefix, plen) != 0) {
            *addr = r->addr;
            return true;
        }
    }
    return false;
}

size_t dwarf_info_cu_count(const dwarf_info *dw) { return dw->cu_count; }
size_t dwarf_info_split_cu_count(const dwarf_info *dw) { return dw->split_cu_count; }
size_t dwarf_info_type_count(const dwarf_info *dw) { return dw->type_count; }

size_t dwarf_info_row_count(const dwarf_info *dw) { return dw->row_count; }
size_t dwarf_info_function_count(const dwarf_info *dw) { return dw->functions.count; }
