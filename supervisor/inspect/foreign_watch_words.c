/* foreign_watch_words: the words a livelock watch has seen written (see
 * foreign_watch_words.h). */
#include "supervisor/inspect/foreign_watch_words.h"
#include "supervisor/process/tracee.h"

#include <stdlib.h>

static size_t hash_addr(uint64_t addr, size_t slots)
{
    return (size_t)((addr >> 3) * 0x9e3779b97f4a7c15ull >> 20) & (slots - 1);
}

static bool written_grow(struct written *w)
{
    size_t cap = w->cap ? w->cap * 2 : 256, slots = cap * 2;
    uint64_t *addr = realloc(w->addr, cap * sizeof *addr);
    if (addr)
        w->addr = addr;
    uint64_t *orig = realloc(w->orig, cap * sizeof *orig);
    if (orig)
        w->orig = orig;
    uint64_t *cur = realloc(w->cur, cap * sizeof *cur);
    if (cur)
        w->cur = cur;
    size_t *slot = calloc(slots, sizeof *slot);
    if (!addr || !orig || !cur || !slot) {
        free(slot);
        return false;
    }
    free(w->slot);
    w->slot = slot;
    w->slots = slots;
    w->cap = cap;
    for (size_t i = 0; i < w->n; i++) {
        size_t h = hash_addr(w->addr[i], slots);
        while (slot[h])
            h = (h + 1) & (slots - 1);
        slot[h] = i + 1;
    }
    return true;
}

long written_word(struct written *w, int mem_fd, uint64_t addr)
{
    if (w->slots) {
        for (size_t h = hash_addr(addr, w->slots); w->slot[h]; h = (h + 1) & (w->slots - 1))
            if (w->addr[w->slot[h] - 1] == addr)
                return (long)w->slot[h] - 1;
    }
    if (w->n == w->cap && !written_grow(w))
        return -1;
    uint64_t value;
    if (!tracee_read(mem_fd, addr, &value, sizeof value))
        return -1;
    size_t h = hash_addr(addr, w->slots);
    while (w->slot[h])
        h = (h + 1) & (w->slots - 1);
    w->slot[h] = w->n + 1;
    w->addr[w->n] = addr;
    w->orig[w->n] = w->cur[w->n] = value;
    return (long)w->n++;
}

void written_free(struct written *w)
{
    free(w->addr);
    free(w->orig);
    free(w->cur);
    free(w->slot);
}

bool written_reread(struct written *w, int mem_fd, long i)
{
    return tracee_read(mem_fd, w->addr[i], &w->cur[i], sizeof w->cur[i]);
}
