/* dwarf_names: qualified C++ function names and lambda bodies from DWARF.
 *
 * A C++ member function's DW_AT_name is only "deposit"; its linkage name
 * demangles to "Account::deposit(int)", which cxx_names turns into
 * "Account::deposit". The C++ library's own functions keep their short
 * DWARF names ("_M_run", "swap<std::thread::id>"): their qualified names
 * are templates a line wide. g++ gives a lambda's operator() no linkage
 * name: it is known by where its DIE sits. */
#include "supervisor/debuginfo/dwarf_names.h"
#include "supervisor/debuginfo/cxx_names.h"
#include "supervisor/debuginfo/dwarf_access.h"

#include <stdio.h>
#include <string.h>

/* Longer qualified names make the trace's where column unreadable. */
enum { READABLE_MAX = 64 };

static bool is_library_name(const char *s)
{
    return strncmp(s, "std::", 5) == 0 || strncmp(s, "__gnu_cxx::", 11) == 0 || strncmp(s, "__", 2) == 0;
}

bool dwarf_function_display(Dwarf_Debug dbg, Dwarf_Die die, const char *name, const char *lambda_scope, char *buf,
                            size_t len)
{
    if (!name)
        return false;
    if (lambda_scope && strcmp(name, "operator()") == 0) {
        snprintf(buf, len, "lambda in %s", lambda_scope);
        return true;
    }
    if (strchr(name, '<'))
        return false;
    const char *linkage = dw_linkage_name(dbg, die);
    if (!linkage)
        return false;
    char readable[256];
    cxx_readable_symbol(linkage, true, readable, sizeof readable);
    if (!readable[0] || strcmp(readable, name) == 0 || is_library_name(readable) ||
        strlen(readable) > READABLE_MAX)
        return false;
    snprintf(buf, len, "%s", readable);
    return true;
}

bool dwarf_library_call_display(Dwarf_Debug dbg, Dwarf_Die die, char *buf, size_t len)
{
    const char *linkage = dw_linkage_name(dbg, die);
    return linkage && cxx_library_call_name(linkage, buf, len);
}
