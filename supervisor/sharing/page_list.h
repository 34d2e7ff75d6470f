/* page_list: a set of page addresses, kept sorted: the pages an execution
 * observes from its start (page ownership), as schedules record them and
 * executions pass them on. */
#ifndef MDAT_SHARING_PAGE_LIST_H
#define MDAT_SHARING_PAGE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct page_list {
    uint64_t *at;       /* page-aligned addresses, ascending, no repeats */
    size_t n, cap;
};

void page_list_free(struct page_list *l);
void page_list_copy(struct page_list *dst, const struct page_list *src);
/* Adds the page holding addr; true when it was not there yet. */
bool page_list_add(struct page_list *l, uint64_t addr);
bool page_list_has(const struct page_list *l, uint64_t addr);

#endif
