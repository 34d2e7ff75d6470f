/* elf_plt: which function each PLT stub of an ELF file calls.
 *
 * A call from a program into a shared library goes through a stub in .plt
 * (or .plt.sec when the file was built for IBT, or .plt.got for a function
 * whose address is also taken) that jumps through a GOT slot; the dynamic
 * relocation of that slot names the function. This owns reading those
 * relocations and matching each stub to its slot, from the section bytes
 * alone. File addresses, as elf_image's. */
#ifndef MDAT_DEBUGINFO_ELF_PLT_H
#define MDAT_DEBUGINFO_ELF_PLT_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/elf_image.h"

typedef struct elf_plt elf_plt;

/* The stubs of img (an empty table when it has none: a static binary). NULL
 * only when out of memory. */
elf_plt *elf_plt_build(const elf_image *img);
void elf_plt_free(elf_plt *p);

/* The function the stub at addr jumps to ("pthread_mutex_lock",
 * "GOMP_barrier"), NULL when addr is not the start of a stub. */
const char *elf_plt_name_at(const elf_plt *p, uint64_t addr);
/* Every stub, sorted by address (elf_symbol.addr is the stub, .size its
 * length, .name the function). */
size_t elf_plt_stubs(const elf_plt *p, const struct elf_symbol **out);
/* The file may reach function `name` other than through one of its stubs:
 * a call slot no stub jumps through (-fno-plt), or a slot that holds the
 * function's address (R_X86_64_GLOB_DAT: a pointer to it can be called
 * from anywhere, even where a .plt.got stub also uses the slot). */
bool elf_plt_imports_unstubbed(const elf_plt *p, const char *name);
/* The file imports function `name` at all (through a stub or not). */
bool elf_plt_imports(const elf_plt *p, const char *name);

#endif
