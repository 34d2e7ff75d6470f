/* elf_plt: PLT stubs and the functions they call (see elf_plt.h). */
#include "supervisor/debuginfo/elf_plt.h"

#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A GOT slot and the function a dynamic relocation puts there. */
struct slot {
    uint64_t addr;
    const char *name;
    bool jump_slot;     /* filled for calls only (R_X86_64_JUMP_SLOT), not for taking the address */
    bool stubbed;       /* a stub jumps through it */
};

struct elf_plt {
    struct elf_symbol *stubs;   /* sorted by addr; names point into the image's .dynstr */
    size_t n, cap;
    struct slot *slots;
    size_t n_slots;
};

static const struct elf_section *find_section(const elf_image *img, const char *name)
{
    const struct elf_section *secs;
    size_t n = elf_image_sections(img, &secs);
    for (size_t i = 0; i < n; i++)
        if (strcmp(secs[i].name, name) == 0 && secs[i].data)
            return &secs[i];
    return NULL;
}

/* The slots that relocations of kind `type` in rela fill with a named
 * symbol of .dynsym, appended to *slots. */
static void add_slots(const elf_image *img, const struct elf_section *rela, uint32_t type, struct slot **slots,
                      size_t *n)
{
    const struct elf_section *dynsym = find_section(img, ".dynsym");
    const struct elf_section *dynstr = find_section(img, ".dynstr");
    if (!rela || !dynsym || !dynstr)
        return;
    size_t count = rela->size / sizeof(Elf64_Rela);
    struct slot *grown = realloc(*slots, (*n + count + 1) * sizeof **slots);
    if (!grown)
        return;
    *slots = grown;
    for (size_t i = 0; i < count; i++) {
        Elf64_Rela r;
        memcpy(&r, rela->data + i * sizeof r, sizeof r);
        size_t sym = ELF64_R_SYM(r.r_info);
        if (ELF64_R_TYPE(r.r_info) != type || sym == 0 || (sym + 1) * sizeof(Elf64_Sym) > dynsym->size)
            continue;
        Elf64_Sym s;
        memcpy(&s, dynsym->data + sym * sizeof s, sizeof s);
        if (s.st_name == 0 || s.st_name >= dynstr->size)
            continue;
        (*slots)[(*n)++] = (struct slot){r.r_offset, (const char *)dynstr->data + s.st_name,
                                        type == R_X86_64_JUMP_SLOT, false};
    }
}

static struct slot *slot_at(struct slot *slots, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (slots[i].addr == addr)
            return &slots[i];
    return NULL;
}

static void add_stub(elf_plt *p, uint64_t addr, uint64_t size, const char *name)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 32;
        struct elf_symbol *grown = realloc(p->stubs, cap * sizeof *grown);
        if (!grown)
            return;
        p->stubs = grown;
        p->cap = cap;
    }
    p->stubs[p->n++] = (struct elf_symbol){.addr = addr, .size = size, .name = name, .is_func = true};
}

/* Cuts a stub section into entries of `entry` bytes; the one indirect jump
 * through rip (ff 25 disp32, maybe after endbr64 and a bnd prefix) in each
 * names its GOT slot. `skip` leading bytes are not an entry (.plt's PLT0). */
static void scan_stubs(elf_plt *p, const struct elf_section *sec, uint64_t entry, uint64_t skip)
{
    if (!sec)
        return;
    for (uint64_t off = skip; off + entry <= sec->size; off += entry) {
        const uint8_t *b = sec->data + off;
        for (uint64_t k = 0; k + 6 <= entry; k++) {
            if (b[k] != 0xff || b[k + 1] != 0x25)
                continue;
            int32_t disp;
            memcpy(&disp, b + k + 2, sizeof disp);
            struct slot *slot = slot_at(p->slots, p->n_slots, sec->addr + off + k + 6 + (uint64_t)(int64_t)disp);
            if (slot) {
                slot->stubbed = true;
                add_stub(p, sec->addr + off, entry, slot->name);
            }
            break;
        }
    }
}

static int cmp_stub(const void *a, const void *b)
{
    uint64_t x = ((const struct elf_symbol *)a)->addr, y = ((const struct elf_symbol *)b)->addr;
    return x < y ? -1 : x > y;
}

elf_plt *elf_plt_build(const elf_image *img)
{
    elf_plt *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    add_slots(img, find_section(img, ".rela.plt"), R_X86_64_JUMP_SLOT, &p->slots, &p->n_slots);
    add_slots(img, find_section(img, ".rela.dyn"), R_X86_64_GLOB_DAT, &p->slots, &p->n_slots);
    const struct elf_section *plt_sec = find_section(img, ".plt.sec");
    if (plt_sec)
        scan_stubs(p, plt_sec, 16, 0);
    else
        scan_stubs(p, find_section(img, ".plt"), 16, 16);
    const struct elf_section *plt_got = find_section(img, ".plt.got");
    /* 8-byte entries (jmp; xchg ax,ax), 16 with endbr64 in front. */
    if (plt_got)
        scan_stubs(p, plt_got, plt_got->size % 16 == 0 && plt_got->data[0] == 0xf3 ? 16 : 8, 0);
    if (p->n > 1)
        qsort(p->stubs, p->n, sizeof *p->stubs, cmp_stub);
    return p;
}

void elf_plt_free(elf_plt *p)
{
    if (!p)
        return;
    free(p->stubs);
    free(p->slots);
    free(p);
}

const char *elf_plt_name_at(const elf_plt *p, uint64_t addr)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->stubs[mid].addr == addr)
            return p->stubs[mid].name;
        if (p->stubs[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t elf_plt_stubs(const elf_plt *p, const struct elf_symbol **out)
{
    *out = p->stubs;
    return p->n;
}

bool elf_plt_imports(const elf_plt *p, const char *name)
{
    for (size_t i = 0; i < p->n_slots; i++)
        if (strcmp(p->slots[i].name, name) == 0)
            return true;
    return false;
}

bool elf_plt_imports_unstubbed(const elf_plt *p, const char *name)
{
    for (size_t i = 0; i < p->n_slots; i++)
        if ((!p->slots[i].jump_slot || !p->slots[i].stubbed) && strcmp(p->slots[i].name, name) == 0)
            return true;
    return false;
}
