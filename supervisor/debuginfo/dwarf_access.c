/* dwarf_access: small libdwarf helpers shared by dwarf_info and the type reader. */
#include "supervisor/debuginfo/dwarf_access.h"

#include <dwarf.h>

int dw_checked(Dwarf_Debug dbg, Dwarf_Error *error, int rc)
{
    if (rc == DW_DLV_ERROR && *error) {
        dwarf_dealloc_error(dbg, *error);
        *error = NULL;
    }
    return rc;
}

static Dwarf_Attribute attribute(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum)
{
    Dwarf_Error error = NULL;
    Dwarf_Attribute attr = NULL;
    if (dw_checked(dbg, &error, dwarf_attr(die, attrnum, &attr, &error)) != DW_DLV_OK)
        return NULL;
    return attr;
}

bool dw_attr_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum, Dwarf_Off *offset)
{
    Dwarf_Attribute attr = attribute(dbg, die, attrnum);
    if (!attr)
        return false;
    Dwarf_Error error = NULL;
    bool ok = dw_checked(dbg, &error, dwarf_global_formref(attr, offset, &error)) == DW_DLV_OK;
    dwarf_dealloc_attribute(attr);
    return ok;
}

bool dw_attr_unsigned(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum, uint64_t *value)
{
    Dwarf_Attribute attr = attribute(dbg, die, attrnum);
    if (!attr)
        return false;
    Dwarf_Error error = NULL;
    Dwarf_Unsigned u;
    Dwarf_Signed s;
    Dwarf_Half form = 0;
    bool ok;
    /* DWARF 5's DW_FORM_implicit_const (gcc 12 gives DW_AT_call_file and
     * DW_AT_decl_file that form when many DIEs share the value): libdwarf
     * 20210528 reads it only as signed data. */
    if (dw_checked(dbg, &error, dwarf_whatform(attr, &form, &error)) == DW_DLV_OK && form == DW_FORM_implicit_const) {
        ok = dw_checked(dbg, &error, dwarf_formsdata(attr, &s, &error)) == DW_DLV_OK && s >= 0;
        u = ok ? (Dwarf_Unsigned)s : 0;
    } else {
        ok = dw_checked(dbg, &error, dwarf_formudata(attr, &u, &error)) == DW_DLV_OK;
    }
    if (ok)
        *value = u;
    dwarf_dealloc_attribute(attr);
    return ok;
}

bool dw_has_attr(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum)
{
    Dwarf_Error error = NULL;
    Dwarf_Bool has = 0;
    return dw_checked(dbg, &error, dwarf_hasattr(die, attrnum, &has, &error)) == DW_DLV_OK && has;
}

Dwarf_Die dw_die_at(Dwarf_Debug dbg, Dwarf_Off offset)
{
    Dwarf_Error error = NULL;
    Dwarf_Die die = NULL;
    if (dw_checked(dbg, &error, dwarf_offdie_b(dbg, offset, 1, &die, &error)) != DW_DLV_OK)
        return NULL;
    return die;
}

Dwarf_Die dw_owner_of(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half attrnum)
{
    static const Dwarf_Half links[] = { DW_AT_abstract_origin, DW_AT_specification };
    Dwarf_Die current = die;
    for (int hop = 0; hop < 4 && current; hop++) {
        if (dw_has_attr(dbg, current, attrnum))
            return current;
        Dwarf_Die target = NULL;
        for (size_t k = 0; k < sizeof links / sizeof links[0] && !target; k++) {
            Dwarf_Off offset;
            if (dw_attr_ref(dbg, current, links[k], &offset))
                target = dw_die_at(dbg, offset);
        }
        if (current != die)
            dwarf_dealloc_die(current);
        current = target;
    }
    if (current && current != die)
        dwarf_dealloc_die(current);
    return NULL;
}

const char *dw_name(Dwarf_Debug dbg, Dwarf_Die die)
{
    Dwarf_Die owner = dw_owner_of(dbg, die, DW_AT_name);
    if (!owner)
        return NULL;
    Dwarf_Error error = NULL;
    char *name = NULL;
    if (dw_checked(dbg, &error, dwarf_diename(owner, &name, &error)) != DW_DLV_OK)
        name = NULL;
    if (owner != die)
        dwarf_dealloc_die(owner);
    return name;
}

const char *dw_linkage_name(Dwarf_Debug dbg, Dwarf_Die die)
{
    Dwarf_Half attr = DW_AT_linkage_name;
    Dwarf_Die owner = dw_owner_of(dbg, die, attr);
    if (!owner) {
        attr = DW_AT_MIPS_linkage_name;     /* DWARF 2 and 3 producers */
        owner = dw_owner_of(dbg, die, attr);
    }
    if (!owner)
        return NULL;
    Dwarf_Error error = NULL;
    Dwarf_Attribute value = NULL;
    char *name = NULL;
    if (dw_checked(dbg, &error, dwarf_attr(owner, attr, &value, &error)) == DW_DLV_OK) {
        if (dw_checked(dbg, &error, dwarf_formstring(value, &name, &error)) != DW_DLV_OK)
            name = NULL;
        dwarf_dealloc_attribute(value);
    }
    if (owner != die)
        dwarf_dealloc_die(owner);
    return name;
}

size_t dw_expression(Dwarf_Debug dbg, Dwarf_Attribute attr, struct dw_op *ops, size_t max)
{
    Dwarf_Error error = NULL;
    Dwarf_Loc_Head_c head = NULL;
    Dwarf_Unsigned list_length = 0;
    if (dw_checked(dbg, &error, dwarf_get_loclist_c(attr, &head, &list_length, &error)) != DW_DLV_OK)
        return 0;
    unsigned kind = DW_LKIND_unknown;
    size_t count = 0;
    Dwarf_Small lle, source;
    Dwarf_Unsigned raw_lo, raw_hi, op_count = 0, expr_offset, desc_offset;
    Dwarf_Bool unavailable;
    Dwarf_Addr lo, hi;
    Dwarf_Locdesc_c desc = NULL;
    if (dw_checked(dbg, &error, dwarf_get_loclist_head_kind(head, &kind, &error)) == DW_DLV_OK &&
        kind == DW_LKIND_expression && list_length == 1 &&
        dw_checked(dbg, &error,
                   dwarf_get_locdesc_entry_d(head, 0, &lle, &raw_lo, &raw_hi, &unavailable, &lo, &hi,
                                             &op_count, &desc, &source, &expr_offset, &desc_offset,
                                             &error)) == DW_DLV_OK) {
        for (Dwarf_Unsigned i = 0; i < op_count; i++) {
            Dwarf_Small atom;
            Dwarf_Unsigned op1, op2, op3, raw1, raw2, raw3, branch;
            if (dw_checked(dbg, &error,
                           dwarf_get_location_op_value_d(desc, i, &atom, &op1, &op2, &op3, &raw1,
                                                         &raw2, &raw3, &branch, &error)) != DW_DLV_OK) {
                count = 0;
                break;
            }
            if (count < max)
                ops[count] = (struct dw_op){ atom, op1 };
            count++;
        }
    }
    dwarf_loc_head_c_dealloc(head);
    return count;
}
