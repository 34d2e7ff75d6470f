/* json_reader: a small JSON parser for the documents mdat writes and reads
 * back (grading shard reports). The whole document becomes a tree. */
#ifndef MDAT_UI_JSON_READER_H
#define MDAT_UI_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
    enum json_type type;
    bool boolean;
    char *text;                 /* a string (unescaped, NUL-terminated) or a number as written */
    size_t text_len;            /* a string may hold NUL bytes (\u0000) */
    struct json_value *items;   /* elements of an array, values of an object */
    char **keys;                /* keys of an object */
    size_t n;
};

/* Parses a whole document (RFC 8259; nesting up to 64 deep). NULL with a
 * one-line reason that names the line on malformed input. */
struct json_value *json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Reads and parses a file of at most JSON_MAX_FILE bytes, without a NUL
 * byte; the reason names the file. */
#define JSON_MAX_FILE (256u << 20)
#define JSON_MAX_FILE_TEXT "256 MiB"
struct json_value *json_parse_file(const char *path, char *err, size_t errlen);
void json_value_free(struct json_value *v);

/* The member `key` of an object (the last one if repeated); NULL if v is
 * not an object or has none. */
const struct json_value *json_member(const struct json_value *v, const char *key);
/* A member's string ("" if absent or another type), whether a member is a
 * number that fits in uint64_t, a number at all, true. */
const char *json_member_string(const struct json_value *v, const char *key);
bool json_member_u64(const struct json_value *v, const char *key, uint64_t *out);
bool json_member_double(const struct json_value *v, const char *key, double *out);
bool json_member_true(const struct json_value *v, const char *key);

/* Same value: numbers compared as written, objects member by member in
 * order. */
bool json_equal(const struct json_value *a, const struct json_value *b);

#endif
