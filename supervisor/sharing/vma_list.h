/* vma_list: mdat's copy of which address ranges of the program are mapped,
 * and with which rights (PROT_*), kept as the program maps, unmaps and
 * protects memory.
 *
 * Changing a page's protection key (pkey_mprotect) sets its rights too: a
 * key is only ever changed with the rights the page already has, which
 * this list knows without reading /proc at every change. Owns the ranges
 * only; the engine feeds it from the program's mmap, munmap, mprotect,
 * mremap and brk (engine/exec_pages.c). */
#ifndef MDAT_SHARING_VMA_LIST_H
#define MDAT_SHARING_VMA_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vma {
    uint64_t start, end;
    int prot;
    bool shared;        /* MAP_SHARED: other processes may see it */
};

struct vma_list {
    struct vma *at;     /* sorted, not overlapping */
    size_t n, cap;
};

void vma_list_init(struct vma_list *l);
void vma_list_free(struct vma_list *l);
void vma_list_copy(struct vma_list *dst, const struct vma_list *src);
/* [start, end) is mapped with prot (replacing what was there). */
void vma_list_set(struct vma_list *l, uint64_t start, uint64_t end, int prot, bool shared);
/* [start, end) is unmapped. */
void vma_list_remove(struct vma_list *l, uint64_t start, uint64_t end);
/* Calls each(ctx, start, end, prot) for every mapped piece of
 * [start, end), in order. */
void vma_list_pieces(const struct vma_list *l, uint64_t start, uint64_t end,
                     void (*each)(void *ctx, uint64_t start, uint64_t end, int prot), void *ctx);
/* The mapping holding addr, NULL if none. */
const struct vma *vma_list_find(const struct vma_list *l, uint64_t addr);

#endif
