/* dwarf_types: the C type model that debug information describes variables
 * with, and what can be said about a type without memory: its size and its
 * name as C writes it.
 *
 * Types are plain immutable structs owned by the dwarf_info they were read
 * from (see dwarf_type_reader.h); they point at each other, and a NULL type
 * pointer means void. Multi-dimensional arrays are arrays of arrays, as in C. */
#ifndef MDAT_SUPERVISOR_DWARF_TYPES_H
#define MDAT_SUPERVISOR_DWARF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dwarf_type_kind {
    DWARF_TYPE_BASE,        /* int, char, double, _Bool ... (see encoding) */
    DWARF_TYPE_ENUM,
    DWARF_TYPE_POINTER,     /* also C++ references */
    DWARF_TYPE_STRUCT,
    DWARF_TYPE_UNION,
    DWARF_TYPE_CLASS,
    DWARF_TYPE_ARRAY,
    DWARF_TYPE_FUNCTION,    /* what a function pointer points at */
    DWARF_TYPE_TYPEDEF,
    DWARF_TYPE_CONST,
    DWARF_TYPE_VOLATILE,
    DWARF_TYPE_RESTRICT,
    DWARF_TYPE_ATOMIC,
    DWARF_TYPE_UNKNOWN,     /* a DWARF type mdat does not model */
};

enum dwarf_encoding {
    DWARF_ENC_NONE,
    DWARF_ENC_SIGNED,
    DWARF_ENC_UNSIGNED,
    DWARF_ENC_SIGNED_CHAR,
    DWARF_ENC_UNSIGNED_CHAR,
    DWARF_ENC_BOOL,
    DWARF_ENC_FLOAT,
};

struct dwarf_member {
    const char *name;               /* NULL: an anonymous struct/union member or a base class */
    const struct dwarf_type *type;
    uint64_t offset;                /* bytes from the start of the enclosing object */
    uint32_t bit_size;              /* 0 unless a bit field */
    uint32_t bit_offset;            /* bit field: its lowest bit, counted from bit 0 of byte offset */
};

struct dwarf_enumerator {
    const char *name;
    int64_t value;
};

struct dwarf_type {
    enum dwarf_type_kind kind;
    enum dwarf_encoding encoding;   /* base types and enums */
    const char *name;               /* "int", "queue" (no "struct "), "size_t"; NULL when anonymous */
    uint64_t size;                  /* bytes; 0 when unknown (void, incomplete, function) */
    const struct dwarf_type *target;/* pointer: pointee; typedef and qualifiers: the type
                                     * they name; array: element; function: return type */
    uint64_t count;                 /* array: number of elements, when count_known */
    bool count_known;               /* false for int x[] and flexible array members */
    bool variadic;                  /* function: ends with "..." */
    size_t member_count;            /* struct/union/class: members; function: parameters */
    const struct dwarf_member *members;
    size_t enumerator_count;
    const struct dwarf_enumerator *enumerators;
};

/* t with typedefs and qualifiers taken off (NULL stays NULL: void). */
const struct dwarf_type *dwarf_type_strip(const struct dwarf_type *t);
/* Bytes an object of type t occupies; 0 when unknown. */
size_t dwarf_type_size(const struct dwarf_type *t);
/* How C writes the type: "int", "unsigned long", "struct node *", "char [16]",
 * "enum color", "const char *", "int (*)[4]", "void (*)(int)". */
void dwarf_type_name(const struct dwarf_type *t, char *buf, size_t len);
/* True for struct, union and class (after dwarf_type_strip). */
bool dwarf_type_is_record(const struct dwarf_type *t);
/* The member called name, looking through anonymous members; *offset gets
 * its offset from the start of t. NULL when t has no such member. */
const struct dwarf_member *dwarf_type_find_member(const struct dwarf_type *t, const char *name,
                                                  uint64_t *offset);
/* The bytes a member occupies from its offset (a bit field: the bytes its bits touch). */
uint64_t dwarf_member_extent(const struct dwarf_member *m);
/* The byte at offset in an object of type t belongs to an atomic object:
 * one of C11 _Atomic type, or of a C++ std::atomic class (libstdc++'s
 * atomic<T>, __atomic_base<T>, atomic_flag), itself or as a member or an
 * element of t. */
bool dwarf_type_atomic_at(const struct dwarf_type *t, uint64_t offset);
/* name is one of the C++ library's atomic classes or the bases and helpers
 * that hold their value ("atomic<bool>", "__atomic_base<int>", "atomic_flag"). */
bool dwarf_type_is_atomic_class(const char *name);

#endif
