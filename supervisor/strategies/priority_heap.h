/* priority_heap: a binary max-heap of (priority, thread) pairs, the
 * highest priority on top and, between equals, the lowest thread id (the
 * order a scan of ascending ids would pick). It holds no other meaning:
 * entries that no longer hold are the user's to recognise and pop. */
#ifndef MDAT_STRATEGIES_PRIORITY_HEAP_H
#define MDAT_STRATEGIES_PRIORITY_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct heap_entry {
    int64_t priority;
    int thread;
};

struct priority_heap {
    struct heap_entry *e;
    size_t n, cap;
};

void priority_heap_push(struct priority_heap *h, int64_t priority, int thread);
/* The top entry; the heap must not be empty. */
static inline const struct heap_entry *priority_heap_top(const struct priority_heap *h)
{
    return &h->e[0];
}
void priority_heap_pop(struct priority_heap *h);
void priority_heap_clear(struct priority_heap *h);
void priority_heap_free(struct priority_heap *h);

#endif
