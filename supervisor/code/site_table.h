/* site_table: the breakpoint sites of one module (the executable, or a
 * shared library of the program's own).
 *
 * Owns the linear decoding of a module's code into the instructions that may
 * be visible operations (decided per function: whether rbp is a frame
 * pointer, from symbols or the unwind table), the ranges that are the
 * user's code, and the code sections with an int3 on every site, written
 * into an address space in one go. code_map.c decides which modules get a
 * table and plants it. */
#ifndef MDAT_ENGINE_SITE_TABLE_H
#define MDAT_ENGINE_SITE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_insn.h"
#include "supervisor/debuginfo/debuginfo.h"

/* An instruction of user code that may be a visible operation. */
struct code_site {
    uint64_t vaddr;             /* file virtual address */
    struct x86_insn insn;
    /* A compare-and-swap or exchange of the C library linked into a static
     * executable (site_table_add_library_atomics): no visible operation,
     * only a word the step touches. */
    bool library_atomic;
    /* A jump out of the user's function into library code (`jmp
     * __atomic_wait_address`, `jmp free@plt`: a tail call at -O2), no
     * access: once it is taken, no return address on the stack leads back
     * to the user's line, so the engine notes the jump as the user's frame
     * (engine/code_names.c). */
    bool tail_call;
};

struct patched_section {
    uint64_t vaddr;
    size_t size;
    uint8_t *bytes;     /* the section with 0xcc on every site (relocated once the loader did) */
    const uint8_t *orig;    /* the file's */
};

/* The sites of one module (the executable, or a library of the program's
 * own): instructions that may be visible, the code they were found in (the
 * user's own, where library calls are scheduling points), and its code
 * sections with an int3 on every site, ready to be written in one go. */
struct site_table {
    const debuginfo *di;
    struct code_site *sites;
    size_t n_sites, cap_sites;
    struct patched_section *patched;
    size_t n_patched;
    struct addr_range *user;
    size_t n_user, cap_user;
    /* Only the atomic instructions of a runtime library (site_table_build_sync). */
    bool sync_only;
    /* Places in user code whose memory accesses mdat cannot see: bytes
     * inside a function that do not decode (the CPU may run them; no
     * breakpoint goes there) and gathers and scatters. The first one's
     * file address. */
    size_t n_unseen;
    uint64_t first_unseen;
};

/* Finds the sites of the module di. User code is what DWARF describes (in
 * a static binary libc has none); without DWARF, every function of .symtab
 * but the startup code; when stripped, the whole .text (.dynsym names only
 * the few exported ones). */
void site_table_build(struct site_table *st, const debuginfo *di, x86_decoder *dec);
/* The atomic read-modify-writes (LOCK prefix, xchg with memory) of every
 * code section of a runtime library such as libgomp: how its locks,
 * barriers and work sharing synchronize threads, which the program relies
 * on without calling a modeled function. No user code. */
void site_table_build_sync(struct site_table *st, const debuginfo *di, x86_decoder *dec);
/* The compare-and-swaps and exchanges (cmpxchg, xchg: how locks and once
 * flags change hands; not atomic arithmetic, which commutes) of a library
 * whose functions the unwind table lists (libc, libstdc++): each function
 * decoded from its start, and none of it after an instruction capstone
 * cannot decode (a guess at the next one could put an int3 inside an
 * instruction). What a search counts as the words a step touched inside
 * the library (code_map_observe_library_atomics). */
void site_table_build_atomics(struct site_table *st, const debuginfo *di, x86_decoder *dec);
/* The same compare-and-swaps and exchanges in the code of a static
 * executable that is not the user's (the C and C++ runtimes linked in),
 * added to its table as library_atomic sites; the patched sections are
 * made again. False when its functions cannot be told apart (stripped,
 * no unwind index): then none are added. */
bool site_table_add_library_atomics(struct site_table *st, x86_decoder *dec);
void site_table_free(struct site_table *st);
/* Which sites carry an int3: every one; only the atomic instructions
 * (while page ownership finds the shared accesses, exec_pages.h); none
 * (the original bytes, for a forked child). */
enum site_planting { SITES_ALL, SITES_ATOMIC, SITES_NONE };
/* Puts the module's int3s of `how` on its sites (the original bytes on
 * the others) in the address space behind mem_fd, at bias: each code
 * section with sites is read, changed and written back in one go. */
bool site_table_write(const struct site_table *st, uint64_t bias, int mem_fd, enum site_planting how);
/* After the loader relocated the module (at bias, behind mem_fd): a site
 * whose instruction's bytes it changed (a text relocation) is decoded
 * again from memory, and the copy of the sections follows. Sections as
 * the file has them cost one read each. */
void site_table_refresh(struct site_table *st, uint64_t bias, int mem_fd, x86_decoder *dec);
/* The sites with file addresses in [lo, hi): sites[*from .. *to). */
void site_table_range(const struct site_table *st, uint64_t lo, uint64_t hi, size_t *from, size_t *to);
/* The site at file address vaddr and the byte its int3 replaced; NULL if none. */
const struct code_site *site_table_lookup(const struct site_table *st, uint64_t vaddr, uint8_t *orig);
/* vaddr lies in the module's user code. */
bool site_table_is_user(const struct site_table *st, uint64_t vaddr);

#endif
