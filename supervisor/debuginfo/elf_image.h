/* elf_image: one ELF file on disk, read with libelf.
 *
 * Owns validation of the program mdat is asked to run (with one-line reasons
 * for everything that is not an x86-64 ELF executable), its sections, its
 * symbols (.symtab, else .dynsym) and address-to-symbol lookups. All addresses
 * are the file's own virtual addresses; callers add the load bias. */
#ifndef MDAT_SUPERVISOR_ELF_IMAGE_H
#define MDAT_SUPERVISOR_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A TLS symbol's addr is its place in the PT_TLS initialization image
 * (p_vaddr + st_value), not a per-thread address. */
struct elf_symbol {
    uint64_t addr, size;
    const char *name;       /* without the @VERSION suffix */
    bool is_func;           /* STT_FUNC / STT_GNU_IFUNC, else STT_OBJECT / STT_TLS */
    /* A local symbol's source or object file (the STT_FILE symbol before
     * it: "prog.c", or "malloc.o" for a member of a static libc); NULL for
     * a global symbol, which the symbol table does not place in a file. */
    const char *file;
};

struct elf_section {
    const char *name;
    uint64_t addr, size;
    const uint8_t *data;    /* file bytes (NULL for SHT_NOBITS) */
    bool exec, write, alloc;
    bool compressed;        /* SHF_COMPRESSED: data is a zlib stream behind a header */
};

typedef struct elf_image elf_image;

/* Opens and validates path. On failure returns NULL and writes a one-line
 * reason (no trailing newline, no program name) into err, e.g.
 *   "no such file", "is a directory", "not an ELF file (a script?)",
 *   "32-bit ELF is not supported: mdat runs x86-64 programs",
 *   "not an x86-64 ELF (machine 183)", "not an executable (relocatable object)". */
elf_image *elf_image_open(const char *path, char *err, size_t errlen);
void elf_image_close(elf_image *img);

const char *elf_image_path(const elf_image *img);
bool elf_image_is_pie(const elf_image *img);     /* ET_DYN */
bool elf_image_is_static(const elf_image *img);  /* no PT_INTERP */
bool elf_image_has_symtab(const elf_image *img); /* false when stripped */
uint64_t elf_image_entry(const elf_image *img);
/* Lowest p_vaddr of a PT_LOAD segment, page aligned down: with the start of the
 * lowest mapping of the file this gives the load bias. */
uint64_t elf_image_base_vaddr(const elf_image *img);

/* The PT_TLS segment: where its initialization image is, the size of the
 * TLS block (.tdata + .tbss) and its alignment. False when there is none. */
bool elf_image_tls_segment(const elf_image *img, uint64_t *vaddr, uint64_t *memsz, uint64_t *align);

size_t elf_image_sections(const elf_image *img, const struct elf_section **out);
/* Function symbols with a non-zero size, sorted by address, duplicates removed. */
size_t elf_image_functions(const elf_image *img, const struct elf_symbol **out);
const struct elf_symbol *elf_image_function_at(const elf_image *img, uint64_t addr);
/* The data symbol (object or TLS) whose [addr, addr+size) contains addr. */
const struct elf_symbol *elf_image_object_at(const elf_image *img, uint64_t addr);
/* Every address a symbol of this name has (versioned symbols such as
 * pthread_cond_wait@GLIBC_2.3.2 and @GLIBC_2.2.5 have several). Returns the
 * count, writes at most max addresses. */
size_t elf_image_symbol_addrs(const elf_image *img, const char *name, uint64_t *addrs, size_t max);
/* True when addr lies in an allocated section that is never written at run
 * time (.text, .rodata, .eh_frame ...): loads from there are not shared state. */
bool elf_image_addr_readonly(const elf_image *img, uint64_t addr);
/* [addr, addr + size) never changes once the program runs main: a
 * read-only section, or the part the loader makes read-only after
 * relocating it (PT_GNU_RELRO: vtables, .data.rel.ro, a RELRO .got). */
bool elf_image_addr_constant(const elf_image *img, uint64_t addr, uint64_t size);

#endif
