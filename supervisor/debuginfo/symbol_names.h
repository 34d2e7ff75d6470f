/* symbol_names: ELF symbols as traces name them (internal to debuginfo).
 *
 * Owns the demangled forms of a file's C++ symbols, made the first time a
 * symbol is shown and kept as long as the file is loaded ("_ZNSt6thread4joinEv"
 * -> "std::thread::join", "_ZTV7Account" -> "vtable for Account"): a
 * library has thousands of symbols and a trace shows a few. C names are
 * shown as they are, without a copy. Also finds a C++ function by its
 * demangled name. */
#ifndef MDAT_SUPERVISOR_SYMBOL_NAMES_H
#define MDAT_SUPERVISOR_SYMBOL_NAMES_H

#include "supervisor/debuginfo/elf_image.h"

struct symbol_names;

struct symbol_names *symbol_names_new(void);
void symbol_names_free(struct symbol_names *names);
/* sym's name as shown: valid while names lives. On allocation failure, the
 * symbol's own name. */
const char *symbol_names_get(struct symbol_names *names, const struct elf_symbol *sym);
/* The address of img's C++ function whose demangled name without return
 * type and parameters is name, 0 if none. The first call demangles every
 * C++ function symbol of img once (img must be the same file each time). */
uint64_t symbol_names_find_function(struct symbol_names *names, const elf_image *img, const char *name);

#endif
