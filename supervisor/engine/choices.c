/* choices: a growable array of choices. */
#include "supervisor/engine/choices.h"

#include <stdlib.h>
#include <string.h>

void choice_list_add(struct choice_list *l, uint64_t step, char kind, int thread)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->at = realloc(l->at, l->cap * sizeof *l->at);
        if (!l->at)
            abort();
    }
    l->at[l->n++] = (struct choice){step, kind, thread};
}

void choice_list_truncate(struct choice_list *l, size_t n)
{
    if (n < l->n)
        l->n = n;
}

void choice_list_copy(struct choice_list *dst, const struct choice_list *src)
{
    choice_list_truncate(dst, 0);
    for (size_t i = 0; i < src->n; i++)
        choice_list_add(dst, src->at[i].step, src->at[i].kind, src->at[i].thread);
    dst->pages = src->pages;
    dst->spins_judged = src->spins_judged;

    page_list_copy(&dst->observed, &src->observed);
    page_list_copy(&dst->read_shared, &src->read_shared);
}

void choice_list_free(struct choice_list *l)
{
    free(l->at);
    page_list_free(&l->observed);
    page_list_free(&l->read_shared);
    *l = (struct choice_list){0};
}

