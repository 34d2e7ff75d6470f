/* dwarf_type_reader: DWARF type DIEs -> dwarf_type, without recursion.
 *
 * A reference to a type DIE gets its dwarf_type at once (an empty shell,
 * entered in the offset table and queued); the queue is drained before an
 * answer is returned. So a struct whose member points back at it, or a long
 * chain of pointer types, costs no stack, and each DIE is read once. Sizes
 * that depend on other types (arrays, typedefs) are derived after draining,
 * when everything they depend on has been read. */
#include "supervisor/debuginfo/dwarf_type_reader.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/dwarf_access.h"

struct queued {
    struct dwarf_type *type;
    Dwarf_Off offset;
};

struct type_reader {
    Dwarf_Debug dbg;
    struct arena *arena;
    Dwarf_Off *keys;                 /* offset table, open addressing; 0 = empty */
    struct dwarf_type **values;
    size_t slot_count, used;
    struct queued *queue;
    size_t queue_count, queue_cap;
    struct dwarf_type **fresh;       /* created since the last answer: sizes to derive */
    size_t fresh_count, fresh_cap;
    bool out_of_memory;
};

/* Where a type cannot be read, callers still get a type that says so. */
static const struct dwarf_type unknown_type = { .kind = DWARF_TYPE_UNKNOWN, .name = "?" };

enum { ARRAY_DIMENSION_LIMIT = 16 };

struct type_reader *type_reader_new(Dwarf_Debug dbg, struct arena *arena)
{
    struct type_reader *tr = calloc(1, sizeof *tr);
    if (tr) {
        tr->dbg = dbg;
        tr->arena = arena;
    }
    return tr;
}

void type_reader_free(struct type_reader *tr)
{
    if (!tr)
        return;
    free(tr->keys);
    free(tr->values);
    free(tr->queue);
    free(tr->fresh);
    free(tr);
}

bool type_reader_out_of_memory(const struct type_reader *tr) { return tr->out_of_memory; }
size_t type_reader_type_count(const struct type_reader *tr) { return tr->used; }

static size_t slot_of(const struct type_reader *tr, Dwarf_Off offset)
{
    size_t mask = tr->slot_count - 1;
    size_t i = (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 17) & mask;
    while (tr->keys[i] && tr->keys[i] != offset)
        i = (i + 1) & mask;
    return i;
}

static bool grow_table(struct type_reader *tr)
{
    size_t old_count = tr->slot_count;
    Dwarf_Off *old_keys = tr->keys;
    struct dwarf_type **old_values = tr->values;
    size_t new_count = old_count ? old_count * 2 : 1024;
    tr->keys = calloc(new_count, sizeof *tr->keys);
    tr->values = calloc(new_count, sizeof *tr->values);
    if (!tr->keys || !tr->values) {
        free(tr->keys);
        free(tr->values);
        tr->keys = old_keys;
        tr->values = old_values;
        return false;
    }
    tr->slot_count = new_count;
    for (size_t i = 0; i < old_count; i++) {
        if (!old_keys[i])
            continue;
        size_t j = slot_of(tr, old_keys[i]);
        tr->keys[j] = old_keys[i];
        tr->values[j] = old_values[i];
    }
    free(old_keys);
    free(old_values);
    return true;
}

static struct dwarf_type *new_type(struct type_reader *tr)
{
    struct dwarf_type *t = arena_alloc(tr->arena, sizeof *t);
    if (!t || !ARRAY_ROOM(tr->fresh, tr->fresh_count, tr->fresh_cap)) {
        tr->out_of_memory = true;
        return NULL;
    }
    t->kind = DWARF_TYPE_UNKNOWN;
    tr->fresh[tr->fresh_count++] = t;
    return t;
}

/* The type of the DIE at offset: known, or a queued shell. */
static const struct dwarf_type *type_at(struct type_reader *tr, Dwarf_Off offset)
{
    if (offset == 0 || tr->out_of_memory)
        return &unknown_type;
    if ((tr->used + 1) * 2 > tr->slot_count && !grow_table(tr)) {
        tr->out_of_memory = true;
        return &unknown_type;
    }
    size_t slot = slot_of(tr, offset);
    if (tr->keys[slot])
        return tr->values[slot];
    struct dwarf_type *t = new_type(tr);
    if (!t || !ARRAY_ROOM(tr->queue, tr->queue_count, tr->queue_cap)) {
        tr->out_of_memory = true;
        return &unknown_type;
    }
    tr->keys[slot] = offset;
    tr->values[slot] = t;
    tr->used++;
    tr->queue[tr->queue_count++] = (struct queued){ t, offset };
    return t;
}

/* A DIE's own DW_AT_type; NULL (void) when it has none. */
static const struct dwarf_type *referenced_type(struct type_reader *tr, Dwarf_Die die)
{
    if (!dw_has_attr(tr->dbg, die, DW_AT_type))
        return NULL;
    Dwarf_Off offset;
    return dw_attr_ref(tr->dbg, die, DW_AT_type, &offset) ? type_at(tr, offset) : &unknown_type;
}

static const char *interned_name(struct type_reader *tr, Dwarf_Die die)
{
    Dwarf_Error error = NULL;
    char *name = NULL;
    if (dw_checked(tr->dbg, &error, dwarf_diename(die, &name, &error)) != DW_DLV_OK || !name)
        return NULL;
    const char *copy = arena_intern(tr->arena, name);
    if (!copy)
        tr->out_of_memory = true;
    return copy;
}

static Dwarf_Die first_child(struct type_reader *tr, Dwarf_Die die)
{
    Dwarf_Error error = NULL;
    Dwarf_Die child = NULL;
    if (dw_checked(tr->dbg, &error, dwarf_child(die, &child, &error)) != DW_DLV_OK)
        return NULL;
    return child;
}

/* The next sibling; releases die. */
static Dwarf_Die next_sibling(struct type_reader *tr, Dwarf_Die die)
{
    Dwarf_Error error = NULL;
    Dwarf_Die sibling = NULL;
    int rc = dw_checked(tr->dbg, &error, dwarf_siblingof_b(tr->dbg, die, 1, &sibling, &error));
    dwarf_dealloc_die(die);
    return rc == DW_DLV_OK ? sibling : NULL;
}

static Dwarf_Half tag_of(struct type_reader *tr, Dwarf_Die die)
{
    Dwarf_Error error = NULL;
    Dwarf_Half tag = 0;
    dw_checked(tr->dbg, &error, dwarf_tag(die, &tag, &error));
    return tag;
}

static void *arena_copy(struct type_reader *tr, const void *items, size_t size)
{
    void *copy = arena_alloc(tr->arena, size);
    if (!copy)
        tr->out_of_memory = true;
    else if (size)
        memcpy(copy, items, size);
    return copy;
}

/* DW_AT_data_member_location: a constant since DWARF 4, before that an
 * expression (DW_OP_plus_uconst N). Union members have none: offset 0. */
static uint64_t member_location(struct type_reader *tr, Dwarf_Die die)
{
    uint64_t offset = 0;
    if (dw_attr_unsigned(tr->dbg, die, DW_AT_data_member_location, &offset))
        return offset;
    Dwarf_Error error = NULL;
    Dwarf_Attribute attr = NULL;
    if (dw_checked(tr->dbg, &error, dwarf_attr(die, DW_AT_data_member_location, &attr, &error)) !=
        DW_DLV_OK)
        return 0;
    struct dw_op op;
    if (dw_expression(tr->dbg, attr, &op, 1) == 1 &&
        (op.atom == DW_OP_plus_uconst || op.atom == DW_OP_constu))
        offset = op.operand;
    dwarf_dealloc_attribute(attr);
    return offset;
}

static struct dwarf_member read_member(struct type_reader *tr, Dwarf_Die die, Dwarf_Half tag)
{
    struct dwarf_member m = {
        .name = tag == DW_TAG_member ? interned_name(tr, die) : NULL,
        .type = referenced_type(tr, die),
        .offset = member_location(tr, die),
    };
    uint64_t bit_size, bits;
    if (!dw_attr_unsigned(tr->dbg, die, DW_AT_bit_size, &bit_size) || bit_size == 0 || bit_size > 64)
        return m;
    /* DWARF 4+: DW_AT_data_bit_offset counts from the start of the struct.
     * DWARF 2/3: DW_AT_bit_offset counts from the most significant bit of a
     * storage unit of DW_AT_byte_size bytes at the member location. */
    uint64_t first_bit = m.offset * 8;
    if (dw_attr_unsigned(tr->dbg, die, DW_AT_data_bit_offset, &bits)) {
        first_bit = bits;
    } else if (dw_attr_unsigned(tr->dbg, die, DW_AT_bit_offset, &bits)) {
        uint64_t unit = 4;
        dw_attr_unsigned(tr->dbg, die, DW_AT_byte_size, &unit);
        if (unit * 8 >= bits + bit_size)
            first_bit = m.offset * 8 + unit * 8 - bits - bit_size;
    }
    m.offset = first_bit / 8;
    m.bit_offset = (uint32_t)(first_bit % 8);
    m.bit_size = (uint32_t)bit_size;
    return m;
}

/* Members of a struct/union/class, or parameters of a function type. */
static void read_members(struct type_reader *tr, struct dwarf_type *t, Dwarf_Die die)
{
    struct dwarf_member *members = NULL;
    size_t count = 0, cap = 0;
    for (Dwarf_Die child = first_child(tr, die); child; child = next_sibling(tr, child)) {
        Dwarf_Half tag = tag_of(tr, child);
        if (t->kind == DWARF_TYPE_FUNCTION) {
            if (tag == DW_TAG_unspecified_parameters)
                t->variadic = true;
            if (tag != DW_TAG_formal_parameter)
                continue;
        } else if (tag != DW_TAG_member && tag != DW_TAG_inheritance) {
            continue;
        } else if (dw_has_attr(tr->dbg, child, DW_AT_external) ||
                   dw_has_attr(tr->dbg, child, DW_AT_declaration)) {
            continue; /* a C++ static member: not part of the object */
        }
        if (!ARRAY_ROOM(members, count, cap)) {
            tr->out_of_memory = true;
            break;
        }
        members[count++] = t->kind == DWARF_TYPE_FUNCTION
                               ? (struct dwarf_member){ .type = referenced_type(tr, child) }
                               : read_member(tr, child, tag);
    }
    t->members = arena_copy(tr, members, count * sizeof *members);
    t->member_count = t->members ? count : 0;
    free(members);
}

static void read_enumerators(struct type_reader *tr, struct dwarf_type *t, Dwarf_Die die)
{
    struct dwarf_enumerator *items = NULL;
    size_t count = 0, cap = 0;
    bool negative = false;
    for (Dwarf_Die child = first_child(tr, die); child; child = next_sibling(tr, child)) {
        if (tag_of(tr, child) != DW_TAG_enumerator)
            continue;
        Dwarf_Error error = NULL;
        Dwarf_Attribute attr = NULL;
        if (dw_checked(tr->dbg, &error, dwarf_attr(child, DW_AT_const_value, &attr, &error)) !=
            DW_DLV_OK)
            continue;
        Dwarf_Half form = 0;
        Dwarf_Signed s = 0;
        Dwarf_Unsigned u = 0;
        dw_checked(tr->dbg, &error, dwarf_whatform(attr, &form, &error));
        bool ok;
        if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
            ok = dw_checked(tr->dbg, &error, dwarf_formsdata(attr, &s, &error)) == DW_DLV_OK;
            negative |= ok && s < 0;
        } else {
            ok = dw_checked(tr->dbg, &error, dwarf_formudata(attr, &u, &error)) == DW_DLV_OK;
            s = (Dwarf_Signed)u;
        }
        dwarf_dealloc_attribute(attr);
        if (!ok)
            continue;
        if (!ARRAY_ROOM(items, count, cap)) {
            tr->out_of_memory = true;
            break;
        }
        items[count++] = (struct dwarf_enumerator){ interned_name(tr, child), (int64_t)s };
    }
    t->enumerators = arena_copy(tr, items, count * sizeof *items);
    t->enumerator_count = t->enumerators ? count : 0;
    t->encoding = negative ? DWARF_ENC_SIGNED : DWARF_ENC_UNSIGNED;
    free(items);
}

/* Element count of one DW_TAG_subrange_type; false when unknown (int x[],
 * flexible array members, VLAs whose bound is an expression). */
static bool subrange_count(struct type_reader *tr, Dwarf_Die die, uint64_t *count)
{
    uint64_t value, lower = 0;
    if (dw_attr_unsigned(tr->dbg, die, DW_AT_count, &value)) {
        *count = value;
    } else if (dw_attr_unsigned(tr->dbg, die, DW_AT_upper_bound, &value)) {
        dw_attr_unsigned(tr->dbg, die, DW_AT_lower_bound, &lower);
        if (value + 1 < lower)
            return false;
        *count = value + 1 - lower;
    } else {
        return false;
    }
    return *count < ((uint64_t)1 << 40); /* -1 written as unsigned means "unknown" too */
}

/* One DW_TAG_array_type with several subranges is int x[2][3]: an array of
 * 2 arrays of 3; the inner arrays have no DIE of their own. */
static void read_array(struct type_reader *tr, struct dwarf_type *t, Dwarf_Die die)
{
    const struct dwarf_type *element = referenced_type(tr, die);
    struct dwarf_type *level = t;
    size_t dimensions = 0;
    for (Dwarf_Die child = first_child(tr, die); child; child = next_sibling(tr, child)) {
        Dwarf_Half tag = tag_of(tr, child);
        if ((tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type) ||
            dimensions == ARRAY_DIMENSION_LIMIT)
            continue;
        if (dimensions > 0) {
            struct dwarf_type *inner = new_type(tr);
            if (!inner)
                continue;
            level->target = inner;
            level = inner;
        }
        level->kind = DWARF_TYPE_ARRAY;
        level->count_known = subrange_count(tr, child, &level->count);
        dimensions++;
    }
    level->target = element;
    t->kind = DWARF_TYPE_ARRAY; /* also when there was no subrange at all */
}

static enum dwarf_encoding base_encoding(uint64_t ate)
{
    switch (ate) {
    case DW_ATE_signed: return DWARF_ENC_SIGNED;
    case DW_ATE_unsigned: case DW_ATE_UTF: return DWARF_ENC_UNSIGNED;
    case DW_ATE_signed_char: return DWARF_ENC_SIGNED_CHAR;
    case DW_ATE_unsigned_char: return DWARF_ENC_UNSIGNED_CHAR;
    case DW_ATE_boolean: return DWARF_ENC_BOOL;
    case DW_ATE_float: return DWARF_ENC_FLOAT;
    default: return DWARF_ENC_NONE;
    }
}

/* gcc spells "long unsigned int" where clang and people say "unsigned long":
 * one spelling whichever compiler built the program. */
static const char *base_type_name(struct type_reader *tr, Dwarf_Die die)
{
    static const char *const spellings[][2] = {
        { "long int", "long" },
        { "long unsigned int", "unsigned long" },
        { "short int", "short" },
        { "short unsigned int", "unsigned short" },
        { "long long int", "long long" },
        { "long long unsigned int", "unsigned long long" },
        { "__int128 unsigned", "unsigned __int128" },
    };
    const char *name = interned_name(tr, die);
    for (size_t i = 0; name && i < sizeof spellings / sizeof spellings[0]; i++)
        if (strcmp(name, spellings[i][0]) == 0)
            return spellings[i][1];
    return name;
}

static void read_type_die(struct type_reader *tr, struct dwarf_type *t, Dwarf_Die die)
{
    uint64_t value;
    if (dw_attr_unsigned(tr->dbg, die, DW_AT_byte_size, &value))
        t->size = value;
    Dwarf_Half tag = tag_of(tr, die);
    switch (tag) {
    case DW_TAG_base_type:
        t->kind = DWARF_TYPE_BASE;
        t->name = base_type_name(tr, die);
        if (dw_attr_unsigned(tr->dbg, die, DW_AT_encoding, &value))
            t->encoding = base_encoding(value);
        return;
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
        t->kind = DWARF_TYPE_POINTER;
        t->target = referenced_type(tr, die);
        return;
    case DW_TAG_typedef:
        t->kind = DWARF_TYPE_TYPEDEF;
        t->name = interned_name(tr, die);
        t->target = referenced_type(tr, die);
        return;
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type:
    case DW_TAG_atomic_type:
        t->kind = tag == DW_TAG_const_type      ? DWARF_TYPE_CONST
                  : tag == DW_TAG_volatile_type ? DWARF_TYPE_VOLATILE
                  : tag == DW_TAG_restrict_type ? DWARF_TYPE_RESTRICT
                                                : DWARF_TYPE_ATOMIC;
        t->target = referenced_type(tr, die);
        return;
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_class_type:
        t->kind = tag == DW_TAG_structure_type ? DWARF_TYPE_STRUCT
                  : tag == DW_TAG_union_type   ? DWARF_TYPE_UNION
                                               : DWARF_TYPE_CLASS;
        t->name = interned_name(tr, die);
        read_members(tr, t, die);
        return;
    case DW_TAG_enumeration_type:
        t->kind = DWARF_TYPE_ENUM;
        t->name = interned_name(tr, die);
        t->target = referenced_type(tr, die);
        read_enumerators(tr, t, die);
        return;
    case DW_TAG_array_type:
        read_array(tr, t, die);
        return;
    case DW_TAG_subroutine_type:
        t->kind = DWARF_TYPE_FUNCTION;
        t->target = referenced_type(tr, die);
        read_members(tr, t, die);
        return;
    default:
        t->name = interned_name(tr, die);
        return;
    }
}

/* The reader owns every type it made, so finishing them through the const
 * pointers the model uses between types is its right. */
static uint64_t derive_size(const struct dwarf_type *ct, int depth)
{
    struct dwarf_type *t = (struct dwarf_type *)ct;
    if (!t || t == &unknown_type || t->size || depth > 64)
        return t ? t->size : 0;
    switch (t->kind) {
    case DWARF_TYPE_TYPEDEF:
    case DWARF_TYPE_CONST:
    case DWARF_TYPE_VOLATILE:
    case DWARF_TYPE_RESTRICT:
    case DWARF_TYPE_ATOMIC:
        t->size = derive_size(t->target, depth + 1);
        break;
    case DWARF_TYPE_ARRAY:
        t->size = t->count_known ? t->count * derive_size(t->target, depth + 1) : 0;
        break;
    case DWARF_TYPE_ENUM:
        t->size = t->target ? derive_size(t->target, depth + 1) : 4;
        break;
    case DWARF_TYPE_POINTER:
        t->size = 8;
        break;
    default:
        break;
    }
    return t->size;
}

static void finish_fresh_types(struct type_reader *tr)
{
    for (size_t i = 0; i < tr->fresh_count; i++) {
        struct dwarf_type *t = tr->fresh[i];
        derive_size(t, 0);
        /* An enum is as signed as the integer type under it (DWARF 3+). */
        const struct dwarf_type *base = dwarf_type_strip(t->target);
        if (t->kind == DWARF_TYPE_ENUM && base && base->kind == DWARF_TYPE_BASE)
            t->encoding = base->encoding == DWARF_ENC_SIGNED ? DWARF_ENC_SIGNED : DWARF_ENC_UNSIGNED;
    }
    tr->fresh_count = 0;
}

const struct dwarf_type *type_reader_type_of(struct type_reader *tr, Dwarf_Die die)
{
    Dwarf_Die owner = dw_owner_of(tr->dbg, die, DW_AT_type);
    if (!owner)
        return NULL;
    const struct dwarf_type *type = referenced_type(tr, owner);
    if (owner != die)
        dwarf_dealloc_die(owner);
    while (tr->queue_count > 0 && !tr->out_of_memory) {
        struct queued next = tr->queue[--tr->queue_count];
        Dwarf_Die type_die = dw_die_at(tr->dbg, next.offset);
        if (!type_die)
            continue; /* stays DWARF_TYPE_UNKNOWN */
        read_type_die(tr, next.type, type_die);
        dwarf_dealloc_die(type_die);
    }
    finish_fresh_types(tr);
    return type;
}
