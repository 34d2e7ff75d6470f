/* foreign_watch_words: the memory a livelock watch has seen written
 * (internal to supervisor/inspect/, for foreign_watch.c).
 *
 * Owns the set of 8-byte words the watched threads wrote in the window,
 * each with its value before the first write (what it held at any moment
 * before that: only the watched threads write it) and its value now, found
 * by address through open addressing. Which instructions write where is
 * foreign_watch_insn.c's; comparing states is foreign_watch.c's. */
#ifndef MDAT_INSPECT_FOREIGN_WATCH_WORDS_H
#define MDAT_INSPECT_FOREIGN_WATCH_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The locations written in the window, 8-byte words: their value before
 * the first write, and now. */
struct written {
    uint64_t *addr, *orig, *cur;
    size_t n, cap;
    size_t *slot;           /* open addressing over addr: index + 1, 0 empty */
    size_t slots;
};

/* The index of the word at addr (8-aligned), added with its value now
 * when new; -1 when it cannot be read or kept. */
long written_word(struct written *w, int mem_fd, uint64_t addr);
/* Reads the word at index i again after a store: false when unreadable. */
bool written_reread(struct written *w, int mem_fd, long i);
void written_free(struct written *w);

#endif
