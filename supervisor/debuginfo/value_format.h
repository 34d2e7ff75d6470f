/* value_format: the value of a typed object as a student would write it:
 * 3, -1, 'a', true, 3.5, NULL, 0x4052a0 "hello", RED, {1, 2, 3},
 * {head = 1, tail = 2}.
 *
 * Owns reading an object's bytes through a data_reader (the traced
 * program's memory, or a test's fake) and the formats of every kind of
 * type, with bounds: arrays show their first elements then "...", strings
 * their first characters, and the whole text ends with "..." where the
 * caller's buffer is too small. */
#ifndef MDAT_SUPERVISOR_VALUE_FORMAT_H
#define MDAT_SUPERVISOR_VALUE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/cxx_values.h"
#include "supervisor/debuginfo/dwarf_types.h"

/* How debug info reads the traced program's memory. Addresses are runtime
 * addresses; bias is the executable's load bias (runtime = file vaddr + bias:
 * 0 for non-PIE, 0x555555554000 for PIE with ASLR off). read fills buf and
 * returns true only when all n bytes could be read. */
struct data_reader {
    bool (*read)(void *ctx, uint64_t runtime_addr, void *buf, size_t n);
    void *ctx;
    uint64_t bias;
    /* Optional: how many bytes of the allocation that holds runtime_addr
     * lie from there on (a heap block's rest), 0 when unknown. Lets a
     * pointer into an array be named p[3]. */
    uint64_t (*extent)(void *ctx, uint64_t runtime_addr);
    /* Optional: what is known of the memory at runtime_addr once exit()
     * has begun running the destructors of globals (cxx_values.h): a C++
     * handle or container pointing where a destructor may have freed is
     * not read (it would hold what the allocator left). */
    enum after_exit (*after_exit)(void *ctx, uint64_t runtime_addr);
};

/* Formats the object of type t at runtime address addr, read through rd.
 * Pointers to char also show the string they point to. */
void value_format_at(const struct dwarf_type *t, uint64_t addr, const struct data_reader *rd,
                     char *buf, size_t len);
/* The same for bytes already in hand (a load or store of n bytes); when n is
 * shorter than the type, what the bytes cover is shown, then "...". */
void dwarf_format_bytes(const struct dwarf_type *t, const void *bytes, size_t n, char *buf, size_t len);

#endif
