/* priority_heap: the binary heap itself (see priority_heap.h). */
#include "supervisor/strategies/priority_heap.h"

#include <stdbool.h>
#include <stdlib.h>

static bool above(const struct heap_entry *a, const struct heap_entry *b)
{
    return a->priority > b->priority || (a->priority == b->priority && a->thread < b->thread);
}

void priority_heap_push(struct priority_heap *h, int64_t priority, int thread)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->e = realloc(h->e, h->cap * sizeof *h->e);
        if (!h->e)
            abort();
    }
    struct heap_entry x = {priority, thread};
    size_t i = h->n++;
    while (i > 0 && above(&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
}

void priority_heap_pop(struct priority_heap *h)
{
    struct heap_entry x = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n)
            break;
        if (child + 1 < h->n && above(&h->e[child + 1], &h->e[child]))
            child++;
        if (!above(&h->e[child], &x))
            break;
        h->e[i] = h->e[child];
        i = child;
    }
    if (h->n)
        h->e[i] = x;
}

void priority_heap_clear(struct priority_heap *h)
{
    h->n = 0;
}

void priority_heap_free(struct priority_heap *h)
{
    free(h->e);
    h->e = NULL;
    h->n = h->cap = 0;
}
