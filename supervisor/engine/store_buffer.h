/* store_buffer: x86-TSO's store buffers (--memory-model tso), one FIFO per
 * thread, over a memory that only the running thread looks at.
 *
 * On an x86 CPU a store waits in its core's buffer before the rest of the
 * machine sees it, while the core itself reads its own stores at once. mdat
 * runs one thread at a time, so it keeps one picture in the program's
 * memory: what every thread sees (the committed stores) with the running
 * thread's pending stores laid over it. Switching the viewer takes the old
 * thread's pending stores off (the bytes they replaced go back) and lays
 * the new one's on; committing a thread's oldest store makes it everyone's.
 * A byte the viewer's own native code (a library routine) overwrote while
 * its stores were laid over is left as written: that write went straight
 * to memory, and the pending store it overwrote is dropped.
 *
 * Owns the buffers and the bytes moved; not when stores enter or leave
 * (exec_tso.c decides: plain stores of visible operations enter, fences,
 * calls and the strategy's flush choices commit). Memory is reached
 * through callbacks, so the module is tested without a tracee. */
#ifndef MDAT_ENGINE_STORE_BUFFER_H
#define MDAT_ENGINE_STORE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store_memory {
    bool (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
    bool (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
    void *ctx;
};

struct pending_store {
    uint64_t addr;
    uint8_t size;               /* 1..8 */
    uint8_t value[8];           /* what the thread stored */
    uint8_t replaced[8];        /* what was there while its stores are laid over */
    uint64_t pc;                /* the store instruction */
    uint64_t step;              /* the execution's step that made it */
};

struct store_buffers;

struct store_buffers *store_buffers_new(const struct store_memory *mem);
void store_buffers_free(struct store_buffers *sb);

/* Lays `thread`'s pending stores over memory (after taking the current
 * viewer's off); 0: nobody's. */
bool store_buffers_view(struct store_buffers *sb, int thread);
int store_buffers_viewer(const struct store_buffers *sb);

/* The viewer stored value (size bytes at addr) into memory, where
 * `replaced` was: the store is pending from now on. */
void store_buffers_add(struct store_buffers *sb, uint64_t addr, unsigned size, const void *value,
                       const void *replaced, uint64_t pc, uint64_t step);

size_t store_buffers_pending(const struct store_buffers *sb, int thread);
const struct pending_store *store_buffers_oldest(const struct store_buffers *sb, int thread);
/* `thread`'s i-th pending store, oldest first (0 is the oldest); NULL past
 * the last. */
const struct pending_store *store_buffers_at(const struct store_buffers *sb, int thread, size_t i);

/* `thread`'s oldest pending store reaches memory for everyone. */
bool store_buffers_commit_oldest(struct store_buffers *sb, int thread);
/* All of them, in order (a fence). */
bool store_buffers_drain(struct store_buffers *sb, int thread);

/* Threads with pending stores, ascending, into out[max]; returns how many
 * there are. */
size_t store_buffers_threads(const struct store_buffers *sb, int *out, size_t max);

#endif
