/* json_writer: just enough JSON output for mdat's reports, correctly escaped. */
#ifndef MDAT_UI_JSON_WRITER_H
#define MDAT_UI_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
    FILE *f;
    int depth;
    bool need_comma[32];
};

void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, bool value);

#endif
