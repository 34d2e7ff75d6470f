/* json_writer: streaming JSON with commas and indentation handled in one place.
 * A NULL key means "array element". */
#include "ui/json_writer.h"

#include <inttypes.h>

static void write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void element(struct json_writer *w, const char *key)
{
    if (w->need_comma[w->depth])
        fputc(',', w->f);
    if (w->depth > 0) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    w->need_comma[w->depth] = true;
    if (key) {
        write_escaped(w->f, key);
        fputs(": ", w->f);
    }
}

static void open_scope(struct json_writer *w, const char *key, char bracket)
{
    element(w, key);
    fputc(bracket, w->f);
    w->depth++;
    w->need_comma[w->depth] = false;
}

static void close_scope(struct json_writer *w, char bracket)
{
    bool had_items = w->need_comma[w->depth];
    w->depth--;
    if (had_items) {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++)
            fputs("  ", w->f);
    }
    fputc(bracket, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void json_begin_object(struct json_writer *w, const char *key) { open_scope(w, key, '{'); }
void json_end_object(struct json_writer *w) { close_scope(w, '}'); }
void json_begin_array(struct json_writer *w, const char *key) { open_scope(w, key, '['); }
void json_end_array(struct json_writer *w) { close_scope(w, ']'); }

void json_string(struct json_writer *w, const char *key, const char *value)
{
    element(w, key);
    write_escaped(w->f, value);
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
    element(w, key);
    fprintf(w->f, "%" PRIu64, value);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
    element(w, key);
    fprintf(w->f, "%" PRId64, value);
}

void json_double(struct json_writer *w, const char *key, double value)
{
    element(w, key);
    fprintf(w->f, "%.3f", value);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
    element(w, key);
    fputs(value ? "true" : "false", w->f);
}
