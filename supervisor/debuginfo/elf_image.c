/* elf_image: validation, sections and symbol tables of one ELF file (libelf).
 *
 * The file is mapped once by libelf (ELF_C_READ_MMAP) and the Elf handle stays
 * open for the image's lifetime, so section bytes and string-table names are
 * pointers into that mapping: nothing is copied except symbol names that carry
 * an @VERSION suffix (those need a shorter copy). */
#include "supervisor/debuginfo/elf_image.h"
#include "supervisor/debuginfo/error_text.h"
#include "supervisor/debuginfo/range_index.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symbols are kept in three views: functions and objects by address (for
 * "what is at this address") and every defined symbol by name (for the
 * supervisor's "where is pthread_mutex_lock"). */
struct symbol_index {
    struct elf_symbol *syms;
    size_t count;
    struct range_index ranges; /* item: index into syms */
};

struct elf_image {
    char *path;
    int fd;
    Elf *elf;
    bool is_pie, is_static, has_symtab;
    uint64_t entry, base_vaddr;
    bool has_tls;
    uint64_t tls_vaddr, tls_memsz, tls_align;
    uint64_t relro_lo, relro_hi;    /* PT_GNU_RELRO: read-only once relocated; empty when none */

    struct elf_section *sections;
    size_t section_count;
    /* Allocated, non-TLS sections by address. TLS sections are left out because
     * .tbss has an address but no room of its own: it overlaps what follows. */
    const struct elf_section **mapped;
    size_t mapped_count;

    struct symbol_index functions, objects;
    struct elf_symbol *by_name;
    size_t by_name_count;
    char *name_arena; /* @VERSION-stripped copies of names */
};

/* A symbol while the tables are being built: binding and type decide which
 * alias names an address and never leave this file. */
struct raw_symbol {
    struct elf_symbol sym;
    unsigned char binding;
};


static const char *machine_name(unsigned machine)
{
    switch (machine) {
    case EM_386: return "i386";
    case EM_ARM: return "ARM";
    case EM_AARCH64: return "AArch64";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_MIPS: return "MIPS";
    case EM_LOONGARCH: return "LoongArch";
    default: return NULL;
    }
}

static bool looks_like_text(const unsigned char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = bytes[i];
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
            return false;
        if (c == 0x7f)
            return false;
    }
    return true;
}

static uint16_t read_le16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* Checks the identification bytes before libelf sees the file so that every
 * "this is not something mdat can run" case gets its own plain reason, and
 * libelf only ever parses 64-bit little-endian x86-64 files. */
static bool check_elf_header(int fd, char *err, size_t errlen)
{
    unsigned char header[64];
    ssize_t got = pread(fd, header, sizeof header, 0);
    if (got < 0) {
        error_text(err, errlen, "cannot read: %s", strerror(errno));
        return false;
    }
    size_t len = (size_t)got;
    if (len == 0) {
        error_text(err, errlen, "not an ELF file (empty file)");
        return false;
    }
    if (len < SELFMAG || memcmp(header, ELFMAG, SELFMAG) != 0) {
        if (len >= 2 && header[0] == '#' && header[1] == '!')
            error_text(err, errlen, "not an ELF file (a script?)");
        else if (looks_like_text(header, len))
            error_text(err, errlen, "not an ELF file (a text file?)");
        else
            error_text(err, errlen, "not an ELF file");
        return false;
    }
    if (len < EI_NIDENT) {
        error_text(err, errlen, "truncated ELF file");
        return false;
    }
    if (header[EI_CLASS] == ELFCLASS32) {
        error_text(err, errlen, "32-bit ELF is not supported: mdat runs x86-64 programs");
        return false;
    }
    if (header[EI_CLASS] != ELFCLASS64) {
        error_text(err, errlen, "corrupt ELF file (unknown class %u)", header[EI_CLASS]);
        return false;
    }
    if (header[EI_DATA] != ELFDATA2LSB) {
        error_text(err, errlen, "not an x86-64 ELF (big-endian)");
        return false;
    }
    if (len < sizeof(Elf64_Ehdr)) {
        error_text(err, errlen, "truncated ELF file");
        return false;
    }
    unsigned type = read_le16(header + offsetof(Elf64_Ehdr, e_type));
    unsigned machine = read_le16(header + offsetof(Elf64_Ehdr, e_machine));
    if (machine != EM_X86_64) {
        const char *name = machine_name(machine);
        if (name)
            error_text(err, errlen, "not an x86-64 ELF (machine %u, %s)", machine, name);
        else
            error_text(err, errlen, "not an x86-64 ELF (machine %u)", machine);
        return false;
    }
    switch (type) {
    case ET_EXEC:
    case ET_DYN:
        return true;
    case ET_REL:
        error_text(err, errlen, "not an executable (relocatable object)");
        return false;
    case ET_CORE:
        error_text(err, errlen, "not an executable (core file)");
        return false;
    default:
        error_text(err, errlen, "not an executable (ELF type %u)", type);
        return false;
    }
}

static int open_regular_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            error_text(err, errlen, "no such file");
        else if (errno == EACCES)
            error_text(err, errlen, "permission denied");
        else if (errno == ENOTDIR)
            error_text(err, errlen, "no such file (a path component is not a directory)");
        else
            error_text(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        error_text(err, errlen, "cannot stat: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        error_text(err, errlen, "is a directory");
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        error_text(err, errlen, "not a regular file");
        close(fd);
        return -1;
    }
    return fd;
}

/* libelf quietly treats tables past the end of the file as absent; a cut
 * download or a half-written build output should be named as such. */
static bool is_truncated(Elf *elf, const GElf_Ehdr *ehdr)
{
    size_t file_size = 0;
    elf_rawfile(elf, &file_size);
    if (ehdr->e_shoff + (uint64_t)ehdr->e_shnum * ehdr->e_shentsize > file_size ||
        ehdr->e_phoff + (uint64_t)ehdr->e_phnum * ehdr->e_phentsize > file_size)
        return true;
    for (size_t i = 0; i < ehdr->e_phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
            ph.p_offset + ph.p_filesz > file_size)
            return true;
    }
    return false;
}

static bool read_program_headers(elf_image *img, uint64_t *tls_vaddr)
{
    size_t count;
    if (elf_getphdrnum(img->elf, &count) != 0)
        return false;
    bool have_load = false;
    uint64_t lowest = 0;
    img->is_static = true;
    *tls_vaddr = 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(img->elf, (int)i, &ph))
            return false;
        if (ph.p_type == PT_LOAD && (!have_load || ph.p_vaddr < lowest)) {
            lowest = ph.p_vaddr;
            have_load = true;
        } else if (ph.p_type == PT_INTERP) {
            img->is_static = false;
        } else if (ph.p_type == PT_GNU_RELRO) {
            img->relro_lo = ph.p_vaddr;
            img->relro_hi = ph.p_vaddr + ph.p_memsz;
        } else if (ph.p_type == PT_TLS) {
            *tls_vaddr = ph.p_vaddr;
            img->has_tls = true;
            img->tls_vaddr = ph.p_vaddr;
            img->tls_memsz = ph.p_memsz;
            img->tls_align = ph.p_align;
        }
    }
    img->base_vaddr = lowest & ~(uint64_t)0xfff;
    return true;
}

static int compare_sections_by_addr(const void *a, const void *b)
{
    const struct elf_section *x = *(const struct elf_section *const *)a;
    const struct elf_section *y = *(const struct elf_section *const *)b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static bool read_sections(elf_image *img)
{
    size_t shstrndx, count;
    if (elf_getshdrstrndx(img->elf, &shstrndx) != 0 || elf_getshdrnum(img->elf, &count) != 0)
        return false;
    img->sections = calloc(count ? count : 1, sizeof *img->sections);
    img->mapped = calloc(count ? count : 1, sizeof *img->mapped);
    if (!img->sections || !img->mapped)
        return false;

    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return false;
        if (sh.sh_type == SHT_SYMTAB)
            img->has_symtab = true;
        struct elf_section *sec = &img->sections[img->section_count++];
        const char *name = elf_strptr(img->elf, shstrndx, sh.sh_name);
        sec->name = name ? name : "";
        sec->addr = sh.sh_addr;
        sec->size = sh.sh_size;
        sec->alloc = sh.sh_flags & SHF_ALLOC;
        sec->write = sh.sh_flags & SHF_WRITE;
        sec->exec = sh.sh_flags & SHF_EXECINSTR;
        sec->compressed = sh.sh_flags & SHF_COMPRESSED;
        if (sh.sh_type != SHT_NOBITS && sh.sh_size > 0) {
            /* Raw data: untranslated bytes straight from the mapping. */
            Elf_Data *data = elf_rawdata(scn, NULL);
            sec->data = data ? data->d_buf : NULL;
        }
        if (sec->alloc && sec->size > 0 && !(sh.sh_flags & SHF_TLS))
            img->mapped[img->mapped_count++] = sec;
    }
    qsort(img->mapped, img->mapped_count, sizeof *img->mapped, compare_sections_by_addr);
    return true;
}

/* Lower is better: the name a person would call this address by. Among
 * aliases such as pthread_mutex_lock / __pthread_mutex_lock, prefer global
 * over weak over local, then fewer leading underscores, then shorter. */
static int alias_rank_compare(const struct raw_symbol *x, const struct raw_symbol *y)
{
    static const int binding_rank[] = { [STB_LOCAL] = 2, [STB_GLOBAL] = 0, [STB_WEAK] = 1 };
    int bx = x->binding <= STB_WEAK ? binding_rank[x->binding] : 3;
    int by = y->binding <= STB_WEAK ? binding_rank[y->binding] : 3;
    if (bx != by)
        return bx - by;
    size_t ux = strspn(x->sym.name, "_"), uy = strspn(y->sym.name, "_");
    if (ux != uy)
        return ux < uy ? -1 : 1;
    size_t lx = strlen(x->sym.name), ly = strlen(y->sym.name);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return strcmp(x->sym.name, y->sym.name);
}

static int compare_raw_by_addr(const void *a, const void *b)
{
    const struct raw_symbol *x = a, *y = b;
    if (x->sym.addr != y->sym.addr)
        return x->sym.addr < y->sym.addr ? -1 : 1;
    return alias_rank_compare(x, y);
}

static int compare_by_name(const void *a, const void *b)
{
    const struct elf_symbol *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Sorts raw symbols by address and keeps the best-named one per address. */
static bool build_address_index(struct raw_symbol *raw, size_t count, struct symbol_index *index)
{
    qsort(raw, count, sizeof *raw, compare_raw_by_addr);
    index->syms = calloc(count ? count : 1, sizeof *index->syms);
    struct range_entry *entries = calloc(count ? count : 1, sizeof *entries);
    if (!index->syms || !entries) {
        free(entries);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (index->count > 0 && index->syms[index->count - 1].addr == raw[i].sym.addr)
            continue;
        entries[index->count] = (struct range_entry){
            raw[i].sym.addr, raw[i].sym.addr + raw[i].sym.size, index->count
        };
        index->syms[index->count++] = raw[i].sym;
    }
    return range_index_build(&index->ranges, entries, index->count);
}

static const struct elf_symbol *lookup_containing(const struct symbol_index *index, uint64_t addr)
{
    const struct range_entry *entry = range_index_containing(&index->ranges, addr, NULL);
    return entry ? &index->syms[entry->item] : NULL;
}

static Elf_Scn *find_section_of_type(Elf *elf, Elf64_Word type)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
            return scn;
    }
    return NULL;
}

static bool read_symbols(elf_image *img, uint64_t tls_vaddr)
{
    Elf_Scn *scn = find_section_of_type(img->elf, SHT_SYMTAB);
    if (!scn)
        scn = find_section_of_type(img->elf, SHT_DYNSYM);
    if (!scn)
        return true; /* fully stripped: no symbols is a valid answer */

    GElf_Shdr sh;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!gelf_getshdr(scn, &sh) || !data || sh.sh_entsize == 0)
        return false;
    /* Sizes from the data libelf read (it checked them against the file),
     * never from the headers alone: a damaged header asks for gigabytes. */
    size_t count = data->d_size / sh.sh_entsize;

    /* Every stripped name is shorter than its original, so the string table's
     * size bounds what the arena can ever need. */
    Elf_Scn *strscn = elf_getscn(img->elf, sh.sh_link);
    Elf_Data *strdata = strscn ? elf_getdata(strscn, NULL) : NULL;
    if (!strdata)
        return false;
    img->name_arena = malloc(strdata->d_size + 1);
    size_t arena_used = 0;

    struct raw_symbol *funcs = calloc(count ? count : 1, sizeof *funcs);
    struct raw_symbol *objs = calloc(count ? count : 1, sizeof *objs);
    img->by_name = calloc(count ? count : 1, sizeof *img->by_name);
    bool ok = img->name_arena && funcs && objs && img->by_name;
    size_t nfuncs = 0, nobjs = 0;
    const char *file = NULL;    /* the STT_FILE whose local symbols follow */

    for (size_t i = 1; ok && i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            continue;
        unsigned type = GELF_ST_TYPE(sym.st_info);
        if (type == STT_FILE) {
            file = elf_strptr(img->elf, sh.sh_link, sym.st_name);
            continue;
        }
        bool is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
        if (!is_func && type != STT_OBJECT && type != STT_TLS)
            continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS)
            continue;
        const char *name = elf_strptr(img->elf, sh.sh_link, sym.st_name);
        if (!name || !*name)
            continue;
        const char *at = strchr(name, '@');
        if (at) {
            size_t len = (size_t)(at - name);
            char *copy = img->name_arena + arena_used;
            memcpy(copy, name, len);
            copy[len] = '\0';
            arena_used += len + 1;
            name = copy;
        }
        struct raw_symbol raw = {
            .sym = { .addr = sym.st_value, .size = sym.st_size, .name = name, .is_func = is_func,
                     .file = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL },
            .binding = GELF_ST_BIND(sym.st_info),
        };
        /* A TLS symbol's value is an offset into the TLS block; place it at its
         * initialization image so it cannot collide with small real addresses. */
        if (type == STT_TLS)
            raw.sym.addr += tls_vaddr;
        img->by_name[img->by_name_count++] = raw.sym;
        if (raw.sym.size == 0)
            continue;
        if (is_func)
            funcs[nfuncs++] = raw;
        else
            objs[nobjs++] = raw;
    }
    if (ok) {
        qsort(img->by_name, img->by_name_count, sizeof *img->by_name, compare_by_name);
        ok = build_address_index(funcs, nfuncs, &img->functions) &&
             build_address_index(objs, nobjs, &img->objects);
    }
    free(funcs);
    free(objs);
    return ok;
}

elf_image *elf_image_open(const char *path, char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    if (!path || !*path) {
        error_text(err, errlen, "no such file");
        return NULL;
    }
    int fd = open_regular_file(path, err, errlen);
    if (fd < 0)
        return NULL;
    if (!check_elf_header(fd, err, errlen)) {
        close(fd);
        return NULL;
    }

    elf_image *img = calloc(1, sizeof *img);
    if (!img) {
        error_text(err, errlen, "out of memory");
        close(fd);
        return NULL;
    }
    img->fd = fd;
    img->path = strdup(path);
    elf_version(EV_CURRENT);
    img->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr ehdr;
    if (!img->path || !img->elf || elf_kind(img->elf) != ELF_K_ELF || !gelf_getehdr(img->elf, &ehdr)) {
        error_text(err, errlen, "corrupt ELF file (%s)", elf_errmsg(-1));
        elf_image_close(img);
        return NULL;
    }
    if (is_truncated(img->elf, &ehdr)) {
        error_text(err, errlen, "truncated ELF file");
        elf_image_close(img);
        return NULL;
    }
    img->is_pie = ehdr.e_type == ET_DYN;
    img->entry = ehdr.e_entry;

    uint64_t tls_vaddr;
    if (!read_program_headers(img, &tls_vaddr) || !read_sections(img) ||
        !read_symbols(img, tls_vaddr)) {
        int elf_error = elf_errno();
        const char *why = elf_error ? elf_errmsg(elf_error) : "malformed headers or out of memory";
        error_text(err, errlen, "corrupt ELF file (%s)", why);
        elf_image_close(img);
        return NULL;
    }
    return img;
}

void elf_image_close(elf_image *img)
{
    if (!img)
        return;
    if (img->elf)
        elf_end(img->elf);
    if (img->fd >= 0)
        close(img->fd);
    free(img->path);
    free(img->sections);
    free(img->mapped);
    free(img->functions.syms);
    range_index_free(&img->functions.ranges);
    free(img->objects.syms);
    range_index_free(&img->objects.ranges);
    free(img->by_name);
    free(img->name_arena);
    free(img);
}

const char *elf_image_path(const elf_image *img) { return img->path; }
bool elf_image_is_pie(const elf_image *img) { return img->is_pie; }
bool elf_image_is_static(const elf_image *img) { return img->is_static; }
bool elf_image_has_symtab(const elf_image *img) { return img->has_symtab; }
uint64_t elf_image_entry(const elf_image *img) { return img->entry; }
uint64_t elf_image_base_vaddr(const elf_image *img) { return img->base_vaddr; }

bool elf_image_tls_segment(const elf_image *img, uint64_t *vaddr, uint64_t *memsz, uint64_t *align)
{
    if (!img->has_tls)
        return false;
    *vaddr = img->tls_vaddr;
    *memsz = img->tls_memsz;
    *align = img->tls_align;
    return true;
}

size_t elf_image_sections(const elf_image *img, const struct elf_section **out)
{
    *out = img->sections;
    return img->section_count;
}

size_t elf_image_functions(const elf_image *img, const struct elf_symbol **out)
{
    *out = img->functions.syms;
    return img->functions.count;
}

const struct elf_symbol *elf_image_function_at(const elf_image *img, uint64_t addr)
{
    return lookup_containing(&img->functions, addr);
}

const struct elf_symbol *elf_image_object_at(const elf_image *img, uint64_t addr)
{
    return lookup_containing(&img->objects, addr);
}

size_t elf_image_symbol_addrs(const elf_image *img, const char *name, uint64_t *addrs, size_t max)
{
    size_t lo = 0, hi = img->by_name_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(img->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Sorted by (name, addr): equal addresses are adjacent, count each once. */
    size_t found = 0;
    for (size_t i = lo; i < img->by_name_count && strcmp(img->by_name[i].name, name) == 0; i++) {
        if (i > lo && img->by_name[i].addr == img->by_name[i - 1].addr)
            continue;
        if (found < max)
            addrs[found] = img->by_name[i].addr;
        found++;
    }
    return found;
}

bool elf_image_addr_readonly(const elf_image *img, uint64_t addr)
{
    size_t lo = 0, hi = img->mapped_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->mapped[mid]->addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return false;
    const struct elf_section *sec = img->mapped[lo - 1];
    return addr - sec->addr < sec->size && !sec->write;
}

bool elf_image_addr_constant(const elf_image *img, uint64_t addr, uint64_t size)
{
    if (addr >= img->relro_lo && addr + size <= img->relro_hi)
        return true;
    return elf_image_addr_readonly(img, addr) && elf_image_addr_readonly(img, addr + size - 1);
}
