/* race_shadow: what the race detector remembers about each byte of memory
 * the program touched: its last write and its last read(s), as epochs with
 * the step and instruction that made them (for the report).
 *
 * Owns the storage only (64-byte lines in a hash table, read sets for
 * bytes read by several threads at once); the FastTrack rules that read and
 * update it are race_detector.c's. */
#ifndef MDAT_DETECT_RACE_SHADOW_H
#define MDAT_DETECT_RACE_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One access as remembered: thread 0 means none. */
struct shadow_access {
    uint32_t thread, clock;
    uint64_t step, pc;
};

struct shadow_cell {
    struct shadow_access write;
    /* The last read while reads are totally ordered (FastTrack's read
     * epoch); unused while reads is set. */
    struct shadow_access read;
    uint32_t reads;             /* 1 + index of the read set (concurrent reads), 0: none */
    bool atomic;                /* accessed atomically: a sync location from now on */
};

/* Concurrent reads of one byte: the last read of each thread. */
struct shadow_reads {
    struct shadow_access *by_thread;    /* indexed by thread id; thread 0 entries unused */
    size_t n;
};

struct race_shadow;

struct race_shadow *race_shadow_new(void);
void race_shadow_free(struct race_shadow *s);
/* Forgets every byte (a new execution). */
void race_shadow_reset(struct race_shadow *s);
/* The cell of byte addr; NULL when it was never touched and !create. */
struct shadow_cell *race_shadow_cell(struct race_shadow *s, uint64_t addr, bool create);
/* Forgets the bytes of [addr, addr + size). */
void race_shadow_forget(struct race_shadow *s, uint64_t addr, uint64_t size);

/* The read set of a cell, made (with the cell's read epoch in it) if it has none. */
struct shadow_reads *race_shadow_reads(struct race_shadow *s, struct shadow_cell *c);
/* Records a read in a read set. */
void race_shadow_reads_put(struct shadow_reads *r, const struct shadow_access *a);
/* Drops the cell's reads (a write ordered after all of them). */
void race_shadow_drop_reads(struct race_shadow *s, struct shadow_cell *c);

size_t race_shadow_memory(const struct race_shadow *s);

#endif
