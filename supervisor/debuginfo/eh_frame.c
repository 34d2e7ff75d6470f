/* eh_frame: reading the binary search table of .eh_frame_hdr (LSB 5.0
 * "Exception Frame Header"): a count, then (initial location, FDE) pairs.
 * Linkers write the table as 4-byte signed offsets from the header itself
 * (DW_EH_PE_datarel | DW_EH_PE_sdata4); other encodings are not read. */
#include "supervisor/debuginfo/eh_frame.h"

#include <stdlib.h>
#include <string.h>

enum {
    PE_OMIT = 0xff,
    PE_UDATA4 = 0x03,
    PE_SDATA4 = 0x0b,
    PE_PCREL = 0x10,
    PE_DATAREL = 0x30,
};

static int32_t read_s32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static const struct elf_section *find_section(const elf_image *img, const char *name)
{
    const struct elf_section *secs;
    size_t n = elf_image_sections(img, &secs);
    for (size_t i = 0; i < n; i++)
        if (strcmp(secs[i].name, name) == 0 && secs[i].data)
            return &secs[i];
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t eh_frame_function_starts(const elf_image *img, uint64_t **out)
{
    *out = NULL;
    const struct elf_section *hdr = find_section(img, ".eh_frame_hdr");
    if (!hdr || hdr->size < 12)
        return 0;
    const uint8_t *p = hdr->data;
    uint8_t version = p[0], ptr_enc = p[1], count_enc = p[2], table_enc = p[3];
    /* The eh_frame pointer is 4 bytes in every encoding linkers use. */
    if (version != 1 || ptr_enc == PE_OMIT || (ptr_enc & 0x0f) != PE_SDATA4 || count_enc != PE_UDATA4 ||
        table_enc != (PE_DATAREL | PE_SDATA4))
        return 0;
    uint32_t count;
    memcpy(&count, p + 8, sizeof count);
    size_t table = 12;
    if (count == 0 || table + (uint64_t)count * 8 > hdr->size)
        return 0;
    uint64_t *starts = malloc(count * sizeof *starts);
    if (!starts)
        return 0;
    for (uint32_t i = 0; i < count; i++)
        starts[i] = hdr->addr + (uint64_t)(int64_t)read_s32(p + table + 8 * i);
    qsort(starts, count, sizeof *starts, cmp_u64);  /* sorted already, by the format; to be sure */
    *out = starts;
    return count;
}
