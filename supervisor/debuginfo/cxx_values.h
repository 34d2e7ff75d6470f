/* cxx_values: the C++ library's handles and containers as a person reads
 * them: a std::unique_ptr as what it points to ("points to 2", "nullptr"),
 * a std::shared_ptr with its use count ("points to 1, use_count 2"), a
 * std::string as its characters, a std::vector as its size and elements
 * ("size 3 {1, 2, 3}"), a std::future or std::promise as "ready" or "not
 * ready", a std::stop_token, std::stop_source or std::jthread as whether a
 * stop was requested, instead of libstdc++'s members.
 *
 * Owns recognising those classes (libstdc++'s layout, by class name) and
 * reading what they hold through the data reader; formatting a pointee or
 * an element is left to value_format.c, through the sink. */
#ifndef MDAT_SUPERVISOR_CXX_VALUES_H
#define MDAT_SUPERVISOR_CXX_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/dwarf_types.h"
#include "supervisor/debuginfo/text_out.h"

/* Memory a C++ object points to, once exit() runs the destructors of
 * globals (which free what those objects hold without clearing them). */
enum after_exit {
    AFTER_EXIT_INTACT,      /* exit() has not begun, or the memory is not freed (a live block, a global) */
    AFTER_EXIT_FREED,       /* freed by the user's code since exit() began */
    AFTER_EXIT_UNKNOWN,     /* heap memory the user's code did not allocate: may have been freed unseen */
};

/* Where a value goes, and how a part of it of another type is written. */
struct cxx_value_sink {
    struct text_out *out;
    /* Reads the program's memory at a runtime address (a data_reader's);
     * NULL: nothing is read through pointers. */
    bool (*read)(void *read_ctx, uint64_t addr, void *buf, size_t n);
    void *read_ctx;
    void (*put)(void *ctx, const struct dwarf_type *t, const uint8_t *bytes, size_t n);
    void *ctx;
    /* Optional, with read_ctx: what is known of the memory at addr once
     * exit() has begun (data_reader's after_exit). */
    enum after_exit (*after_exit)(void *read_ctx, uint64_t addr);
};

/* The bytes an object of type t occupies: its DWARF size, or for a class
 * of these that the debug info only declares (clang leaves
 * std::string, an extern template of libstdc++'s, undefined), the size
 * libstdc++'s ABI gives it; 0 when unknown. */
size_t cxx_value_size(const struct dwarf_type *t);

/* Writes the object of record type t (n bytes in hand) when it is one of
 * those classes; false (nothing written) when it is not. */
bool cxx_value_put(const struct dwarf_type *t, const uint8_t *bytes, size_t n, const struct cxx_value_sink *sink);

#endif
