/* json_writer: just enough JSON output for mdat's reports, correctly escaped. */
#ifndef MDAT_UI_JSON_WRITER_H
#define MDAT_UI_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { JSON_MAX_DEPTH = 32 };

struct json_writer {
    FILE *f;
    bool compact;               /* one line per top-level value (JSON Lines); else indented */
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
};

void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
/* Bytes that are not valid UTF-8 are written as U+FFFD: the output is
 * always valid JSON in valid UTF-8, whatever the program's names hold. */
void json_string(struct json_writer *w, const char *key, const char *value);
/* An array of the n strings values[0..n). */
void json_string_array(struct json_writer *w, const char *key, const char *const *values, int n);
/* value as a string, or null when value is NULL. */
void json_string_or_null(struct json_writer *w, const char *key, const char *value);
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, bool value);
void json_null(struct json_writer *w, const char *key);
/* A number as text already in JSON's syntax (one read back, as written). */
void json_number_text(struct json_writer *w, const char *key, const char *text);

#endif
